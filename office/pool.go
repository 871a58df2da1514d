package office

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// officeScript is the UNO helper a listener is driven through.
//
//go:embed office.py
var officeScript string

// ErrNoUNO is returned (wrapped) by NewPool when no Python with
// LibreOffice's UNO bridge is installed; the cold LibreOffice converter
// still works.
var ErrNoUNO = errors.New("office: no Python with LibreOffice's UNO bridge (Debian: python3-uno)")

// Defaults of Pool.
const (
	DefaultRecycle      = 500
	DefaultStartTimeout = time.Minute
	// pingEvery is how long a listener may sit idle before it is asked
	// whether LibreOffice still answers (a hung one is restarted).
	pingEvery   = 30 * time.Second
	pingTimeout = 10 * time.Second
)

// Pool converts documents to PDF with LibreOffice kept running: a
// few long-lived soffice processes, each listening on a pipe of its own
// (--accept=pipe,...;urp) and driven through UNO by a small Python helper
// (office.py), so a conversion costs the document's layout, not
// LibreOffice's start. A listener that dies is restarted, and so is one
// that hangs (a conversion past its timeout, or no answer to the idle
// ping), and each after Recycle conversions. While no listener is up (at
// first, or all restarting), and for a document whose listener died while
// converting it, the Cold converter is used. Each listener runs in a work
// folder of its own (TempPrefix*: its profile, its temp files, the
// document being converted, removed after each conversion), under a
// process group killed with it; on Linux LibreOffice dies with the server.
//
// Listeners start at the first conversion (or Start) and stop at Close.
// Set the fields before the first conversion.
type Pool struct {
	// Cold converts when no listener can; its Path is the soffice whose
	// soffice.bin is kept running, its Timeout bounds every conversion and
	// its TempDir holds the listeners' work folders.
	Cold *LibreOffice
	// Listeners is how many soffice processes are kept running (default
	// DefaultPDFConcurrent); each converts one document at a time.
	Listeners int
	// Python is a Python 3 that imports uno (NewPool finds one).
	Python string
	// Recycle restarts a listener after this many conversions (default
	// DefaultRecycle), so LibreOffice's memory cannot grow without bound.
	Recycle int
	// StartTimeout bounds a listener's start (default DefaultStartTimeout).
	StartTimeout time.Duration
	// Logger receives listener failures and restarts (default
	// slog.Default()).
	Logger *slog.Logger
	// Restarted, when set, is called each time a listener is restarted,
	// with why: one of the Restart* constants (for a metric).
	Restarted func(reason string)

	mu        sync.Mutex
	started   bool
	stopped   bool
	closing   chan struct{} // closed by Close
	jobs      chan *officeJob
	wg        sync.WaitGroup
	alive     atomic.Int32
	warm      atomic.Int64 // conversions made by a listener
	cold      atomic.Int64 // conversions made by Cold
	listeners sync.Map     // *listener currently up, for tests
}

// officeJob is a conversion handed to a listener.
type officeJob struct {
	ctx  context.Context
	docx []byte
	done chan officeResult
}

type officeResult struct {
	pdf  []byte
	err  error
	died bool // the listener died under it: convert it cold
}

// NewPool returns a pool over cold's soffice with a Python that
// imports uno (LibreOffice's own, next to soffice, else python3); the
// error wraps ErrNoUNO when there is none.
func NewPool(cold *LibreOffice) (*Pool, error) {
	python, err := findPython(cold.Path)
	if err != nil {
		return nil, err
	}
	return &Pool{Cold: cold, Python: python}, nil
}

// findPython returns the first of LibreOffice's Python and python3 that
// imports uno.
func findPython(soffice string) (string, error) {
	var candidates []string
	if real, err := filepath.EvalSymlinks(soffice); err == nil {
		candidates = append(candidates, filepath.Join(filepath.Dir(real), "python"))
	}
	candidates = append(candidates, "/usr/bin/python3", "python3")
	for _, c := range candidates {
		path, err := exec.LookPath(c)
		if err != nil {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		err = exec.CommandContext(ctx, path, "-c", "import uno").Run()
		cancel()
		if err == nil {
			return path, nil
		}
	}
	return "", ErrNoUNO
}

func (p *Pool) log() *slog.Logger {
	if p.Logger != nil {
		return p.Logger
	}
	return slog.Default()
}

// Counts returns how many PDFs the listeners made and how many the cold
// converter made (when no listener was up, or one died under a document).
func (p *Pool) Counts() (warm, cold int64) { return p.warm.Load(), p.cold.Load() }

// init makes the channels, once.
func (p *Pool) init() {
	if p.closing == nil {
		p.closing, p.jobs = make(chan struct{}), make(chan *officeJob)
	}
}

// Start starts the listeners (the first conversion does it otherwise).
func (p *Pool) Start() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.init()
	if p.started || p.stopped {
		return
	}
	p.started = true
	n := p.Listeners
	if n <= 0 {
		n = DefaultPDFConcurrent
	}
	for i := range n {
		p.wg.Add(1)
		go p.run(i)
	}
}

