package scoping_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/stretchr/testify/require"
)

// docLint stands for package documents' lint: "PK bad:x" has the unknown
// path x, found in paragraph 2, which begins "Client: {x}".
func docLint(_ context.Context, _ string, file []byte) ([]scoping.TemplateProblem, error) {
	_, bad, ok := strings.Cut(string(file), "bad:")
	if !ok {
		return nil, nil
	}
	return []scoping.TemplateProblem{{Tag: "{" + bad + "}", Path: bad, Where: "paragraph 2", Context: "Client: {" + bad + "}",
		Suggestion: "client_name", Message: "unknown path " + bad + " in paragraph 2 (“Client: {" + bad + "}”): did you mean client_name?"}}, nil
}

// Ensure a strict template with problems is refused with every problem's
// parts (the message the API answers unchanged), a lenient one keeps
// them, and they can be read again from its file.
func TestDocumentsTemplateProblems(t *testing.T) {
	w := newDocWorld(t)
	ctx, svc := w.ctx, w.svc
	svc.Documents.Lint = docLint
	_, sys := acctAccount(t, svc, "acme")
	strict := acctCreate(t, svc, sys, "document-templates", attrs("name", `"Strict"`), nil)
	_, err := svc.UploadTemplateFile(ctx, sys, strict.ID, "", "", []byte("PK bad:client_nme"))
	acctRequireErr(t, err, scopekit.EINVALID, "file", "unknown path client_nme in paragraph 2 (“Client: {client_nme}”)")
	var le *scoping.LintError
	require.True(t, errors.As(err, &le))
	require.Equal(t, "Client: {client_nme}", le.Problems[0].Context)
	require.Equal(t, "client_name", le.Problems[0].Suggestion)

	lenient := acctCreate(t, svc, sys, "document-templates", attrs("name", `"Lenient"`, "lenient", "true"), nil)
	res, err := svc.UploadTemplateFile(ctx, sys, lenient.ID, "", "", []byte("PK bad:client_nme"))
	require.NoError(t, err)
	require.Equal(t, []string{le.Problems[0].Message}, res.Records[0].Strings(views.NameProblems))
	problems, err := svc.TemplateProblems(ctx, sys, lenient.ID, nil)
	require.NoError(t, err)
	require.Equal(t, le.Problems, problems)
	_, err = svc.TemplateProblems(ctx, sys, strict.ID, nil)
	acctRequireErr(t, err, scopekit.ENOTFOUND, "", "has no file yet")
}

// Ensure a preview fills the template from the project through the
// previewer and stores nothing: no document, no event; it needs
// documents manage and sees only what the actor sees.
func TestDocumentsPreviewTemplate(t *testing.T) {
	w := newDocWorld(t)
	ctx, svc := w.ctx, w.svc
	acct, sys := acctAccount(t, svc, "acme")
	p := hookProject(t, svc, sys, "Firewall")
	tmpl := w.template(t, sys, "Ours")
	_, err := svc.PreviewTemplate(ctx, sys, tmpl.ID, p.ID)
	acctRequireErr(t, err, scopekit.ECONFLICT, "", "does not preview")

	var got struct{ project, format, file string }
	svc.Documents.Preview = func(_ context.Context, snap *views.Snapshot, format string, file []byte) ([]byte, error) {
		got.project, got.format, got.file = snap.Project.ProjectName(), format, string(file)
		return []byte("%PDF-1.7"), nil
	}
	f, err := svc.PreviewTemplate(ctx, sys, tmpl.ID, p.ID)
	require.NoError(t, err)
	require.Equal(t, "%PDF-1.7", string(f.Data))
	require.Equal(t, "application/pdf", f.ContentType)
	require.Equal(t, "Firewall - preview.pdf", f.Name)
	require.Equal(t, struct{ project, format, file string }{"Firewall", "docx", "PK Ours"}, got)
	docs, err := svc.List(ctx, sys, "project-documents", engine.ListParams{PageSize: 10, PageNumber: 1}, engine.Options{})
	require.NoError(t, err)
	require.Zero(t, docs.Total, "a preview queues no document")
	events, err := svc.Events(ctx, "", 0)
	require.NoError(t, err)
	require.Empty(t, events)

	ro := acctMember(t, svc, acct.ID, "ron@acme.test", "Read Only")
	_, err = svc.PreviewTemplate(ctx, ro, tmpl.ID, p.ID)
	acctRequireErr(t, err, scopekit.EFORBIDDEN, "", "")
	_, globex := acctAccount(t, svc, "globex")
	gp := hookProject(t, svc, globex, "Theirs")
	if gp.ID != p.ID {
		_, err = svc.PreviewTemplate(ctx, sys, tmpl.ID, gp.ID)
		acctRequireErr(t, err, scopekit.ENOTFOUND, "", "")
	}
	svc.Documents.Preview = func(context.Context, *views.Snapshot, string, []byte) ([]byte, error) {
		return nil, scopekit.Errorf(scopekit.EINVALID, "the template could not be filled: x")
	}
	_, err = svc.PreviewTemplate(ctx, sys, tmpl.ID, p.ID)
	acctRequireErr(t, err, scopekit.EINVALID, "", "could not be filled")
}
