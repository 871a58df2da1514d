package scoping_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
)

// docTags stands for package documents' template validator: a "DOCX" is
// a file starting with "PK"; "PK tags:a,b" uses the tags a and b, "PK
// unclosed" is a malformed template.
func docTags(_ context.Context, _ string, file []byte) ([]string, error) {
	s := string(file)
	switch {
	case !strings.HasPrefix(s, "PK"):
		return nil, errors.New("zip: not a valid zip file")
	case strings.Contains(s, "unclosed"):
		return nil, scopekit.Errorf(scopekit.EINVALID, "the loop {#phases} opened in paragraph 3 is never closed")
	}
	_, list, ok := strings.Cut(s, "tags:")
	if !ok {
		return []string{}, nil
	}
	return strings.Split(list, ","), nil
}

var docStandard = scoping.BuiltinTemplate{Name: "Standard SOW", Filename: "Standard SOW.docx", File: []byte("PK tags:project.name,phases")}

// docWorld is a service with documents configured, a clock the test moves
// and a count of the queue's notifications.
type docWorld struct {
	ctx      context.Context
	svc      *scoping.Service
	now      atomic.Int64 // Unix nanoseconds
	notified atomic.Int64
}

func newDocWorld(t *testing.T) *docWorld {
	t.Helper()
	svc, _ := acctService(t)
	w := &docWorld{ctx: context.Background(), svc: svc}
	w.now.Store(hookClock.UnixNano())
	svc.Now = func() time.Time { return time.Unix(0, w.now.Load()).UTC() }
	svc.Documents = scoping.DocumentConfig{Tags: docTags, Builtins: []scoping.BuiltinTemplate{docStandard},
		Notify: func() { w.notified.Add(1) }}
	return w
}

func (w *docWorld) advance(d time.Duration) { w.now.Add(int64(d)) }

// template creates a template with a file and returns it.
func (w *docWorld) template(t *testing.T, a *engine.Actor, name string) *engine.Record {
	t.Helper()
	rec := acctCreate(t, w.svc, a, "document-templates", attrs("name", `"`+name+`"`), nil)
	res, err := w.svc.UploadTemplateFile(w.ctx, a, rec.ID, "", "", []byte("PK "+name))
	require.NoError(t, err)
	return res.Records[0]
}

// document queues a document of type dt on project p.
func (w *docWorld) document(t *testing.T, a *engine.Actor, p *engine.Record, dt string, tmpl *engine.Record, pdf bool) *engine.Record {
	t.Helper()
	rels := map[string]engine.RelInput{"project": rel("projects", p.ID)}
	if tmpl != nil {
		rels["document-template"] = rel("document-templates", tmpl.ID)
	}
	at := attrs("document-type", `"`+dt+`"`)
	if pdf {
		at = attrs("document-type", `"`+dt+`"`, "generate-pdf", `true`)
	}
	return acctCreate(t, w.svc, a, "project-documents", at, rels)
}

// stored reads a project document from the store, internal attributes
// included.
func (w *docWorld) stored(t *testing.T, doc *engine.Record) *engine.Record {
	t.Helper()
	var rec *engine.Record
	require.NoError(t, w.svc.Store().View(w.ctx, func(tx engine.Tx) (err error) {
		rec, err = tx.Get("project-documents", doc.AccountID, doc.ID)
		return err
	}))
	return rec
}

func (w *docWorld) claim(t *testing.T, lease time.Duration) *scoping.DocumentJob {
	t.Helper()
	job, err := w.svc.ClaimDocument(w.ctx, lease)
	require.NoError(t, err)
	return job
}

// statuses returns the status changes the events recorded for doc.
func (w *docWorld) statuses(t *testing.T, doc *engine.Record) []string {
	t.Helper()
	events, err := w.svc.Events(w.ctx, "", 0)
	require.NoError(t, err)
	var out []string
	for _, e := range events {
		if e.Str("subject-id") == doc.ID && e.Str("subject-type") == "project-documents" {
			require.Equal(t, hookDocumentStatus, e.Str("event-type"))
			out = append(out, e.Str("old-status")+">"+e.Str("new-status"))
		}
	}
	return out
}

func docTemplateNamed(t *testing.T, svc *scoping.Service, a *engine.Actor, name string) *engine.Record {
	t.Helper()
	res, err := svc.List(context.Background(), a, "document-templates", engine.ListParams{Filters: map[string]string{"name": name, "active": "true,false"}}, engine.Options{})
	require.NoError(t, err)
	for _, r := range res.Records {
		if r.Str("name") == name {
			return r
		}
	}
	return nil
}

