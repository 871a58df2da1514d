//go:build unix

package documents

import (
	"os"
	"os/exec"
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
