//go:build !unix

package documents

import "os/exec"

// killGroup: without process groups, cancellation kills the process only.
func killGroup(cmd *exec.Cmd) {}

// endGroup: without process groups there is nothing left to end.
func endGroup(cmd *exec.Cmd) {}
