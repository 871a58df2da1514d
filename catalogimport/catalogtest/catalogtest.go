// Package catalogtest helps the tests of the catalog import: a dump of an
// account's catalog to compare before and after an import, or between
// two accounts, and the bad files (a sheet of 100 MB, a zip bomb).
package catalogtest

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/stretchr/testify/require"
)

// Types are the types a catalog import writes.
var Types = []string{views.TypePhases, views.TypeResources, views.TypeServices, views.TypeSubservices,
	views.TypeRateTables, views.TypeResourceRates, views.TypeLinesOfBusiness, views.TypeServiceCategories}

// Dump is the catalog of an account as sorted lines of text: every record
// of Types, archived ones included, with its stored attributes (computed
// ones left out) and its relationships by the name of the record they
// name, so that two accounts holding the same catalog dump alike.
func Dump(t testing.TB, svc *scoping.Service, accountID string) string {
	t.Helper()
	ctx := context.Background()
	a, err := svc.SystemActor(ctx, accountID)
	require.NoError(t, err)
	var lines []string
	names := map[string]string{}
	recs := map[string][]*engine.Record{}
	for _, typ := range Types {
		def, err := svc.ReadableType(a, typ)
		require.NoError(t, err)
		for page := 1; ; page++ {
			res, err := svc.List(ctx, a, typ, engine.ListParams{Filters: engine.AnyActive(def), PageNumber: page, PageSize: 1000}, engine.Options{})
			require.NoError(t, err)
			recs[typ] = append(recs[typ], res.Records...)
			if len(res.Records) == 0 || len(recs[typ]) >= res.Total {
				break
			}
		}
		for _, r := range recs[typ] {
			names[typ+"/"+r.ID] = r.Str(views.NameName)
		}
	}
	for _, typ := range Types {
		def, _ := svc.Schema().Lookup(typ)
		for _, r := range recs[typ] {
			var parts []string
			for _, at := range def.Attrs {
				if v, ok := engine.TextOf(r.Attrs[at.Name]); ok && v != "" && !at.Computed {
					parts = append(parts, at.Name+"="+v)
				}
			}
			for _, rd := range def.Rels {
				if id := r.Rel(rd.Name); id != "" && rd.Stored() {
					parts = append(parts, rd.Name+"="+names[rd.Type+"/"+id])
				}
			}
			slices.Sort(parts)
			lines = append(lines, typ+": "+strings.Join(parts, " "))
		}
	}
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// ReplaceEntry returns the zip data (a workbook) with the entry name
// holding content.
func ReplaceEntry(t testing.TB, data []byte, name, content string) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	require.NoError(t, err)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range zr.File {
		if f.Name != name {
			require.NoError(t, zw.Copy(f))
			continue
		}
		w, err := zw.Create(f.Name)
		require.NoError(t, err)
		_, err = io.WriteString(w, content)
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

// SheetXML is the XML of a worksheet holding rows (the XML of <row>
// elements).
func SheetXML(rows string) string {
	return `<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>` +
		rows + `</sheetData></worksheet>`
}

// HugeSheet returns the workbook with its first sheet grown to 100 MB of
// rows (a few hundred KB zipped).
func HugeSheet(t testing.TB, workbook []byte) []byte {
	t.Helper()
	row := `<row><c t="inlineStr"><is><t>padding padding padding</t></is></c></row>`
	return ReplaceEntry(t, workbook, "xl/worksheets/sheet1.xml", SheetXML(strings.Repeat(row, 100<<20/len(row))))
}

// ZipBomb returns a zip of one file, name, of size zero bytes (a
// thousandth of that zipped).
func ZipBomb(t testing.TB, name string, size int64) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create(name)
	require.NoError(t, err)
	_, err = io.Copy(w, io.LimitReader(Zeros{}, size))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return buf.Bytes()
}

// Zeros reads zero bytes without end.
type Zeros struct{}

func (Zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }
