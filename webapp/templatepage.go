package webapp

import (
	"errors"
	"mime"
	"net/http"
	"path"
	"strings"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
)

// Document templates (docs/templates.md): a template is created with its
// file (DOCX, PPTX or XLSX), checked at once; its page shows the check's
// problems one a row (the tag, where it is, the text around it, the
// suggestion), its tags, a download, a new file, and a preview filled
// from a project the person picks, as a PDF in the page. The use cases
// are the API's: the create, PUT .../file (UploadTemplateFile), GET
// .../file, and PreviewTemplate.

func (w *Workspace) templateRoutes(m *http.ServeMux) {
	m.HandleFunc("GET /app/{slug}/settings/templates/new", w.page(w.newTemplate))
	m.HandleFunc("POST /app/{slug}/settings/templates/new", w.upload(w.createTemplate))
	m.HandleFunc("POST /app/{slug}/settings/templates/{id}/file", w.upload(w.uploadTemplate))
	m.HandleFunc("GET /app/{slug}/settings/templates/{id}/download", w.page(w.downloadTemplate))
	m.HandleFunc("GET /app/{slug}/settings/templates/{id}/preview", w.page(w.previewTemplate))
}

// templateFormats are the template formats by file extension.
var templateFormats = map[string]string{".docx": "docx", ".pptx": "pptx", ".xlsx": "xlsx"}

// templatePanel is a template's part of its page.
type templatePanel struct {
	HasFile   bool
	Filename  string
	Tags      []string
	Problems  []scoping.TemplateProblem
	Refused   bool // the problems are those of a file just refused (not stored)
	CanManage bool
	Upload    string
	Download  string
	Projects  []option
	Project   string
	Preview   string // the preview's address, when a project was picked
	PreviewOf string
}

func (w *Workspace) templatePanel(c *call, rec *engine.Record) (*templatePanel, error) {
	t := views.DocumentTemplate{Record: rec}
	base := c.url("/settings/templates/" + rec.ID)
	p := &templatePanel{HasFile: t.Size() > 0, Filename: t.Filename(), Tags: t.Tags(), CanManage: c.canManage("documents"),
		Upload: base + "/file", Download: base + "/download"}
	def, _ := w.svc.Schema().Lookup(views.TypeDocumentTemplates)
	if len(t.Problems()) > 0 {
		var err error
		if p.Problems, err = w.svc.TemplateProblems(c.ctx(), c.actor, rec.ID, engine.AnyActive(def)); err != nil {
			return nil, err
		}
	}
	if !p.HasFile || !p.CanManage || !c.actor.Can("projects", false) {
		return p, nil
	}
	res, err := w.svc.List(c.ctx(), c.actor, views.TypeProjects, engine.ListParams{PageSize: 200, PageNumber: 1,
		Sort: []engine.SortSpec{{Field: views.NameUpdatedAt, Desc: true}}}, engine.Options{})
	if err != nil {
		return nil, err
	}
	p.Project = c.r.URL.Query().Get("project")
	for _, r := range res.Records {
		p.Projects = append(p.Projects, option{r.ID, views.Project{Record: r}.ProjectName()})
		if r.ID == p.Project {
			p.PreviewOf = views.Project{Record: r}.ProjectName()
		}
	}
	if p.PreviewOf != "" {
		p.Preview = base + "/preview?project=" + p.Project
		// the preview is a frame of this page, from this workspace only
		c.rw.Header().Set("Content-Security-Policy", w.csp("frame-src 'self'; "))
	}
	return p, nil
}

// newTemplate is the form of a new template, with its file.
func (w *Workspace) newTemplate(c *call) error {
	return w.showNewTemplate(c, http.StatusOK, nil, nil)
}

func (w *Workspace) showNewTemplate(c *call, status int, errs []fieldError, refused []scoping.TemplateProblem) error {
	s, def, err := w.templates(c)
	if err != nil {
		return err
	}
	if err := c.actor.RequireWrite(def); err != nil {
		return err
	}
	var posted map[string][]string
	if c.form != nil {
		posted = c.form
	}
	f, err := w.newFormOf(c, s, def, "", posted, errs, "f-", &optionSets{w: w})
	if err != nil {
		return err
	}
	f.Action, f.Multipart = c.url("/settings/templates/new"), true
	f.File = &fileField{Label: "File", Help: "A DOCX, PPTX or XLSX file of at most 20 MB, with tags such as {project.project_name}.",
		Accept: ".docx,.pptx,.xlsx"}
	for _, e := range errs {
		if e.Field == "file" {
			f.File.Errors = append(f.File.Errors, e.Message)
		}
	}
	f.Errors = looseOf(f, errs)
	pg := &newPage{frame: w.frameOf(c, s, "New template"), Form: f, Refused: refused}
	w.render(c.rw, status, "newrecord", "layout", pg)
	return nil
}

// templates is the templates' section and type, read access checked.
func (w *Workspace) templates(c *call) (*section, *engine.TypeDef, error) {
	s := sectionByKey["templates"]
	def, err := w.svc.ReadableType(c.actor, s.Type)
	return s, def, err
}

// looseOf are the errors of a form that no field of it shows.
func looseOf(f *recordForm, errs []fieldError) []fieldError {
	var out []fieldError
	for _, e := range loose(f.Fields, errs) {
		if e.Field != "file" || f.File == nil {
			out = append(out, e)
		}
	}
	return out
}

