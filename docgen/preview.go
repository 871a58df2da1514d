package docgen

import (
	"context"
	"errors"
	"fmt"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/documents"
	"github.com/scopekit/scopekit/mergedata"
	"github.com/scopekit/scopekit/office"
	"github.com/scopekit/scopekit/scoping/views"
)

// preview fills a template from a project's snapshot and converts it to
// PDF, within the pool's time limit (scoping.DocumentConfig.Preview): a
// template author's look at a template before it is used. It runs in the
// request, not on a worker: nothing is stored.
func (p *Pool) preview(ctx context.Context, snap *views.Snapshot, format string, file []byte) ([]byte, error) {
	if p.Converter == nil {
		return nil, scopekit.Errorf(scopekit.ECONFLICT, "no preview can be made: this server has no PDF converter (LibreOffice's soffice is not installed)")
	}
	ctx, cancel := context.WithTimeoutCause(ctx, p.timeLimit(), errTimeLimit)
	defer cancel()
	data := mergedata.BuildV2(snap, p.svc.Now())
	filled, err := documents.RenderFormat(ctx, format, file, data)
	if err != nil {
		return nil, previewError(ctx, "the template could not be filled: ", err)
	}
	pdf, err := p.Converter.ToPDF(ctx, filled)
	switch {
	case errors.Is(err, office.ErrNoConverter):
		return nil, scopekit.Errorf(scopekit.ECONFLICT, "no preview can be made: LibreOffice's soffice is not installed on this server")
	case err != nil:
		return nil, previewError(ctx, "the PDF could not be made: ", err)
	}
	return pdf, nil
}

// previewError is a failed preview as the person is told.
func previewError(ctx context.Context, what string, err error) error {
	if errors.Is(context.Cause(ctx), errTimeLimit) {
		return scopekit.Errorf(scopekit.ETIMEOUT, "the preview took longer than its time limit and was stopped: the template's loops or expressions are too heavy for this project")
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var se *scopekit.Error
	if errors.As(err, &se) && se.Code == scopekit.EINVALID {
		return scopekit.Errorf(scopekit.EINVALID, "%s%s", what, se.Message)
	}
	return fmt.Errorf("docgen: preview: %w", err)
}
