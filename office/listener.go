package office

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// listener is one running soffice and the UNO helper driving it.
type listener struct {
	dir         string // the work folder: profile, tmp, jobs, logs
	pipe        string // the name soffice listens on
	soffice     *exec.Cmd
	helper      *exec.Cmd
	sofficeDone <-chan struct{} // closed when soffice has exited
	helperDone  <-chan struct{}
	exited      chan struct{} // closed when either has exited (once up)
	in          *os.File      // the helper's standard input
	replies     chan string   // its answers, one per line; closed at its end
	uses        int
	killOnce    sync.Once
}

// startProc starts cmd in a process group of its own, its errors (and
// output, unless cmd has a Stdout) to the log file, from a goroutine that keeps its OS thread until cmd exits: on
// Linux cmd gets SIGKILL when the thread that started it ends, which is
// then only when this process dies. The channel is closed once cmd has
// exited (its ProcessState is set).
func startProc(cmd *exec.Cmd, log string) (<-chan struct{}, error) {
	f, err := os.OpenFile(log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	if cmd.Stdout == nil {
		cmd.Stdout = f
	}
	cmd.Stderr = f
	ownGroup(cmd)
	started := make(chan error, 1)
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		defer f.Close()
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		_ = cmd.Wait()
		close(done)
	}()
	return done, <-started
}

// startHelper starts the UNO helper with pipes for its standard input and
// output, its errors to log, and reads its answers into l.replies.
func (l *listener) startHelper(cmd *exec.Cmd, log string) error {
	inR, inW, err := os.Pipe()
	if err != nil {
		return err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return err
	}
	cmd.Dir = l.dir
	cmd.Stdin, cmd.Stdout = inR, outW
	l.helper = cmd
	done, err := startProc(cmd, log)
	inR.Close() // the helper's ends
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return err
	}
	l.helperDone, l.in = done, inW
	l.replies = make(chan string, 8)
	go readLines(outR, l.replies)
	return nil
}

// restart says why a listener is restarted: Reason is one of the
// Restart* constants (what Pool.Restarted receives), why the text
// logged.
type restart struct{ reason, why string }

// convert has the listener convert docx. broken, when not nil, says why
// the listener must be restarted (it is already killed): it died, or ran
// past ctx (then the error is ctx's).
func (l *listener) convert(ctx context.Context, docx []byte) (pdf []byte, err error, broken *restart) {
	l.uses++
	dir := filepath.Join(l.dir, "jobs", strconv.Itoa(l.uses))
	if err := os.Mkdir(dir, 0o700); err != nil {
		return nil, fmt.Errorf("PDF conversion: %w", err), nil
	}
	defer os.RemoveAll(dir) // after the kill below: LibreOffice writes no more into it
	in, out := filepath.Join(dir, inputName(docx)), filepath.Join(dir, "document.pdf")
	if err := os.WriteFile(in, docx, 0o600); err != nil {
		return nil, fmt.Errorf("PDF conversion: %w", err), nil
	}
	if _, err := fmt.Fprintf(l.in, "%s\t%s\n", in, out); err != nil {
		l.kill()
		return nil, err, &restart{RestartExited, "its UNO helper stopped reading"}
	}
	select {
	case line, ok := <-l.replies:
		switch {
		case !ok:
			l.kill()
			return nil, errors.New("the UNO helper exited"), &restart{RestartExited, "its UNO helper exited during a conversion"}
		case line == "ok":
			pdf, err := os.ReadFile(out)
			if err == nil && !bytes.HasPrefix(pdf, []byte("%PDF")) {
				err = errors.New("no PDF produced")
			}
			if err != nil {
				return nil, fmt.Errorf("PDF conversion failed: %w", err), nil
			}
			return pdf, nil, nil
		}
		msg := strings.TrimPrefix(line, "error ")
		if strings.HasPrefix(msg, "LibreOffice stopped answering") {
			// its bridge broke: because soffice died (then it is gone by
			// the time the helper says so, give or take its reaping), or
			// because it hangs
			reason := RestartUnresponsive
			select {
			case <-l.exited:
				reason = RestartExited
			case <-time.After(time.Second):
			}
			l.kill()
			return nil, errors.New(msg), &restart{reason, msg}
		}
		return nil, fmt.Errorf("PDF conversion failed: %s", msg), nil
	case <-l.exited:
		l.kill()
		return nil, errors.New("LibreOffice exited"), &restart{RestartExited, "it exited during a conversion"}
	case <-ctx.Done():
		l.kill()
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("PDF conversion timed out: %w", ctx.Err()), &restart{RestartTimeout, "a conversion ran out of time"}
		}
		return nil, fmt.Errorf("PDF conversion canceled: %w", ctx.Err()), &restart{RestartCanceled, "a conversion was canceled"}
	}
}

// ping asks whether LibreOffice still answers.
func (l *listener) ping() error {
	if _, err := fmt.Fprintln(l.in, "ping"); err != nil {
		return fmt.Errorf("its UNO helper stopped reading: %w", err)
	}
	t := time.NewTimer(pingTimeout)
	defer t.Stop()
	select {
	case line, ok := <-l.replies:
		if ok && line == "ok" {
			return nil
		}
		return fmt.Errorf("it answered %q to a ping", line)
	case <-l.exited:
		return errors.New("it exited")
	case <-t.C:
		return fmt.Errorf("it did not answer a ping within %s", pingTimeout)
	}
}

// kill ends soffice and the helper, with their process groups, and waits
// (a few seconds at most) for them to be gone.
func (l *listener) kill() {
	l.killOnce.Do(func() {
		if l.in != nil {
			l.in.Close()
		}
		for _, c := range []struct {
			cmd  *exec.Cmd
			done <-chan struct{}
		}{{l.soffice, l.sofficeDone}, {l.helper, l.helperDone}} {
			if c.cmd == nil || c.done == nil {
				continue
			}
			endGroup(c.cmd)
			select {
			case <-c.done:
			case <-time.After(5 * time.Second):
			}
		}
	})
}

// stop ends the listener, asking LibreOffice to quit first when graceful
// (it then removes its pipes), and empties its temp and job folders; the
// profile stays for the next start.
func (l *listener) stop(graceful bool) {
	if graceful && l.sofficeDone != nil {
		if _, err := fmt.Fprintln(l.in, "quit"); err == nil {
			select {
			case <-l.sofficeDone:
			case <-time.After(10 * time.Second):
			}
		}
	}
	l.kill()
	for _, d := range []string{"tmp", "jobs"} {
		os.RemoveAll(filepath.Join(l.dir, d))
	}
	// a killed soffice leaves its pipe's socket where LibreOffice puts
	// them on unix (/tmp, whatever TMPDIR says)
	if sock := filepath.Join("/tmp", fmt.Sprintf("OSL_PIPE_%d_%s", os.Getuid(), l.pipe)); l.pipe != "" {
		if fi, err := os.Lstat(sock); err == nil && fi.Mode()&os.ModeSocket != 0 {
			os.Remove(sock)
		}
	}
}

// readLines sends each line of f to lines, and closes lines at its end.
func readLines(f *os.File, lines chan<- string) {
	defer close(lines)
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines <- sc.Text()
	}
}
