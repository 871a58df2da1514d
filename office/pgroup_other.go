//go:build !unix

package office

import (
	"errors"
	"os"
	"os/exec"
)

// ownGroup: without process groups, endGroup has nothing to end.
func ownGroup(cmd *exec.Cmd) {}

// killGroup: without process groups, cancellation kills the process only.
func killGroup(cmd *exec.Cmd) {}

// endGroup: without process groups there is nothing left to end.
func endGroup(cmd *exec.Cmd) {}

// lockFile: without flock a held folder cannot be told from a stale one;
// work folders are removed by their process only.
func lockFile(f *os.File, wait bool) error {
	if wait {
		return nil
	}
	return errors.New("cannot tell")
}

// removeStalePipes: LibreOffice's pipes are not files here.
func removeStalePipes() int { return 0 }
