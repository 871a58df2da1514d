package main

import (
	"context"
	"log/slog"

	"github.com/scopekit/scopekit/docgen"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/office"
	"github.com/scopekit/scopekit/scoping"
)

// beforeGenerate, when set (by a test build), runs before each document is
// rendered.
var beforeGenerate func(ctx context.Context, doc *engine.Record)

// newDocumentPool makes the document worker pool of -document-workers,
// -document-lease and -document-time-limit, and plugs it into svc; its
// PDF converter is newPDFConverter's.
func newDocumentPool(svc *scoping.Service, cfg *config, logger *slog.Logger) *docgen.Pool {
	pool := docgen.New(svc)
	pool.Workers, pool.Logger, pool.BeforeGenerate = cfg.DocumentWorkers, logger, beforeGenerate
	pool.Lease, pool.TimeLimit = cfg.DocumentLease, cfg.DocumentTimeLimit
	svc.Documents = pool.Config()
	return pool
}

// newPDFConverter removes the converter's work folders a killed server
// left (a customer's document in them) and returns the PDF converter:
// LibreOffice when soffice is installed (nil without it: a PDF request
// then ends in error and the DOCX is still served), with -pdf-listeners
// soffice processes kept running (office.Pool, when python3-uno
// is installed too), else a soffice per PDF. It logs which, as
// documents.md says; restarted (nil: none) counts the listeners' restarts.
// stop ends the LibreOffice processes.
func newPDFConverter(cfg *config, logger *slog.Logger, restarted func(reason string)) (conv office.Converter, stop func()) {
	stop = func() {}
	if n, err := office.RemoveStaleTempDirs(""); err != nil {
		logger.Warn("could not remove the PDF converter's stale work folders", "err", err)
	} else if n > 0 {
		logger.Info("removed the PDF converter's work folders a stopped server left", "folders", n)
	}
	lo, err := office.NewLibreOffice("")
	if err != nil {
		logger.Warn("PDF generation unavailable: soffice (LibreOffice) not found; PDF requests will end in error with the DOCX kept", "err", err)
		return nil, stop
	}
	if cfg.PDFListeners == 0 {
		logger.Info("PDF converter: LibreOffice found; a soffice per PDF (-pdf-listeners 0)", "soffice", lo.Path)
		return lo, stop
	}
	pool, err := office.NewPool(lo)
	if err != nil {
		logger.Warn("PDF converter: LibreOffice found, but no UNO bridge to keep it running; a soffice per PDF", "soffice", lo.Path, "err", err)
		return lo, stop
	}
	pool.Listeners, pool.Logger, pool.Restarted = cfg.PDFListeners, logger, restarted
	logger.Info("PDF converter: LibreOffice found; soffice listeners start with the first PDF and keep running",
		"soffice", lo.Path, "python", pool.Python, "listeners", cfg.PDFListeners)
	return pool, func() { pool.Close() }
}
