// Package office makes PDFs of Office documents (DOCX, PPTX, XLSX) with
// LibreOffice, and supervises its processes so that a hung, crashed or
// killed LibreOffice, or a killed server, leaves neither a process nor a
// customer's document behind.
//
// LibreOffice converts with a soffice per document, each in a work folder
// of its own (workdir.go) with a private profile that blocks linked
// content and macros. Pool keeps a few soffice processes running and
// drives them through UNO by an embedded Python helper (office.py), so a
// conversion costs the document's layout and not LibreOffice's start; it
// restarts a listener that dies, hangs or has served its Recycle count,
// and falls back to LibreOffice meanwhile. Every process runs in a
// process group killed with it (pgroup_unix.go), and on Linux dies with
// the server (deathsig_linux.go); RemoveStaleTempDirs clears what a
// killed server left.
//
// The package knows nothing of templates (package documents fills them)
// nor of the domain: it takes bytes and returns bytes.
package office

import (
	"context"
	"errors"
)

// Converter turns a DOCX, PPTX or XLSX document into PDF.
//
// ToPDF returns the PDF's bytes, or an error whose text says why the
// conversion failed (it is shown to the user as the document's error-text);
// it honours ctx's deadline and cancellation.
type Converter interface {
	ToPDF(ctx context.Context, docx []byte) ([]byte, error)
}

// ErrNoConverter is returned (wrapped) by NewLibreOffice when soffice is
// not installed, and by a nil Converter's callers when no converter is
// configured.
var ErrNoConverter = errors.New("office: no PDF converter (LibreOffice soffice not found)")
