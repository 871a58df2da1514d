package scoping

import (
	"context"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
)

// PreviewTemplate fills a document template's file from a project's merge
// data and returns it as a PDF, to be looked at before the template is
// used: nothing is stored, no document is queued, no event is recorded.
// An archived template can be previewed (it is how one checks it before
// restoring it).
//
// Errors: EFORBIDDEN without documents manage (a preview is a generation)
// or projects view; ENOTFOUND for a template or a project the actor
// cannot see, or a template without a file; the previewer's (EINVALID
// when the template cannot be filled, saying why; ECONFLICT when this
// server makes no PDFs); ECONFLICT without a previewer.
func (s *Service) PreviewTemplate(ctx context.Context, a *engine.Actor, templateID, projectID string) (*File, error) {
	if err := a.Require("documents", true); err != nil {
		return nil, err
	}
	def := mustLookup(s.Schema(), views.TypeDocumentTemplates)
	f, err := s.TemplateFile(ctx, a, templateID, engine.AnyActive(def))
	if err != nil {
		return nil, err
	}
	snap, err := s.Snapshot(ctx, a, projectID)
	if err != nil {
		return nil, err
	}
	if s.Documents.Preview == nil {
		return nil, scopekit.Errorf(scopekit.ECONFLICT, "this server does not preview templates")
	}
	pdf, err := s.Documents.Preview(ctx, snap, formatOfType(f.ContentType), f.Data)
	if err != nil {
		return nil, err
	}
	return &File{Name: snap.Project.ProjectName() + " - preview.pdf", ContentType: "application/pdf", Data: pdf}, nil
}
