package main

const contentTypes = `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
	`<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>` +
	`<Default Extension="xml" ContentType="application/xml"/>` +
	`<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>` +
	`<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>` +
	`<Override PartName="/word/settings.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.settings+xml"/>` +
	`<Override PartName="/word/fontTable.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.fontTable+xml"/>` +
	`<Override PartName="/word/numbering.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml"/>` +
	`<Override PartName="/word/footer1.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.footer+xml"/>` +
	`<Override PartName="/word/footer2.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.footer+xml"/>` +
	`<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>` +
	`<Override PartName="/docProps/app.xml" ContentType="application/vnd.openxmlformats-officedocument.extended-properties+xml"/>` +
	`</Types>`

const rootRels = `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
	`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>` +
	`<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/>` +
	`<Relationship Id="rId3" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/extended-properties" Target="docProps/app.xml"/>` +
	`</Relationships>`

const documentRels = `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
	`<Relationship Id="rIdStyles" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>` +
	`<Relationship Id="rIdSettings" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/settings" Target="settings.xml"/>` +
	`<Relationship Id="rIdFonts" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/fontTable" Target="fontTable.xml"/>` +
	`<Relationship Id="rIdNumbering" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering" Target="numbering.xml"/>` +
	`<Relationship Id="rIdFooter1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/footer" Target="footer1.xml"/>` +
	`<Relationship Id="rIdFooter2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/footer" Target="footer2.xml"/>` +
	`</Relationships>`

const core = `<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" ` +
	`xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" ` +
	`xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">` +
	`<dc:title>Statement of Work</dc:title><dc:creator>ScopeKit</dc:creator>` +
	`<dcterms:created xsi:type="dcterms:W3CDTF">2026-01-01T00:00:00Z</dcterms:created></cp:coreProperties>`

const app = `<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties">` +
	`<Application>ScopeKit</Application></Properties>`

const settings = `<w:settings xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">` +
	`<w:defaultTabStop w:val="720"/><w:characterSpacingControl w:val="doNotCompress"/>` +
	`<w:compat><w:compatSetting w:name="compatibilityMode" w:uri="http://schemas.microsoft.com/office/word" w:val="15"/></w:compat>` +
	`</w:settings>`

// Arial: every Word has it, and LibreOffice renders it with the metric
// compatible Liberation Sans (Debian: fonts-liberation).
const fontTable = `<w:fonts xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">` +
	`<w:font w:name="Arial"><w:altName w:val="Liberation Sans"/><w:panose1 w:val="020B0604020202020204"/><w:charset w:val="00"/><w:family w:val="swiss"/><w:pitch w:val="variable"/></w:font>` +
	`</w:fonts>`

const (
	navy  = "1F3864"
	blue  = "2E74B5"
	ink   = "262626"
	grey  = "595959"
	light = "D9E2F3"
)

