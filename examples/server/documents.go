package main

import (
	"context"
	"log/slog"

	"github.com/scopekit/scopekit/docgen"
	"github.com/scopekit/scopekit/documents"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
)

// beforeGenerate, when set (by a test build), runs before each document is
// rendered.
var beforeGenerate func(ctx context.Context, doc *engine.Record)

// newDocumentPool makes the document worker pool of -document-workers
// and -document-lease,
// with LibreOffice for PDFs when soffice is installed (without it a PDF
// request ends in error and the DOCX is still served), and plugs it into
// svc.
func newDocumentPool(svc *scoping.Service, cfg *config, logger *slog.Logger) *docgen.Pool {
	pool := docgen.New(svc)
	pool.Workers, pool.Logger, pool.BeforeGenerate = cfg.DocumentWorkers, logger, beforeGenerate
	pool.Lease = cfg.DocumentLease
	if conv, err := documents.NewLibreOffice(""); err != nil {
		logger.Warn("PDF generation unavailable: PDF requests will end in error with the DOCX kept", "err", err)
	} else {
		pool.Converter = conv
	}
	svc.Documents = pool.Config()
	return pool
}