// createTemplate creates a template and stores its file; a file refused
// leaves no template behind.
func (w *Workspace) createTemplate(c *call) error {
	s, def, err := w.templates(c)
	if err != nil {
		return err
	}
	in, err := c.recordInput(s, def, true)
	if err != nil {
		return err
	}
	format := templateFormats[strings.ToLower(path.Ext(c.fileName))]
	if v, _ := c.value(views.NameFormat); v == "" && format != "" { // the format, from the file's name
		in.Attrs[views.NameFormat] = []byte(`"` + format + `"`)
	}
	if err := c.actor.RequireWrite(def); err != nil {
		return err
	}
	if len(c.file) == 0 {
		return w.showNewTemplate(c, http.StatusUnprocessableEntity,
			[]fieldError{{Field: "file", Message: "Choose the template's file."}}, nil)
	}
	if err := c.claimOnce(); err != nil {
		return err
	}
	res, err := w.svc.Create(c.ctx(), c.actor, s.Type, in, engine.Options{})
	if refused(err) {
		status, errs := w.describe(err)
		return w.showNewTemplate(c, status, errs, nil)
	}
	if err != nil {
		return err
	}
	id := res.Records[0].ID
	_, err = w.svc.UploadTemplateFile(c.ctx(), c.actor, id, uploadName(c.fileName), "", c.file)
	if err != nil {
		// the template goes with its file: a refused file leaves none
		if derr := w.svc.Delete(c.ctx(), c.actor, s.Type, id, engine.Options{}); derr != nil {
			w.log.Error("workspace: a template whose file was refused was not removed", "template", id, "err", derr)
		}
		status, errs, problems := w.fileRefusal(err)
		if status == 0 {
			return err
		}
		return w.showNewTemplate(c, status, errs, problems)
	}
	return c.redirect(c.url("/settings/templates/"+id) + "?done=created")
}

// fileRefusal is a refused upload as a form shows it: its problems when
// the check found some, else the error beside the file; status 0 for an
// error that is no refusal of the file.
func (w *Workspace) fileRefusal(err error) (int, []fieldError, []scoping.TemplateProblem) {
	var le *scoping.LintError
	if errors.As(err, &le) {
		return http.StatusUnprocessableEntity, []fieldError{{Field: "file", Message: plural(len(le.Problems), "problem") +
			" in the file's tags (below): fix them, or make the template lenient to store it with them."}}, le.Problems
	}
	switch code := scopekit.ErrorCode(err); code {
	case scopekit.EINVALID, scopekit.ETOOLARGE, scopekit.EUNSUPPORTEDMEDIA:
		status, errs := w.describe(err)
		for i := range errs {
			if errs[i].Field == "" || errs[i].Field == views.NameFilename {
				errs[i].Field = "file"
			}
		}
		return status, errs, nil
	}
	return 0, nil, nil
}

// uploadName is the name of an uploaded file a template keeps: its base
// name, without what a file name should not hold.
func uploadName(name string) string {
	name = path.Base(strings.ReplaceAll(name, "\\", "/"))
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || strings.ContainsRune(`"/\`, r) {
			return -1
		}
		return r
	}, name)
	if name == "." || name == "/" {
		return ""
	}
	return name
}

// uploadTemplate replaces a template's file.
func (w *Workspace) uploadTemplate(c *call) error {
	s, def, err := w.templates(c)
	if err != nil {
		return err
	}
	id := c.r.PathValue("id")
	if len(c.file) == 0 {
		err = scopekit.FieldErrorf(scopekit.EINVALID, "file", "Choose the template's file.")
	} else {
		_, err = w.svc.UploadTemplateFile(c.ctx(), c.actor, id, uploadName(c.fileName), "", c.file)
	}
	if err == nil {
		return c.redirect(c.url("/settings/templates/"+id) + "?done=uploaded")
	}
	status, errs, problems := w.fileRefusal(err)
	if status == 0 {
		return err
	}
	rec, gerr := w.record(c, s, def)
	if gerr != nil {
		return gerr
	}
	pg, perr := w.recordPageOf(c, s, def, rec, nil, nil)
	if perr != nil {
		return perr
	}
	pg.L.Errors = errs
	if pg.P.Template != nil && problems != nil {
		pg.P.Template.Problems, pg.P.Template.Refused = problems, true
	}
	w.render(c.rw, status, "record", "layout", pg)
	return nil
}

// downloadTemplate serves a template's file (archived ones too).
func (w *Workspace) downloadTemplate(c *call) error {
	def, _ := w.svc.Schema().Lookup(views.TypeDocumentTemplates)
	f, err := w.svc.TemplateFile(c.ctx(), c.actor, c.r.PathValue("id"), engine.AnyActive(def))
	if err != nil {
		return err
	}
	sendFile(c, f.Name, f.ContentType, f.Data)
	return nil
}

// previewTemplate serves the PDF of a template filled from a project, to
// be shown in a frame of the template's page; it counts as a document
// generation of the account (the same throttle).
func (w *Workspace) previewTemplate(c *call) error {
	h := c.rw.Header() // a frame of the workspace's own pages, errors included
	h.Set("X-Frame-Options", "SAMEORIGIN")
	h.Set("Content-Security-Policy", strings.Replace(w.csp(""), "frame-ancestors 'none'", "frame-ancestors 'self'", 1))
	if err := w.admitGeneration(c); err != nil {
		return err
	}
	f, err := w.svc.PreviewTemplate(c.ctx(), c.actor, c.r.PathValue("id"), c.r.URL.Query().Get("project"))
	if err != nil {
		return err
	}
	h.Set("Content-Type", f.ContentType)
	h.Set("Content-Disposition", mime.FormatMediaType("inline", map[string]string{"filename": f.Name}))
	h.Set("Cache-Control", "private, no-store")
	_, _ = c.rw.Write(f.Data)
	return nil
}