// Ready waits until every listener is up, or ctx ends.
func (p *Pool) Ready(ctx context.Context) error {
	p.Start()
	n := int32(max(p.Listeners, 0))
	if n == 0 {
		n = DefaultPDFConcurrent
	}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for p.alive.Load() < n {
		select {
		case <-ctx.Done():
			return fmt.Errorf("LibreOffice listeners not up: %w", ctx.Err())
		case <-tick.C:
		}
	}
	return nil
}

// Close stops the listeners and removes their work folders; conversions
// after it are cold.
func (p *Pool) Close() error {
	p.mu.Lock()
	p.init()
	if !p.stopped {
		p.stopped = true
		close(p.closing)
	}
	p.mu.Unlock()
	p.wg.Wait()
	return nil
}

// ToPDF implements Converter: a listener converts when one is up, else
// (or when it dies meanwhile) the cold converter.
func (p *Pool) ToPDF(ctx context.Context, docx []byte) ([]byte, error) {
	p.Start()
	ctx, cancel := context.WithTimeout(ctx, p.Cold.timeout())
	defer cancel()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	job := &officeJob{ctx: ctx, docx: docx, done: make(chan officeResult, 1)}
	for p.alive.Load() > 0 {
		select {
		case p.jobs <- job:
			r := <-job.done
			if !r.died {
				if r.err == nil {
					p.warm.Add(1)
				}
				return r.pdf, r.err
			}
			p.log().Warn("a LibreOffice listener died while converting a document; converting it with a soffice of its own")
			return p.coldPDF(ctx, docx)
		case <-ctx.Done():
			return nil, fmt.Errorf("PDF conversion did not start in time: %w", ctx.Err())
		case <-p.closing:
			return p.coldPDF(ctx, docx)
		case <-tick.C: // no listener free: still any up?
		}
	}
	return p.coldPDF(ctx, docx)
}

func (p *Pool) coldPDF(ctx context.Context, docx []byte) ([]byte, error) {
	pdf, err := p.Cold.ToPDF(ctx, docx)
	if err == nil {
		p.cold.Add(1)
	}
	return pdf, err
}

// run keeps listener n up until Close: it starts it, has it convert, and
// starts it again when it dies, hangs or is due for recycling. A start
// that fails is retried after a pause that doubles up to a minute.
func (p *Pool) run(n int) {
	defer p.wg.Done()
	wd, err := newWorkDir(p.Cold.TempDir)
	if err != nil {
		p.log().Error("no work folder for a LibreOffice listener; PDFs are made by a soffice of their own", "err", err)
		return
	}
	defer wd.remove()
	pause := time.Second
	for {
		l, err := p.startListener(wd, n)
		if err != nil {
			select {
			case <-p.closing:
				return
			default:
			}
			p.log().Warn("a LibreOffice listener did not start; PDFs are made by a soffice of their own meanwhile",
				"listener", n, "err", err, "retry_in", pause.String())
			if p.Restarted != nil {
				p.Restarted(RestartStartFailed)
			}
			os.RemoveAll(filepath.Join(wd.path, "profile")) // in case it is what broke
			select {
			case <-p.closing:
				return
			case <-time.After(pause):
			}
			pause = min(2*pause, time.Minute)
			continue
		}
		pause = time.Second
		p.listeners.Store(l, true)
		p.alive.Add(1)
		why, graceful := p.serve(l)
		p.retire(l)
		l.stop(graceful)
		if why.reason == "" {
			return
		}
		p.log().Info("restarting a LibreOffice listener", "listener", n, "reason", why.why)
		if p.Restarted != nil {
			p.Restarted(why.reason)
		}
	}
}

// retire takes l out of service, once.
func (p *Pool) retire(l *listener) {
	if _, up := p.listeners.LoadAndDelete(l); up {
		p.alive.Add(-1)
	}
}

// Why a listener was restarted (Pool.Restarted).
const (
	RestartExited       = "exited"       // soffice or its UNO helper died
	RestartUnresponsive = "unresponsive" // LibreOffice stopped answering (a ping, a conversion)
	RestartTimeout      = "timeout"      // a conversion outran its timeout
	RestartCanceled     = "canceled"     // a conversion's caller gave up
	RestartRecycled     = "recycled"     // Recycle conversions made
	RestartStartFailed  = "start_failed" // a listener did not start (retried after a pause)
)

// serve hands jobs to l until Close (no reason) or until l must be restarted
// (why); graceful when LibreOffice still answers.
func (p *Pool) serve(l *listener) (why restart, graceful bool) {
	recycle := p.Recycle
	if recycle <= 0 {
		recycle = DefaultRecycle
	}
	idle := time.NewTimer(pingEvery)
	defer idle.Stop()
	for {
		select {
		case <-p.closing:
			return restart{}, true
		case <-l.exited:
			return restart{RestartExited, "it exited"}, false
		case <-idle.C:
			if err := l.ping(); err != nil {
				return restart{RestartUnresponsive, err.Error()}, false
			}
		case job := <-p.jobs:
			pdf, err, broken := l.convert(job.ctx, job.docx)
			res := officeResult{pdf: pdf, err: err, died: broken != nil && job.ctx.Err() == nil}
			if broken != nil {
				// out of service before its caller hears of it: what the
				// caller does next (Ready, another PDF) sees it gone
				p.retire(l)
				job.done <- res
				return *broken, false
			}
			job.done <- res
			if l.uses >= recycle {
				return restart{RestartRecycled, fmt.Sprintf("recycled after %d conversions", l.uses)}, true
			}
		}
		idle.Reset(pingEvery)
	}
}

