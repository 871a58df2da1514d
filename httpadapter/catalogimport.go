package httpadapter

import (
	"net/http"
	"strconv"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/catalogimport"
	"github.com/scopekit/scopekit/jsonapi"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
)

// The catalog import (docs/import.md): the file is the body of a POST;
// the template and the export are file downloads. The routes are fixed
// paths of the token's account, as /v1/me is.

const (
	importPath   = "/v1/catalog-import"
	templatePath = "/v1/catalog-import/template"
	exportPath   = "/v1/catalog-export"
)

// fileRoutes are the fixed routes that answer a file (any Accept).
var fileRoutes = map[string]bool{templatePath: true, exportPath: true}

func (s *Server) catalogRoutes(r *router) {
	r.Handler(http.MethodPost, importPath, s.route(importPath, s.api(false, s.importCatalog)))
	r.Handler(http.MethodGet, templatePath, s.route(templatePath, s.api(false, s.catalogTemplate)))
	r.Handler(http.MethodGet, exportPath, s.route(exportPath, s.api(false, s.exportCatalog)))
}

// importCatalog serves POST /v1/catalog-import: the body is the file
// (XLSX, one CSV with ?sheet=, or a zip of CSV files); ?dry-run=true
// checks it and writes nothing. It answers 200 with the report as the
// document's meta, or 422 listing every refused cell (nothing written).
func (s *Server) importCatalog(c *call) error {
	want := catalogimport.MediaXLSX + ", " + catalogimport.MediaCSV + " or " + catalogimport.MediaZip
	mt, err := fileType(c.r, want, "the file", catalogimport.MediaXLSX, catalogimport.MediaCSV, catalogimport.MediaZip, "application/x-zip-compressed")
	if err != nil {
		return err
	}
	format, _ := catalogimport.FormatOf(mt)
	dryRun, err := c.boolParam("dry-run")
	if err != nil {
		return err
	}
	sheet, err := c.oneParam("sheet")
	if err != nil {
		return err
	}
	if sheet != "" && format != catalogimport.CSV {
		return scopekit.ParamErrorf(scopekit.EBADREQUEST, "sheet", "sheet names the sheet of a CSV body; a workbook or a zip names its own")
	}
	file, err := c.readBody(catalogimport.MaxFileBytes,
		scopekit.Errorf(scopekit.ETOOLARGE, "an import file may be at most %d bytes", catalogimport.MaxFileBytes))
	if err != nil {
		return err
	}
	rep, err := s.Svc.ImportCatalog(c.r.Context(), c.actor, catalogimport.File{Format: format, Data: file, Sheet: sheet}, dryRun)
	if rep != nil && err != nil {
		writeDoc(c.w, c.r, http.StatusUnprocessableEntity, refusedDoc(rep))
		return nil
	}
	if err != nil {
		return err
	}
	meta := reportMeta(rep)
	meta["row-errors"] = rep.Problems
	writeDoc(c.w, c.r, http.StatusOK, &jsonapi.Document{Meta: meta})
	return nil
}

// reportMeta is a report as a document's meta, without its problems.
func reportMeta(rep *catalogimport.Report) map[string]any {
	meta := map[string]any{"dry-run": rep.DryRun, "written": rep.Written, "sheets": rep.Sheets}
	if rep.More > 0 {
		meta["more-row-errors"] = rep.More
	}
	return meta
}

// refusedDoc is the 422 answer of an import that refused rows: an error
// per problem, with its sheet, row, column and cell as the error's meta.
func refusedDoc(rep *catalogimport.Report) *jsonapi.Document {
	doc := &jsonapi.Document{Meta: reportMeta(rep)}
	status := strconv.Itoa(http.StatusUnprocessableEntity)
	for _, p := range rep.Problems {
		meta := map[string]any{"sheet": p.Sheet}
		if p.Row > 0 {
			meta["row"] = p.Row
		}
		if p.Column != "" {
			meta["column"] = p.Column
		}
		if p.Cell != "" {
			meta["cell"] = p.Cell
		}
		doc.Errors = append(doc.Errors, &jsonapi.ErrorObject{Status: status, Title: http.StatusText(http.StatusUnprocessableEntity),
			Code: scopekit.EINVALID, Detail: p.String(), Meta: meta})
	}
	return doc
}

// catalogTemplate serves GET /v1/catalog-import/template: the template
// workbook (format=zip: a zip of CSV files).
func (s *Server) catalogTemplate(c *call) error {
	format, err := c.fileFormat()
	if err != nil {
		return err
	}
	data, err := catalogimport.Template(s.Svc.Schema(), format)
	if err != nil {
		return err
	}
	serveFile(c.w, &scoping.File{Name: "catalog-template" + catalogimport.Ext(format), ContentType: catalogimport.MediaType(format), Data: data})
	return nil
}

// exportCatalog serves GET /v1/catalog-export: the account's catalog in
// the import's format.
func (s *Server) exportCatalog(c *call) error {
	format, err := c.fileFormat()
	if err != nil {
		return err
	}
	data, err := s.Svc.ExportCatalog(c.r.Context(), c.actor, format)
	if err != nil {
		return err
	}
	name := "catalog-" + views.Account{Record: c.actor.Account}.Slug() + catalogimport.Ext(format)
	serveFile(c.w, &scoping.File{Name: name, ContentType: catalogimport.MediaType(format), Data: data})
	return nil
}

// fileFormat reads the format parameter of a download: xlsx (default) or
// zip.
func (c *call) fileFormat() (catalogimport.Format, error) {
	v, err := c.oneParam("format")
	switch {
	case err != nil:
		return 0, err
	case v == "" || v == "xlsx":
		return catalogimport.XLSX, nil
	case v == "zip":
		return catalogimport.ZipCSV, nil
	}
	return 0, scopekit.ParamErrorf(scopekit.EBADREQUEST, "format", "format must be xlsx or zip")
}

// oneParam returns a query parameter given at most once ("" when absent).
func (c *call) oneParam(name string) (string, error) {
	switch vals := c.q.Other[name]; len(vals) {
	case 0:
		return "", nil
	case 1:
		return vals[0], nil
	}
	return "", scopekit.ParamErrorf(scopekit.EBADREQUEST, name, "%s may be given once", name)
}

// boolParam reads a query parameter that is true or false (absent: false).
func (c *call) boolParam(name string) (bool, error) {
	v, err := c.oneParam(name)
	switch {
	case err != nil:
		return false, err
	case v == "" || v == "false":
		return false, nil
	case v == "true":
		return true, nil
	}
	return false, scopekit.ParamErrorf(scopekit.EBADREQUEST, name, "%s must be true or false", name)
}
