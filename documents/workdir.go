package documents

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The converters' work folders hold a customer's document while it is
// converted. Each is named TempPrefix* and holds a lock file its process
// keeps locked while the folder is in use (unix: flock), so a folder whose
// lock nobody holds belongs to a process that died (SIGKILL, a crash, a
// power cut) and is removed by RemoveStaleTempDirs, which a server calls
// when it starts.

// TempPrefix begins the names of the converters' work folders.
const TempPrefix = "scopekit-pdf-"

// lockName is the lock file of a work folder.
const lockName = ".lock"

// unlockedAge is how old a work folder without a lock file must be to be
// taken for stale: it was made by an older version, or its process died
// between making it and locking it.
const unlockedAge = 10 * time.Minute

// workDir is a work folder this process holds.
type workDir struct {
	path string
	lock *os.File
}

// newWorkDir makes and locks a work folder in parent (os.TempDir() when
// ""), readable by this user only.
func newWorkDir(parent string) (*workDir, error) {
	path, err := os.MkdirTemp(parent, TempPrefix)
	if err != nil {
		return nil, err
	}
	lock, err := os.OpenFile(filepath.Join(path, lockName), os.O_CREATE|os.O_RDWR, 0o600)
	if err == nil {
		if err = lockFile(lock, true); err != nil {
			lock.Close()
		}
	}
	if err != nil {
		os.RemoveAll(path)
		return nil, err
	}
	return &workDir{path: path, lock: lock}, nil
}

// remove deletes the folder and everything in it, then lets go of it.
func (w *workDir) remove() error {
	err := os.RemoveAll(w.path)
	w.lock.Close()
	return err
}

// RemoveStaleTempDirs removes the work folders converters left in dir
// (os.TempDir() when "") when their process died, and returns how many it
// removed. Folders in use, by this process or another one, are left alone.
// The sockets a killed listener's LibreOffice left in /tmp go too.
func RemoveStaleTempDirs(dir string) (int, error) {
	removeStalePipes()
	if dir == "" {
		dir = os.TempDir()
	}
	matches, err := filepath.Glob(filepath.Join(dir, TempPrefix+"*"))
	if err != nil {
		return 0, err
	}
	removed := 0
	var errs []error
	for _, path := range matches {
		fi, err := os.Lstat(path)
		if err != nil || !fi.IsDir() || !strings.HasPrefix(fi.Name(), TempPrefix) {
			continue
		}
		stale, err := isStale(path, fi)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if stale {
			removed++
		}
	}
	return removed, errors.Join(errs...)
}

// isStale removes the work folder at path when no process holds it.
func isStale(path string, fi fs.FileInfo) (bool, error) {
	lock, err := os.OpenFile(filepath.Join(path, lockName), os.O_RDWR, 0)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if time.Since(fi.ModTime()) < unlockedAge {
			return false, nil
		}
		return true, os.RemoveAll(path)
	case err != nil:
		return false, err
	}
	defer lock.Close()
	if lockFile(lock, false) != nil {
		return false, nil // held: in use
	}
	return true, os.RemoveAll(path)
}
