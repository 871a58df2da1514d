package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/scopekit/scopekit/boltstore"
)

// Backups (docs/operations.md, "Backups"): `server backup` copies the file
// of a stopped server, `server restore` installs a backup as a new file,
// and -admin-token mounts the download of a consistent copy on a running
// server.

// inUseHint is what a command says of a file a running server holds.
const inUseHint = `download a backup from that server instead: GET /v1/admin/backup with its -admin-token (docs/operations.md, "Backups")`

// keyNote is the reminder that the webhook secret key is not in a backup.
const keyNote = `Not in a backup: the secret key file that seals webhook secrets (%s unless -secret-key-file says otherwise); keep a copy of it apart.`

// runBackup is `server backup -data FILE -o NEW`.
func runBackup(ctx context.Context, args []string, getenv func(string) string, stdout, _ io.Writer) error {
	fl := flag.NewFlagSet("backup", flag.ContinueOnError)
	data := fl.String("data", envOr(getenv, "data", "./scopekit.db"), "the bbolt database `file` to copy; no server may have it open")
	out := fl.String("o", "", "the new `file` to write (never replaced)")
	if help, err := parseCommandFlags(fl, "server backup -data scopekit.db -o backup.db", args, stdout); help || err != nil {
		return err
	}
	if *out == "" {
		return errors.New("backup: -o is required: the new file to write, e.g. -o backup.db")
	}
	n, err := boltstore.BackupFile(ctx, *data, *out)
	if errors.Is(err, boltstore.ErrLocked) {
		return fmt.Errorf("backup: %s is in use by a running server: %s", *data, inUseHint)
	}
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	fmt.Fprintf(stdout, "%s: a consistent copy of %s (%d bytes), passed bbolt's check\n", *out, *data, n)
	fmt.Fprintf(stdout, keyNote+"\n", *data+".key")
	return nil
}

// runRestore is `server restore -from BACKUP -data NEW`.
func runRestore(ctx context.Context, args []string, getenv func(string) string, stdout, _ io.Writer) error {
	fl := flag.NewFlagSet("restore", flag.ContinueOnError)
	from := fl.String("from", "", "the backup `file`")
	data := fl.String("data", envOr(getenv, "data", "./scopekit.db"), "the new database `file` to create (never replaced); start the server with it")
	if help, err := parseCommandFlags(fl, "server restore -from backup.db -data restored.db", args, stdout); help || err != nil {
		return err
	}
	if *from == "" {
		return errors.New("restore: -from is required: the backup file, e.g. -from backup.db")
	}
	n, err := boltstore.Restore(ctx, *from, *data)
	switch {
	case errors.Is(err, boltstore.ErrLocked):
		return fmt.Errorf("restore: %s is in use by a running server, so it is no backup: %s", *from, inUseHint)
	case errors.Is(err, boltstore.ErrExists):
		return fmt.Errorf("restore: %s already exists: restore into a new file and start the server with it (nothing was written)", *data)
	case err != nil:
		return fmt.Errorf("restore: %w (nothing was written)", err)
	}
	fmt.Fprintf(stdout, "%s: restored from %s (%d bytes), passed bbolt's check; start the server with -data %s\n", *data, *from, n, *data)
	if _, err := os.Stat(*data + ".key"); errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(stdout, "Copy the secret key file of the server that wrote the backup to %s.key (or start with -secret-key-file): "+
			"without it the webhook secrets in the backup cannot be decrypted.\n", *data)
	}
	return nil
}

// parseCommandFlags parses a command's flags; for -h it prints the
// command's usage to stdout and reports help. Errors are one line.
func parseCommandFlags(fl *flag.FlagSet, example string, args []string, stdout io.Writer) (help bool, err error) {
	fl.SetOutput(io.Discard)
	err = fl.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintf(stdout, "Usage: %s\n\n", example)
		fl.SetOutput(stdout)
		fl.PrintDefaults()
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("%s: %w", fl.Name(), err)
	}
	if fl.NArg() > 0 {
		return false, fmt.Errorf("%s: unexpected argument %q (flags only; see -h)", fl.Name(), fl.Arg(0))
	}
	return false, nil
}

// envOr is the flag's SCOPEKIT_<NAME> variable, or def.
func envOr(getenv func(string) string, flagName, def string) string {
	if v := getenv(envName(flagName)); v != "" {
		return v
	}
	return def
}
