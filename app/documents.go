package app

import (
	"github.com/scopekit/scopekit/docgen"
	"github.com/scopekit/scopekit/office"
)

// documentPool makes the document worker pool of the configuration and
// plugs it into the service; its PDF converter comes last
// (pdfConverter).
func (a *App) documentPool() *docgen.Pool {
	cfg := a.cfg
	pool := docgen.New(a.svc)
	pool.Workers, pool.Logger, pool.BeforeGenerate = cfg.DocumentWorkers, cfg.Logger, cfg.BeforeGenerate
	if cfg.DocumentLease > 0 {
		pool.Lease = cfg.DocumentLease
	}
	if cfg.DocumentTimeLimit > 0 {
		pool.TimeLimit = cfg.DocumentTimeLimit
	}
	a.svc.Documents = pool.Config()
	return pool
}

// pdfConverter removes the converter's work folders a killed server left
// (a customer's document in them) and returns the PDF converter:
// LibreOffice when soffice is installed (nil without it: a PDF request
// then ends in error and the DOCX is still served), with PDFListeners
// soffice processes kept running (office.Pool, when python3-uno is
// installed too), else a soffice per PDF. It logs which, as
// docs/documents.md says. stop ends the LibreOffice processes.
func (a *App) pdfConverter() (conv office.Converter, stop func()) {
	log := a.cfg.Logger
	stop = func() {}
	if n, err := office.RemoveStaleTempDirs(""); err != nil {
		log.Warn("could not remove the PDF converter's stale work folders", "err", err)
	} else if n > 0 {
		log.Info("removed the PDF converter's work folders a stopped server left", "folders", n)
	}
	lo, err := office.NewLibreOffice("")
	if err != nil {
		log.Warn("PDF generation unavailable: soffice (LibreOffice) not found; PDF requests will end in error with the DOCX kept", "err", err)
		return nil, stop
	}
	listeners := a.cfg.PDFListeners
	if listeners == 0 {
		listeners = office.DefaultPDFConcurrent
	}
	if listeners < 0 {
		log.Info("PDF converter: LibreOffice found; a soffice per PDF (no listeners kept running)", "soffice", lo.Path)
		return lo, stop
	}
	pool, err := office.NewPool(lo)
	if err != nil {
		log.Warn("PDF converter: LibreOffice found, but no UNO bridge to keep it running; a soffice per PDF", "soffice", lo.Path, "err", err)
		return lo, stop
	}
	pool.Listeners, pool.Logger, pool.Restarted = listeners, log, a.tel.PDFListenerRestarts()
	log.Info("PDF converter: LibreOffice found; soffice listeners start with the first PDF and keep running",
		"soffice", lo.Path, "python", pool.Python, "listeners", listeners)
	return pool, func() { pool.Close() }
}
