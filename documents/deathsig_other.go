//go:build unix && !linux

package documents

import "syscall"

// parentDeath: only Linux signals a process when its parent dies.
func parentDeath(attr *syscall.SysProcAttr) {}
