package office

import (
	"errors"
	"fmt"
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

// lockedProfile is the LibreOffice settings every converter's profile
// starts with: linked content (an image or object a document links to by
// URL or file path) is not loaded, since a template could otherwise have
// the server fetch from its network or read its files into a PDF; macros
// never run.
const lockedProfile = `<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Common/Security/Scripting"><prop oor:name="BlockUntrustedRefererLinks" oor:op="fuse"><value>true</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Security/Scripting"><prop oor:name="DisableMacrosExecution" oor:op="fuse"><value>true</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Security/Scripting"><prop oor:name="MacroSecurityLevel" oor:op="fuse"><value>3</value></prop></item>
</oor:items>
`

// profile makes the LibreOffice profile folder dir with lockedProfile's
// settings (kept when the profile exists) and returns the
// -env:UserInstallation argument naming it.
func profile(dir string) (string, error) {
	user := filepath.Join(dir, "user")
	if err := os.MkdirAll(user, 0o700); err != nil {
		return "", err
	}
	f, err := os.OpenFile(filepath.Join(user, "registrymodifications.xcu"), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err == nil {
		_, err = f.WriteString(lockedProfile)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	} else if errors.Is(err, fs.ErrExist) {
		err = nil // LibreOffice keeps its own settings in it, ours among them
	}
	if err != nil {
		return "", fmt.Errorf("LibreOffice profile: %w", err)
	}
	return "-env:UserInstallation=file://" + filepath.ToSlash(dir), nil
}
