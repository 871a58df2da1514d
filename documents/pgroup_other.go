//go:build !unix

package documents

import "os/exec"

// killGroup: without process groups, cancellation kills the process only.
func killGroup(cmd *exec.Cmd) {}
