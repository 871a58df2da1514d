//go:build unix && !linux

package office

import "syscall"

// parentDeath: only Linux signals a process when its parent dies.
func parentDeath(attr *syscall.SysProcAttr) {}