func docSHA(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Ensure every new account gets the built-in templates with their file,
// and EnsureBuiltinTemplates gives accounts the ones they lack: a deleted
// built-in comes back, an archived one stays archived and is not doubled.
func TestDocumentsBuiltinTemplates(t *testing.T) {
	w := newDocWorld(t)
	ctx, svc := w.ctx, w.svc
	_, acme := acctAccount(t, svc, "acme")
	std := docTemplateNamed(t, svc, acme, "Standard SOW")
	require.NotNil(t, std)
	require.True(t, std.Bool("builtin"))
	require.True(t, std.Active())
	require.Equal(t, "docx", std.Str("format"))
	require.Equal(t, "v2", std.Str("template-format"))
	require.Equal(t, "Standard SOW.docx", std.Str("filename"))
	require.EqualValues(t, len(docStandard.File), std.Int("size"))
	require.Equal(t, docSHA(docStandard.File), std.Str("sha256"))
	require.Equal(t, []any{"project.name", "phases"}, std.Attrs["tags"])
	f, err := svc.TemplateFile(ctx, acme, std.ID, nil)
	require.NoError(t, err)
	require.Equal(t, &scoping.File{Name: "Standard SOW.docx", ContentType: scoping.ContentTypeDOCX, Data: docStandard.File}, f)

	// an account created while no built-in existed gets them later
	svc.Documents.Builtins = nil
	require.NoError(t, svc.EnsureBuiltinTemplates(ctx), "nothing to do")
	_, globex := acctAccount(t, svc, "globex")
	require.Nil(t, docTemplateNamed(t, svc, globex, "Standard SOW"))
	short := scoping.BuiltinTemplate{Name: "Short SOW", Filename: "short.docx", File: []byte("PK tags:client.name")}
	svc.Documents.Builtins = []scoping.BuiltinTemplate{docStandard, short}

	require.NoError(t, svc.Delete(ctx, acme, "document-templates", std.ID, engine.Options{}))
	require.Nil(t, docTemplateNamed(t, svc, acme, "Standard SOW"))
	require.NoError(t, svc.EnsureBuiltinTemplates(ctx))
	back := docTemplateNamed(t, svc, acme, "Standard SOW")
	require.NotNil(t, back, "a deleted built-in comes back")
	require.True(t, back.Bool("builtin"))
	require.NotNil(t, docTemplateNamed(t, svc, acme, "Short SOW"))
	require.NotNil(t, docTemplateNamed(t, svc, globex, "Standard SOW"))
	require.NotNil(t, docTemplateNamed(t, svc, globex, "Short SOW"))

	_, err = svc.Update(ctx, acme, "document-templates", back.ID, &engine.Input{Attrs: attrs("active", `false`)}, engine.Options{})
	require.NoError(t, err)
	require.NoError(t, svc.EnsureBuiltinTemplates(ctx))
	res, err := svc.List(ctx, acme, "document-templates", engine.ListParams{Filters: map[string]string{"active": "true,false"}}, engine.Options{})
	require.NoError(t, err)
	require.Equal(t, 2, res.Total, "not doubled")
	require.False(t, docTemplateNamed(t, svc, acme, "Standard SOW").Active(), "an archived built-in stays archived")

	// a built-in the validator refuses fails the account's creation
	svc.Documents.Builtins = []scoping.BuiltinTemplate{{Name: "Broken", Filename: "b.docx", File: []byte("not a zip")}}
	err = svc.Setup(ctx, func(a *scoping.Admin) error {
		_, err := a.EnsureAccount("initech", "Initech", "USD")
		return err
	})
	require.ErrorContains(t, err, `built-in template "Broken"`)
	require.Error(t, svc.EnsureBuiltinTemplates(ctx))

	// without a validator a built-in is stored without tags
	svc.Documents.Tags = nil
	_, initech := acctAccount(t, svc, "initech")
	broken := docTemplateNamed(t, svc, initech, "Broken")
	require.NotNil(t, broken)
	require.Equal(t, []any{}, broken.Attrs["tags"])
}

// Ensure a template file is validated before anything is stored: too
// large, not a DOCX, malformed (the validator's message kept) or without
// a validator stores nothing and keeps the previous file; a valid one
// stores the file with size, sha256, tags and filename.
func TestDocumentsUploadTemplateFile(t *testing.T) {
	w := newDocWorld(t)
	ctx, svc := w.ctx, w.svc
	acct, sys := acctAccount(t, svc, "acme")
	tmpl := acctCreate(t, svc, sys, "document-templates", attrs("name", `"Our SOW"`), nil)
	require.EqualValues(t, 0, tmpl.Int("size"))
	_, err := svc.TemplateFile(ctx, sys, tmpl.ID, nil)
	acctRequireErr(t, err, scopekit.ENOTFOUND, "", "has no file yet")

	res, err := svc.UploadTemplateFile(ctx, sys, tmpl.ID, "", "", []byte("PK tags:a,b"))
	require.NoError(t, err)
	got := res.Records[0]
	require.Equal(t, "Our SOW.docx", got.Str("filename"), "named after the template")
	require.EqualValues(t, 11, got.Int("size"))
	require.Equal(t, docSHA([]byte("PK tags:a,b")), got.Str("sha256"))
	require.Equal(t, []any{"a", "b"}, got.Attrs["tags"])

	svc.Documents.MaxTemplateSize = 20
	for _, c := range []struct {
		file []byte
		code string
		want string
	}{
		{[]byte("PK " + strings.Repeat("x", 20)), scopekit.ETOOLARGE, "at most 20 bytes"},
		{[]byte("GIF89a"), scopekit.EINVALID, "the file is not a usable DOCX template: zip: not a valid zip file"},
		{[]byte("PK unclosed"), scopekit.EINVALID, "the loop {#phases} opened in paragraph 3 is never closed"},
	} {
		_, err := svc.UploadTemplateFile(ctx, sys, tmpl.ID, "new.docx", "", c.file)
		acctRequireErr(t, err, c.code, "", c.want)
	}
	svc.Documents.Tags = nil
	_, err = svc.UploadTemplateFile(ctx, sys, tmpl.ID, "", "", []byte("PK"))
	require.Equal(t, scopekit.EINTERNAL, scopekit.ErrorCode(err))
	svc.Documents.Tags = docTags
	f, err := svc.TemplateFile(ctx, sys, tmpl.ID, nil)
	require.NoError(t, err)
	require.Equal(t, "PK tags:a,b", string(f.Data), "the previous file is kept")
	require.Equal(t, "Our SOW.docx", f.Name)

	res, err = svc.UploadTemplateFile(ctx, sys, tmpl.ID, "mine.docx", "", []byte("PK"))
	require.NoError(t, err)
	require.Equal(t, "mine.docx", res.Records[0].Str("filename"))
	require.Equal(t, []any{}, res.Records[0].Attrs["tags"])
	// a filename cleared since serves the file under the template's name
	_, err = svc.Update(ctx, sys, "document-templates", tmpl.ID, &engine.Input{Attrs: attrs("filename", `null`)}, engine.Options{})
	require.NoError(t, err)
	f, err = svc.TemplateFile(ctx, sys, tmpl.ID, nil)
	require.NoError(t, err)
	require.Equal(t, "Our SOW.docx", f.Name)
	require.Equal(t, "PK", string(f.Data))

	// an archived template is not found, as by its GET (its file is read
	// with an active filter covering it); missing ones and other accounts'
	// are not found either
	_, err = svc.Update(ctx, sys, "document-templates", tmpl.ID, &engine.Input{Attrs: attrs("active", `false`)}, engine.Options{})
	require.NoError(t, err)
	_, err = svc.UploadTemplateFile(ctx, sys, tmpl.ID, "", "", []byte("PK again"))
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))
	_, err = svc.TemplateFile(ctx, sys, tmpl.ID, nil)
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))
	f, err = svc.TemplateFile(ctx, sys, tmpl.ID, map[string]string{"active": "false"})
	require.NoError(t, err)
	require.Equal(t, "PK", string(f.Data))
	_, err = svc.Update(ctx, sys, "document-templates", tmpl.ID, &engine.Input{Attrs: attrs("active", `true`)}, engine.Options{})
	require.NoError(t, err)
	_, err = svc.UploadTemplateFile(ctx, sys, tmpl.ID, "", "", []byte("PK again"))
	require.NoError(t, err)
	_, err = svc.UploadTemplateFile(ctx, sys, "999", "", "", []byte("PK"))
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))
	_, globex := acctAccount(t, svc, "globex")
	_, err = svc.UploadTemplateFile(ctx, globex, tmpl.ID, "", "", []byte("PK"))
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))
	_, err = svc.TemplateFile(ctx, globex, tmpl.ID, nil)
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))

	// documents manage uploads, documents view downloads
	ro := acctMember(t, svc, acct.ID, "rita@acme.test", "Read Only")
	_, err = svc.UploadTemplateFile(ctx, ro, tmpl.ID, "", "", []byte("PK"))
	require.Equal(t, scopekit.EFORBIDDEN, scopekit.ErrorCode(err))
	_, err = svc.TemplateFile(ctx, ro, tmpl.ID, nil)
	require.NoError(t, err)
	require.NoError(t, svc.Setup(ctx, func(a *scoping.Admin) error {
		_, err := a.EnsureRole(acct.ID, "No documents", map[string]string{"projects": "view"}, "all")
		return err
	}))
	none := acctMember(t, svc, acct.ID, "ned@acme.test", "No documents")
	_, err = svc.TemplateFile(ctx, none, tmpl.ID, nil)
	require.Equal(t, scopekit.EFORBIDDEN, scopekit.ErrorCode(err))
}

