//go:build unix

package documents

import (
	"os/exec"
	"syscall"
)

// killGroup runs cmd in a process group of its own and makes cancellation
// kill the whole group (soffice starts a child process).
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
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
