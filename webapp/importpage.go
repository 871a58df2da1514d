package webapp

import (
	"bytes"
	"mime"
	"net/http"
	"path"
	"sort"
	"strings"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/catalogimport"
	"github.com/scopekit/scopekit/scoping/views"
)

// The catalog import as a page (docs/import.md): a file is checked (a
// dry run: every refused cell by sheet, row and column, nothing written)
// and then imported; the template and the export are downloads. The same
// use case as POST /v1/catalog-import.

func (w *Workspace) importRoutes(m *http.ServeMux) {
	m.HandleFunc("GET /app/{slug}/settings/import", w.page(w.importPage))
	m.HandleFunc("POST /app/{slug}/settings/import", w.upload(w.importFile))
	m.HandleFunc("GET /app/{slug}/settings/import/template", w.page(w.importTemplate))
	m.HandleFunc("GET /app/{slug}/settings/export", w.page(w.exportCatalog))
}

type importPage struct {
	frame
	CanImport bool
	Sheets    []string
	Sheet     string
	File      string
	Report    *importReport
}

// importReport is what a check or an import did, for the page.
type importReport struct {
	DryRun, Written bool
	Kinds           []importCounts
	Problems        []catalogimport.Problem
	More            int
}

type importCounts struct {
	Kind string
	catalogimport.Counts
}

func (w *Workspace) importPage(c *call) error {
	return w.showImport(c, http.StatusOK, nil)
}

func (w *Workspace) showImport(c *call, status int, rep *importReport) error {
	s, err := w.pageOf(c, "import")
	if err != nil {
		return err
	}
	pg := &importPage{frame: w.frameOf(c, s, s.Title), CanImport: c.canManage("catalog"), Sheets: catalogimport.SheetTitles(),
		Report: rep, File: c.fileName}
	pg.Sheet, _ = c.value("sheet")
	w.render(c.rw, status, "import", "layout", pg)
	return nil
}

// importFile checks (mode=check) or imports (mode=import) the file.
func (w *Workspace) importFile(c *call) error {
	mode, err := c.value("mode")
	if err != nil {
		return err
	}
	if mode != "check" && mode != "import" {
		return scopekit.FieldErrorf(scopekit.EBADREQUEST, "mode", "The form must say whether to check or to import.")
	}
	if len(c.file) == 0 {
		return w.importRefused(c, scopekit.FieldErrorf(scopekit.EINVALID, "file", "Choose a file: a workbook (.xlsx), a CSV file or a zip of CSV files."))
	}
	if len(c.file) > catalogimport.MaxFileBytes {
		return scopekit.Errorf(scopekit.ETOOLARGE, "An import file may have at most %d MB.", catalogimport.MaxFileBytes>>20)
	}
	f := catalogimport.File{Format: importFormat(c.fileName, c.file), Data: c.file}
	if f.Format == catalogimport.CSV {
		if f.Sheet, err = c.value("sheet"); err != nil {
			return err
		}
		if f.Sheet == "" { // a CSV file named after its sheet
			f.Sheet = strings.TrimSuffix(path.Base(c.fileName), path.Ext(c.fileName))
		}
	}
	rep, err := w.svc.ImportCatalog(c.ctx(), c.actor, f, mode == "check")
	if rep == nil && scopekit.ErrorCode(err) == scopekit.EINVALID {
		return w.importRefused(c, err)
	}
	if rep == nil && err != nil {
		return err
	}
	ir := &importReport{DryRun: rep.DryRun, Written: rep.Written, Problems: rep.Problems, More: rep.More}
	for _, k := range sortedKinds(rep.Sheets) {
		ir.Kinds = append(ir.Kinds, importCounts{Kind: label(strings.ReplaceAll(k, "-", " ")), Counts: *rep.Sheets[k]})
	}
	status := http.StatusOK
	if len(rep.Problems) > 0 {
		status = http.StatusUnprocessableEntity
	}
	return w.showImport(c, status, ir)
}

// importRefused shows the page with a problem of the file as a whole.
func (w *Workspace) importRefused(c *call, err error) error {
	status, msgs := w.describe(err)
	s, perr := w.pageOf(c, "import")
	if perr != nil {
		return perr
	}
	ip := &importPage{frame: w.frameOf(c, s, s.Title), CanImport: c.canManage("catalog"), Sheets: catalogimport.SheetTitles(), File: c.fileName}
	ip.L.Errors = msgs
	w.render(c.rw, status, "import", "layout", ip)
	return nil
}

func sortedKinds(m map[string]*catalogimport.Counts) []string {
	order := map[string]int{}
	for i, k := range []string{views.TypePhases, views.TypeResources, views.TypeLinesOfBusiness, views.TypeServiceCategories,
		views.TypeServices, views.TypeSubservices, views.TypeRateTables, "rates"} {
		order[k] = i + 1
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		oi, oj := order[keys[i]], order[keys[j]]
		if oi == 0 || oj == 0 || oi == oj {
			return keys[i] < keys[j]
		}
		return oi < oj
	})
	return keys
}

// importFormat is the format of an uploaded file: by its name's
// extension, else by its content (a zip holding a workbook's part is a
// workbook, another zip holds CSV files, anything else is CSV).
func importFormat(name string, data []byte) catalogimport.Format {
	switch strings.ToLower(path.Ext(name)) {
	case ".xlsx":
		return catalogimport.XLSX
	case ".zip":
		return catalogimport.ZipCSV
	case ".csv":
		return catalogimport.CSV
	}
	if bytes.HasPrefix(data, []byte("PK\x03\x04")) {
		if bytes.Contains(data, []byte("xl/workbook.xml")) {
			return catalogimport.XLSX
		}
		return catalogimport.ZipCSV
	}
	return catalogimport.CSV
}

// importTemplate downloads the import's template (format=zip: CSV files).
func (w *Workspace) importTemplate(c *call) error {
	if _, err := w.pageOf(c, "import"); err != nil {
		return err
	}
	format := fileFormat(c)
	data, err := catalogimport.Template(w.svc.Schema(), format)
	if err != nil {
		return err
	}
	sendFile(c, "catalog-template"+catalogimport.Ext(format), catalogimport.MediaType(format), data)
	return nil
}

// exportCatalog downloads the account's catalog in the import's format.
func (w *Workspace) exportCatalog(c *call) error {
	format := fileFormat(c)
	data, err := w.svc.ExportCatalog(c.ctx(), c.actor, format)
	if err != nil {
		return err
	}
	sendFile(c, "catalog-"+c.slug+catalogimport.Ext(format), catalogimport.MediaType(format), data)
	return nil
}

func fileFormat(c *call) catalogimport.Format {
	if c.r.URL.Query().Get("format") == "zip" {
		return catalogimport.ZipCSV
	}
	return catalogimport.XLSX
}

// sendFile answers a download.
func sendFile(c *call, name, contentType string, data []byte) {
	h := c.rw.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": name}))
	h.Set("Cache-Control", "private, no-store")
	_, _ = c.rw.Write(data)
}