const stylesXML = `<w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">` +
	`<w:docDefaults><w:rPrDefault><w:rPr><w:rFonts w:ascii="Arial" w:hAnsi="Arial" w:eastAsia="Arial" w:cs="Arial"/>` +
	`<w:color w:val="` + ink + `"/><w:sz w:val="21"/><w:szCs w:val="21"/><w:lang w:val="en-US"/></w:rPr></w:rPrDefault>` +
	`<w:pPrDefault><w:pPr><w:widowControl/><w:spacing w:after="140" w:line="276" w:lineRule="auto"/></w:pPr></w:pPrDefault></w:docDefaults>` +

	`<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/><w:qFormat/></w:style>` +

	`<w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/><w:basedOn w:val="Normal"/><w:next w:val="Normal"/><w:qFormat/>` +
	`<w:pPr><w:spacing w:after="240"/></w:pPr><w:rPr><w:b/><w:color w:val="` + navy + `"/><w:sz w:val="64"/><w:szCs w:val="64"/></w:rPr></w:style>` +

	`<w:style w:type="paragraph" w:styleId="Subtitle"><w:name w:val="Subtitle"/><w:basedOn w:val="Normal"/><w:next w:val="Normal"/><w:qFormat/>` +
	`<w:pPr><w:spacing w:after="480"/></w:pPr><w:rPr><w:color w:val="` + blue + `"/><w:sz w:val="36"/><w:szCs w:val="36"/></w:rPr></w:style>` +

	`<w:style w:type="paragraph" w:customStyle="1" w:styleId="CoverBrand"><w:name w:val="Cover Brand"/><w:basedOn w:val="Normal"/>` +
	`<w:pPr><w:pBdr><w:left w:val="single" w:sz="36" w:space="8" w:color="` + blue + `"/></w:pBdr><w:ind w:left="170"/></w:pPr>` +
	`<w:rPr><w:b/><w:caps/><w:color w:val="` + navy + `"/><w:spacing w:val="20"/><w:sz w:val="20"/><w:szCs w:val="20"/></w:rPr></w:style>` +

	`<w:style w:type="paragraph" w:customStyle="1" w:styleId="SignatureLine"><w:name w:val="Signature Line"/><w:basedOn w:val="TableText"/>` +
	`<w:pPr><w:pBdr><w:top w:val="single" w:sz="4" w:space="2" w:color="7F7F7F"/></w:pBdr><w:ind w:right="340"/></w:pPr>` +
	`<w:rPr><w:color w:val="` + grey + `"/><w:sz w:val="16"/><w:szCs w:val="16"/></w:rPr></w:style>` +

	`<w:style w:type="paragraph" w:customStyle="1" w:styleId="CoverSpacer"><w:name w:val="Cover Spacer"/><w:basedOn w:val="Normal"/>` +
	`<w:pPr><w:spacing w:before="2400" w:after="0"/></w:pPr></w:style>` +

	`<w:style w:type="paragraph" w:customStyle="1" w:styleId="CoverRule"><w:name w:val="Cover Rule"/><w:basedOn w:val="Normal"/>` +
	`<w:pPr><w:pBdr><w:top w:val="single" w:sz="18" w:space="1" w:color="` + navy + `"/></w:pBdr><w:spacing w:after="360"/></w:pPr></w:style>` +

	`<w:style w:type="paragraph" w:customStyle="1" w:styleId="CoverLabel"><w:name w:val="Cover Label"/><w:basedOn w:val="Normal"/>` +
	`<w:pPr><w:keepNext/><w:spacing w:before="120" w:after="0"/></w:pPr><w:rPr><w:caps/><w:color w:val="` + grey + `"/><w:spacing w:val="10"/><w:sz w:val="17"/><w:szCs w:val="17"/></w:rPr></w:style>` +

	`<w:style w:type="paragraph" w:customStyle="1" w:styleId="CoverValue"><w:name w:val="Cover Value"/><w:basedOn w:val="Normal"/>` +
	`<w:pPr><w:spacing w:after="120"/></w:pPr><w:rPr><w:sz w:val="26"/><w:szCs w:val="26"/></w:rPr></w:style>` +

	`<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:basedOn w:val="Normal"/><w:next w:val="Normal"/><w:qFormat/>` +
	`<w:pPr><w:keepNext/><w:keepLines/><w:numPr><w:numId w:val="1"/></w:numPr><w:pBdr><w:bottom w:val="single" w:sz="6" w:space="4" w:color="` + light + `"/></w:pBdr>` +
	`<w:tabs><w:tab w:val="left" w:pos="567"/></w:tabs><w:spacing w:before="480" w:after="160"/><w:ind w:left="0" w:firstLine="0"/><w:outlineLvl w:val="0"/></w:pPr>` +
	`<w:rPr><w:b/><w:color w:val="` + navy + `"/><w:sz w:val="32"/><w:szCs w:val="32"/></w:rPr></w:style>` +

	`<w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/><w:basedOn w:val="Normal"/><w:next w:val="Normal"/><w:qFormat/>` +
	`<w:pPr><w:keepNext/><w:keepLines/><w:numPr><w:ilvl w:val="1"/><w:numId w:val="1"/></w:numPr>` +
	`<w:tabs><w:tab w:val="left" w:pos="567"/></w:tabs><w:spacing w:before="300" w:after="100"/><w:ind w:left="0" w:firstLine="0"/><w:outlineLvl w:val="1"/></w:pPr>` +
	`<w:rPr><w:b/><w:color w:val="` + blue + `"/><w:sz w:val="25"/><w:szCs w:val="25"/></w:rPr></w:style>` +

	`<w:style w:type="paragraph" w:customStyle="1" w:styleId="Label"><w:name w:val="Label"/><w:basedOn w:val="Normal"/><w:next w:val="ListBullet"/>` +
	`<w:pPr><w:keepNext/><w:spacing w:before="200" w:after="80"/></w:pPr><w:rPr><w:b/><w:color w:val="` + navy + `"/></w:rPr></w:style>` +

	`<w:style w:type="paragraph" w:styleId="ListBullet"><w:name w:val="List Bullet"/><w:basedOn w:val="Normal"/><w:qFormat/>` +
	`<w:pPr><w:numPr><w:numId w:val="2"/></w:numPr><w:spacing w:after="80"/><w:ind w:left="357" w:hanging="357"/></w:pPr></w:style>` +

	`<w:style w:type="paragraph" w:customStyle="1" w:styleId="Note"><w:name w:val="Note"/><w:basedOn w:val="Normal"/>` +
	`<w:pPr><w:spacing w:before="120"/></w:pPr><w:rPr><w:i/><w:color w:val="` + grey + `"/><w:sz w:val="19"/><w:szCs w:val="19"/></w:rPr></w:style>` +

	`<w:style w:type="paragraph" w:customStyle="1" w:styleId="TableText"><w:name w:val="Table Text"/><w:basedOn w:val="Normal"/>` +
	`<w:pPr><w:spacing w:before="40" w:after="40" w:line="240" w:lineRule="auto"/></w:pPr><w:rPr><w:sz w:val="19"/><w:szCs w:val="19"/></w:rPr></w:style>` +

	`<w:style w:type="paragraph" w:customStyle="1" w:styleId="TableHeading"><w:name w:val="Table Heading"/><w:basedOn w:val="TableText"/>` +
	`<w:pPr><w:keepNext/></w:pPr><w:rPr><w:b/><w:color w:val="FFFFFF"/></w:rPr></w:style>` +

	`<w:style w:type="paragraph" w:customStyle="1" w:styleId="TableSubText"><w:name w:val="Table Sub Text"/><w:basedOn w:val="TableText"/>` +
	`<w:rPr><w:color w:val="` + grey + `"/><w:sz w:val="18"/><w:szCs w:val="18"/></w:rPr></w:style>` +

	`<w:style w:type="paragraph" w:customStyle="1" w:styleId="TableTotal"><w:name w:val="Table Total"/><w:basedOn w:val="TableText"/>` +
	`<w:rPr><w:b/><w:color w:val="` + navy + `"/></w:rPr></w:style>` +

	`<w:style w:type="paragraph" w:styleId="Footer"><w:name w:val="footer"/><w:basedOn w:val="Normal"/>` +
	`<w:pPr><w:spacing w:after="0"/></w:pPr><w:rPr><w:color w:val="` + grey + `"/><w:sz w:val="16"/><w:szCs w:val="16"/></w:rPr></w:style>` +

	`<w:style w:type="table" w:default="1" w:styleId="TableNormal"><w:name w:val="Normal Table"/><w:uiPriority w:val="99"/><w:semiHidden/>` +
	`<w:tblPr><w:tblInd w:w="0" w:type="dxa"/><w:tblCellMar><w:top w:w="0" w:type="dxa"/><w:left w:w="108" w:type="dxa"/>` +
	`<w:bottom w:w="0" w:type="dxa"/><w:right w:w="108" w:type="dxa"/></w:tblCellMar></w:tblPr></w:style>` +

	`<w:style w:type="table" w:customStyle="1" w:styleId="ScopeKitTable"><w:name w:val="ScopeKit Table"/><w:basedOn w:val="TableNormal"/>` +
	`<w:pPr><w:spacing w:after="0"/></w:pPr>` +
	`<w:tblPr><w:tblStyleRowBandSize w:val="1"/><w:tblBorders><w:bottom w:val="single" w:sz="4" w:space="0" w:color="BFBFBF"/>` +
	`<w:insideH w:val="single" w:sz="4" w:space="0" w:color="E7E6E6"/></w:tblBorders>` +
	`<w:tblCellMar><w:top w:w="57" w:type="dxa"/><w:left w:w="113" w:type="dxa"/><w:bottom w:w="57" w:type="dxa"/><w:right w:w="113" w:type="dxa"/></w:tblCellMar></w:tblPr>` +
	`<w:tblStylePr w:type="firstRow"><w:rPr><w:b/><w:color w:val="FFFFFF"/></w:rPr><w:tcPr><w:shd w:val="clear" w:color="auto" w:fill="` + navy + `"/></w:tcPr></w:tblStylePr>` +
	`<w:tblStylePr w:type="band2Horz"><w:tcPr><w:shd w:val="clear" w:color="auto" w:fill="F5F7FB"/></w:tcPr></w:tblStylePr>` +
	`</w:style>` +
	`</w:styles>`

