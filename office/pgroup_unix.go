//go:build unix

package office

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// ownGroup runs cmd in a process group of its own, which endGroup kills.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	parentDeath(cmd.SysProcAttr)
}

// killGroup is ownGroup for a command made with CommandContext:
// cancellation kills the whole group (soffice starts a child process).
func killGroup(cmd *exec.Cmd) {
	ownGroup(cmd)
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// endGroup kills what is left of cmd's process group once it has exited.
func endGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// lockFile takes an exclusive lock of f, waiting for it when wait.
func lockFile(f *os.File, wait bool) error {
	how := syscall.LOCK_EX
	if !wait {
		how |= syscall.LOCK_NB
	}
	return syscall.Flock(int(f.Fd()), how)
}

// removeStalePipes removes the sockets LibreOffice left in /tmp for the
// listeners of processes that died (pipe names hold the pid of the process
// that made them: see startListener), and returns how many.
func removeStalePipes() int {
	prefix := fmt.Sprintf("OSL_PIPE_%d_%s", os.Getuid(), pipePrefix)
	matches, _ := filepath.Glob(filepath.Join("/tmp", prefix+"*"))
	removed := 0
	for _, path := range matches {
		pid, err := strconv.Atoi(strings.SplitN(strings.TrimPrefix(filepath.Base(path), prefix), "-", 2)[0])
		if err != nil || pid == os.Getpid() || syscall.Kill(pid, 0) != syscall.ESRCH {
			continue // ours, or its process is alive (or not ours to ask)
		}
		if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSocket != 0 && os.Remove(path) == nil {
			removed++
		}
	}
	return removed
}
