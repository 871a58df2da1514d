package office_test

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/scopekit/scopekit/internal/docxtest"
	"github.com/scopekit/scopekit/office"
	"github.com/scopekit/scopekit/office/officetest"
	"github.com/stretchr/testify/require"
)

// linkedPicture is a paragraph showing the picture relationship id links to.
func linkedPicture(id string) string {
	return `<w:p><w:r><w:drawing><wp:inline xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing">` +
		`<wp:extent cx="914400" cy="914400"/><wp:docPr id="1" name="p"/>` +
		`<a:graphic xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><a:graphicData uri="http://schemas.openxmlformats.org/drawingml/2006/picture">` +
		`<pic:pic xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:nvPicPr><pic:cNvPr id="1" name="p"/><pic:cNvPicPr/></pic:nvPicPr>` +
		`<pic:blipFill><a:blip r:link="` + id + `"/></pic:blipFill><pic:spPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="914400" cy="914400"/></a:xfrm>` +
		`<a:prstGeom prst="rect"/></pic:spPr></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>`
}

// Ensure neither converter fetches what a document links to: a picture
// on a web server (the server's network) or in a file (its disk) is not
// loaded, so it is not in the PDF.
func TestLinkedContentIsNotFetched(t *testing.T) {
	lo, err := office.NewLibreOffice("")
	if err != nil {
		t.Skipf("LibreOffice not installed (Debian: libreoffice-writer-nogui): %v", err)
	}
	lo.TempDir = t.TempDir()
	img := image.NewRGBA(image.Rect(0, 0, 32, 32))
	for i := range img.Pix {
		img.Pix[i] = uint8(i)
	}
	img.Set(0, 0, color.Black)
	var pic bytes.Buffer
	require.NoError(t, png.Encode(&pic, img))
	var fetched atomic.Int32
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fetched.Add(1)
		w.Header().Set("Content-Type", "image/png")
		w.Write(pic.Bytes())
	}))
	defer web.Close()
	file := filepath.Join(t.TempDir(), "secret.png")
	require.NoError(t, os.WriteFile(file, pic.Bytes(), 0o600))

	doc := docxtest.Raw(`<w:p><w:r><w:t>Linked pictures:</w:t></w:r></w:p>`+linkedPicture("rIdWeb")+linkedPicture("rIdFile"), map[string]string{
		"word/_rels/document.xml.rels": `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
			`<Relationship Id="rIdWeb" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="` + web.URL + `/linked.png" TargetMode="External"/>` +
			`<Relationship Id="rIdFile" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/image" Target="file://` + file + `" TargetMode="External"/>` +
			`</Relationships>`})
	converters := []struct {
		name string
		c    office.Converter
	}{{"cold", lo}}
	if pool, err := office.NewPool(lo); err == nil {
		pool.Listeners = 1
		defer pool.Close()
		officetest.Ready(t, pool)
		converters = append(converters, struct {
			name string
			c    office.Converter
		}{"warm", pool})
	} else {
		t.Logf("no warm converter (Debian: python3-uno): %v", err)
	}
	for _, cv := range converters {
		t.Run(cv.name, func(t *testing.T) {
			pdf, err := cv.c.ToPDF(t.Context(), doc)
			require.NoError(t, err)
			require.True(t, strings.HasPrefix(string(pdf), "%PDF"))
			require.Zero(t, fetched.Load(), "the converter fetched a linked picture from a web server")
			require.NotContains(t, string(pdf), "/Subtype/Image", "a linked picture is in the PDF")
		})
	}
}