// numbering numbers the headings (1., 1.1: a contract's sections are
// referred to by number, and left-out sections renumber the rest) and
// bullets the lists.
const numbering = `<w:numbering xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">` +
	`<w:abstractNum w:abstractNumId="0"><w:multiLevelType w:val="multilevel"/>` +
	`<w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:pStyle w:val="Heading1"/><w:lvlText w:val="%1."/><w:lvlJc w:val="left"/>` +
	`<w:pPr><w:tabs><w:tab w:val="num" w:pos="567"/></w:tabs><w:ind w:left="0" w:firstLine="0"/></w:pPr></w:lvl>` +
	`<w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:pStyle w:val="Heading2"/><w:lvlText w:val="%1.%2"/><w:lvlJc w:val="left"/>` +
	`<w:pPr><w:tabs><w:tab w:val="num" w:pos="567"/></w:tabs><w:ind w:left="0" w:firstLine="0"/></w:pPr></w:lvl>` +
	`</w:abstractNum>` +
	`<w:abstractNum w:abstractNumId="1"><w:multiLevelType w:val="singleLevel"/>` +
	`<w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="bullet"/><w:lvlText w:val="•"/><w:lvlJc w:val="left"/>` +
	`<w:pPr><w:ind w:left="357" w:hanging="357"/></w:pPr><w:rPr><w:rFonts w:ascii="Arial" w:hAnsi="Arial"/><w:color w:val="` + blue + `"/></w:rPr></w:lvl>` +
	`</w:abstractNum>` +
	`<w:num w:numId="1"><w:abstractNumId w:val="0"/></w:num>` +
	`<w:num w:numId="2"><w:abstractNumId w:val="1"/></w:num>` +
	`</w:numbering>`
