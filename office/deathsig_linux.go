package office

import "syscall"

// parentDeath has the process killed when this one dies, even by SIGKILL,
// so a killed server leaves no LibreOffice running. The signal follows the
// thread that started the process: startProc keeps that thread to itself
// until the process exits.
func parentDeath(attr *syscall.SysProcAttr) {
	attr.Pdeathsig = syscall.SIGKILL
}