// Ensure a project document is queued (status queued, requested-by the
// actor, its event, the workers notified after the commit), that a sow
// needs an active template with a file and the workbooks take none nor a
// PDF, and that a document is a snapshot: only active changes.
func TestDocumentsCreate(t *testing.T) {
	w := newDocWorld(t)
	ctx, svc := w.ctx, w.svc
	acct, sys := acctAccount(t, svc, "acme")
	sales := acctMember(t, svc, acct.ID, "sid@acme.test", "Sales")
	p := hookProject(t, svc, sys, "Firewall")
	p2 := hookProject(t, svc, sys, "Router")
	std := docTemplateNamed(t, svc, sys, "Standard SOW")
	empty := acctCreate(t, svc, sys, "document-templates", attrs("name", `"Empty"`), nil)
	archived := w.template(t, sys, "Old")
	_, err := svc.Update(ctx, sys, "document-templates", archived.ID, &engine.Input{Attrs: attrs("active", `false`)}, engine.Options{})
	require.NoError(t, err)
	_, globex := acctAccount(t, svc, "globex")
	foreign := docTemplateNamed(t, svc, globex, "Standard SOW")

	onProject := func(tmpl *engine.Record) map[string]engine.RelInput {
		rels := map[string]engine.RelInput{"project": rel("projects", p.ID)}
		if tmpl != nil {
			rels["document-template"] = rel("document-templates", tmpl.ID)
		}
		return rels
	}
	for _, c := range []struct {
		at    []string
		tmpl  *engine.Record
		field string
		want  string
	}{
		{[]string{"document-type", `"sow"`}, nil, "/data/relationships/document-template", "a sow document needs a document-template"},
		{[]string{"document-type", `"sow"`}, empty, "/data/relationships/document-template", "has no file yet"},
		{[]string{"document-type", `"sow"`}, archived, "/data/relationships/document-template", "is archived"},
		{[]string{"document-type", `"sow"`}, foreign, "/data/relationships/document-template", "does not exist in this account"},
		{[]string{"document-type", `"pricing"`}, std, "/data/relationships/document-template", "pricing documents are built without a template"},
		{[]string{"document-type", `"breakdown"`, "generate-pdf", `true`}, nil, "/data/attributes/generate-pdf", "generate-pdf applies to sow and change_order documents only"},
		{[]string{"document-type", `"pdf"`}, nil, "/data/attributes/document-type", ""},
		{[]string{"generate-pdf", `true`}, nil, "/data/attributes/document-type", ""},
	} {
		_, err := svc.Create(ctx, sales, "project-documents", &engine.Input{Attrs: attrs(c.at...), Rels: onProject(c.tmpl)}, engine.Options{})
		acctRequireErr(t, err, scopekit.EINVALID, c.field, c.want)
	}
	_, err = svc.Create(ctx, sales, "project-documents", &engine.Input{Attrs: attrs("document-type", `"pricing"`)}, engine.Options{})
	acctRequireErr(t, err, scopekit.EINVALID, "/data/relationships/project", "")
	require.Zero(t, w.notified.Load(), "nothing queued")

	doc := w.document(t, sales, p, scoping.DocumentSOW, std, true)
	require.Equal(t, scoping.DocumentQueued, doc.Str("status"))
	require.Equal(t, sales.UserID, doc.Rel("requested-by"))
	require.True(t, doc.Bool("generate-pdf"))
	require.EqualValues(t, 1, w.notified.Load())
	require.Equal(t, []string{">queued"}, w.statuses(t, doc))
	wb := w.document(t, sales, p, scoping.DocumentPricing, nil, false)
	require.False(t, wb.Bool("generate-pdf"))

	for _, c := range []struct {
		in    *engine.Input
		field string
	}{
		{&engine.Input{Attrs: attrs("document-type", `"breakdown"`)}, "/data/attributes/document-type"},
		{&engine.Input{Attrs: attrs("generate-pdf", `false`)}, "/data/attributes/generate-pdf"},
		{&engine.Input{Rels: map[string]engine.RelInput{"project": rel("projects", p2.ID)}}, "/data/relationships/project"},
		{&engine.Input{Rels: map[string]engine.RelInput{"document-template": rel("document-templates", w.template(t, sys, "Other").ID)}}, "/data/relationships/document-template"},
	} {
		_, err := svc.Update(ctx, sales, "project-documents", doc.ID, c.in, engine.Options{})
		acctRequireErr(t, err, scopekit.EINVALID, c.field, "a document cannot change its")
	}
	res, err := svc.Update(ctx, sales, "project-documents", doc.ID, &engine.Input{Attrs: attrs("active", `false`, "document-type", `"sow"`)}, engine.Options{})
	require.NoError(t, err, "archiving is the one change")
	require.False(t, res.Records[0].Active())
	require.Equal(t, []string{">queued"}, w.statuses(t, doc), "no status change, no event")
	require.EqualValues(t, 2, w.notified.Load(), "one per queued document")

	// Read Only has documents view: it reads but queues nothing
	ro := acctMember(t, svc, acct.ID, "rita@acme.test", "Read Only")
	_, err = svc.Get(ctx, ro, "project-documents", wb.ID, engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	_, err = svc.Create(ctx, ro, "project-documents", &engine.Input{Attrs: attrs("document-type", `"pricing"`), Rels: onProject(nil)}, engine.Options{})
	require.Equal(t, scopekit.EFORBIDDEN, scopekit.ErrorCode(err))
}

// Ensure download types pair each document type with its formats and
// follow the template rules of documents.
func TestDocumentsDownloadTypes(t *testing.T) {
	w := newDocWorld(t)
	ctx, svc := w.ctx, w.svc
	_, sys := acctAccount(t, svc, "acme")
	std := docTemplateNamed(t, svc, sys, "Standard SOW")
	for _, c := range []struct {
		dt, format string
		tmpl       *engine.Record
		field      string
		want       string
	}{
		{"sow", "xlsx", std, "/data/attributes/format", "sow documents come as docx or pdf, not xlsx"},
		{"pricing", "pdf", nil, "/data/attributes/format", "pricing documents come as xlsx, not pdf"},
		{"sow", "pdf", nil, "/data/relationships/document-template", "a sow document needs a document-template"},
		{"breakdown", "xlsx", std, "/data/relationships/document-template", "built without a template"},
	} {
		rels := map[string]engine.RelInput{}
		if c.tmpl != nil {
			rels["document-template"] = rel("document-templates", c.tmpl.ID)
		}
		_, err := svc.Create(ctx, sys, "project-download-types", &engine.Input{Attrs: attrs("name", `"D"`, "document-type", `"`+c.dt+`"`, "format", `"`+c.format+`"`), Rels: rels}, engine.Options{})
		acctRequireErr(t, err, scopekit.EINVALID, c.field, c.want)
	}
	_, err := svc.Create(ctx, sys, "project-download-types", &engine.Input{Attrs: attrs("name", `"D"`, "format", `"pdf"`)}, engine.Options{})
	acctRequireErr(t, err, scopekit.EINVALID, "/data/attributes/document-type", "")
	acctCreate(t, svc, sys, "project-download-types", attrs("name", `"SOW PDF"`, "document-type", `"sow"`, "format", `"pdf"`),
		map[string]engine.RelInput{"document-template": rel("document-templates", std.ID)})
	acctCreate(t, svc, sys, "project-download-types", attrs("name", `"Pricing"`, "document-type", `"pricing"`, "format", `"xlsx"`), nil)
}

// Ensure generated files are named after the project without the
// characters file systems reject.
func TestDocumentsFilename(t *testing.T) {
	for _, c := range []struct{ project, want string }{
		{"Globex firewall refresh", "Globex firewall refresh - SOW.docx"},
		{`a/b\c:d*e?f"g<h>i|j`, "a-b-c-d-e-f-g-h-i-j - SOW.docx"},
		{"tab\there\x7f\n", "tabhere - SOW.docx"},
		{"   ", "Project - SOW.docx"},
		{"", "Project - SOW.docx"},
		{"Café ☕", "Café ☕ - SOW.docx"},
	} {
		require.Equal(t, c.want, scoping.DocumentFilename(c.project, "SOW", "docx"), c.project)
	}
	require.Equal(t, "P - Pricing.xlsx", scoping.DocumentFilename("P", "Pricing", "xlsx"))
}
