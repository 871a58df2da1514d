package office

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/scopekit/scopekit/internal/ooxml"
)

// LibreOffice converts with LibreOffice headless (soffice --headless
// --convert-to pdf), one process per conversion, each in a work folder of
// its own (TempPrefix*, removed when it ends) with a private user profile,
// so conversions never share state. Each pays LibreOffice's start (a
// second or two); Pool keeps LibreOffice running instead and falls
// back to this one.
// Its zero fields take the defaults below; set them before the first
// conversion.
type LibreOffice struct {
	// Path is the soffice program.
	Path string
	// Timeout bounds one conversion (default 2 minutes); the process
	// group is killed when it passes.
	Timeout time.Duration
	// MaxConcurrent bounds the conversions running at once (default 2);
	// more wait their turn (or for ctx).
	MaxConcurrent int
	// TempDir is where the work dirs go (default os.TempDir()).
	TempDir string

	once sync.Once
	sem  chan struct{}
}

// Defaults of LibreOffice.
const (
	DefaultPDFTimeout    = 2 * time.Minute
	DefaultPDFConcurrent = 2
)

// NewLibreOffice returns a converter running the soffice program at path,
// or, with path "", the first of soffice and libreoffice found on PATH. The
// error wraps ErrNoConverter when there is none.
func NewLibreOffice(path string) (*LibreOffice, error) {
	if path == "" {
		for _, name := range []string{"soffice", "libreoffice"} {
			if p, err := exec.LookPath(name); err == nil {
				path = p
				break
			}
		}
		if path == "" {
			return nil, fmt.Errorf("%w: install LibreOffice (Debian: libreoffice-writer-nogui, libreoffice-impress-nogui, libreoffice-calc-nogui)", ErrNoConverter)
		}
	} else if _, err := exec.LookPath(path); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoConverter, err)
	}
	return &LibreOffice{Path: path}, nil
}

func (lo *LibreOffice) timeout() time.Duration {
	if lo.Timeout > 0 {
		return lo.Timeout
	}
	return DefaultPDFTimeout
}

// ToPDF implements Converter.
func (lo *LibreOffice) ToPDF(ctx context.Context, docx []byte) ([]byte, error) {
	lo.once.Do(func() {
		n := lo.MaxConcurrent
		if n <= 0 {
			n = DefaultPDFConcurrent
		}
		lo.sem = make(chan struct{}, n)
	})
	ctx, cancel := context.WithTimeout(ctx, lo.timeout())
	defer cancel()
	select {
	case lo.sem <- struct{}{}:
		defer func() { <-lo.sem }()
	case <-ctx.Done():
		return nil, fmt.Errorf("PDF conversion did not start in time: %w", ctx.Err())
	}

	// the customer's document is in dir only while this runs; a process
	// killed meanwhile leaves it to RemoveStaleTempDirs
	wd, err := newWorkDir(lo.TempDir)
	if err != nil {
		return nil, fmt.Errorf("PDF conversion: %w", err)
	}
	defer wd.remove()
	dir := wd.path
	in := filepath.Join(dir, inputName(docx))
	if err := os.WriteFile(in, docx, 0o600); err != nil {
		return nil, fmt.Errorf("PDF conversion: %w", err)
	}
	outDir := filepath.Join(dir, "out")
	prof, err := profile(filepath.Join(dir, "profile"))
	if err != nil {
		return nil, fmt.Errorf("PDF conversion: %w", err)
	}
	cmd := exec.CommandContext(ctx, lo.Path, prof,
		"--headless", "--norestore", "--nologo", "--nodefault", "--nolockcheck",
		"--convert-to", "pdf", "--outdir", outDir, in)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir)
	// Output goes to a file, not a pipe, so a leftover child holding it
	// open cannot keep Wait waiting.
	logf, err := os.Create(filepath.Join(dir, "soffice.log"))
	if err != nil {
		return nil, fmt.Errorf("PDF conversion: %w", err)
	}
	defer logf.Close()
	cmd.Stdout, cmd.Stderr = logf, logf
	killGroup(cmd)
	cmd.WaitDelay = 5 * time.Second
	runtime.LockOSThread() // the parent-death signal follows the thread that started soffice
	err = cmd.Run()
	runtime.UnlockOSThread()
	endGroup(cmd)
	if ctx.Err() != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("PDF conversion timed out: %w", ctx.Err())
		}
		return nil, fmt.Errorf("PDF conversion canceled: %w", ctx.Err())
	}
	pdf, rerr := os.ReadFile(filepath.Join(outDir, "document.pdf"))
	if err != nil || rerr != nil || !bytes.HasPrefix(pdf, []byte("%PDF")) {
		out, _ := os.ReadFile(logf.Name())
		msg := strings.TrimSpace(string(out))
		if len(msg) > 300 {
			msg = msg[:300]
		}
		if err == nil {
			err = errors.New("no PDF produced")
		}
		return nil, fmt.Errorf("PDF conversion failed: %v: %s", err, msg)
	}
	return pdf, nil
}

// inputName names the file a converter reads doc from: LibreOffice picks
// its import filter by the name, so the file is named as what it is (a
// PPTX, an XLSX or a DOCX).
func inputName(doc []byte) string {
	ext := ooxml.Format(doc)
	if ext == "" {
		ext = ooxml.DOCX
	}
	return "document." + ext
}
