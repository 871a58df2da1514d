package main

import (
	"fmt"
	"strings"
)

// The package parts around the slides: one master, one blank layout, one
// theme (Arial, the colours above), fixed metadata.

const xmlHeader = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n"

const (
	nsA = `xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"`
	nsR = `xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"`
	nsP = `xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"`
	rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
)

func contentTypes(n int) string {
	var s strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&s, `<Override PartName="/ppt/slides/slide%d.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.slide+xml"/>`, i)
	}
	return `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
		`<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>` +
		`<Default Extension="xml" ContentType="application/xml"/>` +
		`<Override PartName="/ppt/presentation.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"/>` +
		`<Override PartName="/ppt/slideMasters/slideMaster1.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.slideMaster+xml"/>` +
		`<Override PartName="/ppt/slideLayouts/slideLayout1.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.slideLayout+xml"/>` +
		`<Override PartName="/ppt/theme/theme1.xml" ContentType="application/vnd.openxmlformats-officedocument.theme+xml"/>` +
		`<Override PartName="/ppt/presProps.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.presProps+xml"/>` +
		`<Override PartName="/ppt/viewProps.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.viewProps+xml"/>` +
		`<Override PartName="/ppt/tableStyles.xml" ContentType="application/vnd.openxmlformats-officedocument.presentationml.tableStyles+xml"/>` +
		`<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>` +
		`<Override PartName="/docProps/app.xml" ContentType="application/vnd.openxmlformats-officedocument.extended-properties+xml"/>` +
		s.String() + `</Types>`
}

const rootRels = `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
	`<Relationship Id="rId1" Type="` + rel + `officeDocument" Target="ppt/presentation.xml"/>` +
	`<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/>` +
	`<Relationship Id="rId3" Type="` + rel + `extended-properties" Target="docProps/app.xml"/></Relationships>`

const core = `<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">` +
	`<dc:title>Standard proposal</dc:title><dc:creator>ScopeKit</dc:creator>` +
	`<dcterms:created xsi:type="dcterms:W3CDTF">2026-01-01T00:00:00Z</dcterms:created></cp:coreProperties>`

const app = `<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties"><Application>ScopeKit</Application></Properties>`

func presentation(n int) string {
	var ids strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&ids, `<p:sldId id="%d" r:id="rId%d"/>`, 255+i, 10+i)
	}
	return `<p:presentation ` + nsA + ` ` + nsR + ` ` + nsP + ` saveSubsetFonts="1">` +
		`<p:sldMasterIdLst><p:sldMasterId id="2147483648" r:id="rId1"/></p:sldMasterIdLst>` +
		`<p:sldIdLst>` + ids.String() + `</p:sldIdLst>` +
		`<p:sldSz cx="12192000" cy="6858000"/><p:notesSz cx="6858000" cy="9144000"/>` +
		`<p:defaultTextStyle><a:lvl1pPr><a:defRPr sz="1800"><a:latin typeface="Arial"/></a:defRPr></a:lvl1pPr></p:defaultTextStyle></p:presentation>`
}

func presentationRels(n int) string {
	var s strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&s, `<Relationship Id="rId%d" Type="`+rel+`slide" Target="slides/slide%d.xml"/>`, 10+i, i)
	}
	return `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
		`<Relationship Id="rId1" Type="` + rel + `slideMaster" Target="slideMasters/slideMaster1.xml"/>` +
		`<Relationship Id="rId2" Type="` + rel + `theme" Target="theme/theme1.xml"/>` +
		`<Relationship Id="rId3" Type="` + rel + `presProps" Target="presProps.xml"/>` +
		`<Relationship Id="rId4" Type="` + rel + `viewProps" Target="viewProps.xml"/>` +
		`<Relationship Id="rId5" Type="` + rel + `tableStyles" Target="tableStyles.xml"/>` +
		s.String() + `</Relationships>`
}

const presProps = `<p:presentationPr ` + nsA + ` ` + nsR + ` ` + nsP + `/>`

const viewProps = `<p:viewPr ` + nsA + ` ` + nsR + ` ` + nsP + `><p:normalViewPr/><p:gridSpacing cx="76200" cy="76200"/></p:viewPr>`

const tableStyles = `<a:tblStyleLst ` + nsA + ` def="{5C22544A-7EE6-4342-B048-85BDC9FD1C3A}"/>`

const emptyTree = `<p:cSld><p:spTree><p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr>` +
	`<p:grpSpPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="0" cy="0"/><a:chOff x="0" y="0"/><a:chExt cx="0" cy="0"/></a:xfrm></p:grpSpPr></p:spTree></p:cSld>`

const slideMaster = `<p:sldMaster ` + nsA + ` ` + nsR + ` ` + nsP + `>` + emptyTree +
	`<p:clrMap bg1="lt1" tx1="dk1" bg2="lt2" tx2="dk2" accent1="accent1" accent2="accent2" accent3="accent3" accent4="accent4" accent5="accent5" accent6="accent6" hlink="hlink" folHlink="folHlink"/>` +
	`<p:sldLayoutIdLst><p:sldLayoutId id="2147483649" r:id="rId1"/></p:sldLayoutIdLst>` +
	`<p:txStyles><p:titleStyle><a:lvl1pPr><a:defRPr sz="3000"><a:latin typeface="Arial"/></a:defRPr></a:lvl1pPr></p:titleStyle>` +
	`<p:bodyStyle><a:lvl1pPr><a:defRPr sz="1800"><a:latin typeface="Arial"/></a:defRPr></a:lvl1pPr></p:bodyStyle>` +
	`<p:otherStyle><a:lvl1pPr><a:defRPr sz="1800"><a:latin typeface="Arial"/></a:defRPr></a:lvl1pPr></p:otherStyle></p:txStyles></p:sldMaster>`

const masterRels = `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
	`<Relationship Id="rId1" Type="` + rel + `slideLayout" Target="../slideLayouts/slideLayout1.xml"/>` +
	`<Relationship Id="rId2" Type="` + rel + `theme" Target="../theme/theme1.xml"/></Relationships>`