// pipePrefix begins the names of the listeners' pipes, followed by the
// pid of the process that started them.
const pipePrefix = "scopekit-"

// pipeSeq tells apart the pipes of the pools of one process.
var pipeSeq atomic.Int64

// startListener starts soffice listening on a pipe and the helper
// connected to it, in wd. A fresh profile makes soffice exit with 81 to be
// started again (what the soffice script's launcher does): so it is.
func (p *Pool) startListener(wd *workDir, n int) (*listener, error) {
	tmp, jobs, profileDir := filepath.Join(wd.path, "tmp"), filepath.Join(wd.path, "jobs"), filepath.Join(wd.path, "profile")
	for _, d := range []string{tmp, jobs} {
		os.RemoveAll(d)
		if err := os.Mkdir(d, 0o700); err != nil {
			return nil, err
		}
	}
	if strings.ContainsAny(wd.path, "\t\n") {
		return nil, fmt.Errorf("the work folder %q has a tab or a new line in its name", wd.path)
	}
	prof, err := profile(profileDir)
	if err != nil {
		return nil, err
	}
	timeout := p.StartTimeout
	if timeout <= 0 {
		timeout = DefaultStartTimeout
	}
	pipe := fmt.Sprintf("%s%d-%d-%d", pipePrefix, os.Getpid(), pipeSeq.Add(1), n)
	l := &listener{dir: wd.path, pipe: pipe, exited: make(chan struct{})}
	helper := exec.Command(p.Python, "-c", officeScript, pipe, fmt.Sprint(timeout.Seconds()))
	if err := l.startHelper(helper, filepath.Join(wd.path, "helper.log")); err != nil {
		return nil, fmt.Errorf("start the UNO helper: %w", err)
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for attempt := 0; ; attempt++ {
		l.soffice = exec.Command(sofficeBin(p.Cold.Path), prof,
			"--headless", "--invisible", "--nocrashreport", "--nodefault", "--nologo", "--nofirststartwizard",
			"--norestore", "--nolockcheck", "--accept=pipe,name="+pipe+";urp;StarOffice.ComponentContext")
		l.soffice.Dir = wd.path
		l.soffice.Env = append(os.Environ(), "HOME="+wd.path, "TMPDIR="+tmp)
		done, err := startProc(l.soffice, filepath.Join(wd.path, "soffice.log"))
		if err != nil {
			l.stop(false)
			return nil, fmt.Errorf("start soffice: %w", err)
		}
		l.sofficeDone = done
		select {
		case line, ok := <-l.replies:
			if ok && line == "ready" {
				go func() {
					select {
					case <-l.sofficeDone:
					case <-l.helperDone:
					}
					close(l.exited)
				}()
				return l, nil
			}
			l.stop(false)
			if !ok {
				return nil, fmt.Errorf("the UNO helper exited%s", tail(filepath.Join(wd.path, "helper.log")))
			}
			return nil, fmt.Errorf("the UNO helper: %s%s", line, tail(filepath.Join(wd.path, "helper.log")))
		case <-done:
			if l.soffice.ProcessState.ExitCode() == 81 && attempt < 2 {
				continue
			}
			l.stop(false)
			return nil, fmt.Errorf("soffice exited (%v)%s", l.soffice.ProcessState, tail(filepath.Join(wd.path, "soffice.log")))
		case <-l.helperDone:
			l.stop(false)
			return nil, fmt.Errorf("the UNO helper exited%s", tail(filepath.Join(wd.path, "helper.log")))
		case <-deadline.C:
			l.stop(false)
			return nil, fmt.Errorf("not listening within %s", timeout)
		case <-p.closing:
			l.stop(false)
			return nil, errors.New("closing")
		}
	}
}

// sofficeBin is the program soffice launches (soffice.bin next to it,
// through symbolic links), run directly so that it is the process this
// one watches and kills; else soffice itself.
func sofficeBin(soffice string) string {
	real, err := filepath.EvalSymlinks(soffice)
	if err != nil {
		return soffice
	}
	bin := filepath.Join(filepath.Dir(real), "soffice.bin")
	if fi, err := os.Stat(bin); err == nil && !fi.IsDir() {
		return bin
	}
	return soffice
}

// tail is the end of a log file, for an error message.
func tail(path string) string {
	b, _ := os.ReadFile(path)
	s := strings.TrimSpace(string(b))
	if len(s) > 300 {
		s = "…" + s[len(s)-300:]
	}
	if s == "" {
		return ""
	}
	return ": " + s
}