var slideLayout = `<p:sldLayout ` + nsA + ` ` + nsR + ` ` + nsP + ` type="blank" preserve="1">` +
	`<p:cSld name="Blank">` + emptyTree[len(`<p:cSld>`):] + `<p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sldLayout>`

const layoutRels = `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
	`<Relationship Id="rId1" Type="` + rel + `slideMaster" Target="../slideMasters/slideMaster1.xml"/></Relationships>`

const slideRels = `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
	`<Relationship Id="rId1" Type="` + rel + `slideLayout" Target="../slideLayouts/slideLayout1.xml"/></Relationships>`

// slide wraps shapes in a slide.
func slide(shapes string) string {
	tree := strings.Replace(emptyTree, `</p:grpSpPr>`, `</p:grpSpPr>`+shapes, 1)
	return `<p:sld ` + nsA + ` ` + nsR + ` ` + nsP + `>` + tree + `<p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sld>`
}

func solid(c string) string { return `<a:solidFill><a:srgbClr val="` + c + `"/></a:solidFill>` }

var theme = `<a:theme ` + nsA + ` name="ScopeKit"><a:themeElements>` +
	`<a:clrScheme name="ScopeKit"><a:dk1><a:srgbClr val="000000"/></a:dk1><a:lt1><a:srgbClr val="FFFFFF"/></a:lt1>` +
	`<a:dk2><a:srgbClr val="1F3864"/></a:dk2><a:lt2><a:srgbClr val="E7E6E6"/></a:lt2>` +
	`<a:accent1><a:srgbClr val="2E74B5"/></a:accent1><a:accent2><a:srgbClr val="ED7D31"/></a:accent2>` +
	`<a:accent3><a:srgbClr val="A5A5A5"/></a:accent3><a:accent4><a:srgbClr val="FFC000"/></a:accent4>` +
	`<a:accent5><a:srgbClr val="5B9BD5"/></a:accent5><a:accent6><a:srgbClr val="70AD47"/></a:accent6>` +
	`<a:hlink><a:srgbClr val="0563C1"/></a:hlink><a:folHlink><a:srgbClr val="954F72"/></a:folHlink></a:clrScheme>` +
	`<a:fontScheme name="ScopeKit"><a:majorFont><a:latin typeface="Arial"/><a:ea typeface=""/><a:cs typeface=""/></a:majorFont>` +
	`<a:minorFont><a:latin typeface="Arial"/><a:ea typeface=""/><a:cs typeface=""/></a:minorFont></a:fontScheme>` +
	`<a:fmtScheme name="ScopeKit"><a:fillStyleLst>` + strings.Repeat(`<a:solidFill><a:schemeClr val="phClr"/></a:solidFill>`, 3) + `</a:fillStyleLst>` +
	`<a:lnStyleLst>` + strings.Repeat(`<a:ln w="6350"><a:solidFill><a:schemeClr val="phClr"/></a:solidFill></a:ln>`, 3) + `</a:lnStyleLst>` +
	`<a:effectStyleLst>` + strings.Repeat(`<a:effectStyle><a:effectLst/></a:effectStyle>`, 3) + `</a:effectStyleLst>` +
	`<a:bgFillStyleLst>` + strings.Repeat(`<a:solidFill><a:schemeClr val="phClr"/></a:solidFill>`, 2) + solid("FFFFFF") + `</a:bgFillStyleLst>` +
	`</a:fmtScheme></a:themeElements><a:objectDefaults/><a:extraClrSchemeLst/></a:theme>`
