package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/scopekit/scopekit/boltstore"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/storemove"
)

// migrateUsage is the text of `server migrate -h`.
const migrateUsage = `Usage: server migrate -data FILE -to URL

Copies the bbolt file into an empty PostgreSQL database (or schema: search_path
in the URL), then compares the counts of every kind of row. Stop the server
first: the file is read read-only. Interrupted, the same command continues
where it stopped. docs/operations.md, "Moving to PostgreSQL".

`

// runMigrate is `server migrate`: storemove.Move with the progress on
// stderr and the counts on stdout.
func runMigrate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	data := fs.String("data", "./scopekit.db", "the bbolt `file` to copy (SCOPEKIT_DATA)")
	to := fs.String("to", "", "the PostgreSQL `URL` to copy into, postgres://user:password@host:5432/db (SCOPEKIT_DATABASE)")
	batch := fs.Int("batch", storemove.DefaultBatch, "records or files per transaction (a `count`)")
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		fs.SetOutput(stdout)
		fmt.Fprint(stdout, migrateUsage)
		fs.PrintDefaults()
		return nil
	} else if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("migrate: unexpected argument %q (flags only; see server migrate -h)", fs.Arg(0))
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if v := getenv(envName("data")); v != "" && !given["data"] {
		*data = v
	}
	if v := getenv(envName("database")); v != "" && !given["to"] {
		*to = v
	}
	if *to == "" {
		return errors.New("migrate: -to is required: the PostgreSQL URL to copy into (or SCOPEKIT_DATABASE)")
	}
	if err := checkDatabaseURL(*to); err != nil {
		return fmt.Errorf("migrate: invalid value %q for -to: %v", redactURL(*to), err)
	}
	if *batch <= 0 {
		return fmt.Errorf("migrate: invalid value %d for -batch: must be a positive whole number", *batch)
	}
	where := redactURL(*to)
	fmt.Fprintf(stderr, "migrate: copying %s into %s\n", *data, where)
	start := time.Now()
	rep, err := storemove.Move(ctx, *data, *to, scoping.DefaultSchema(), storemove.Options{Batch: *batch, Progress: func(p storemove.Progress) {
		if p.Done {
			fmt.Fprintf(stderr, "migrate: %s: %d\n", p.Set, p.Copied)
		}
	}})
	switch {
	case errors.Is(err, boltstore.ErrLocked):
		return fmt.Errorf("migrate: %s is in use by another process: stop the server before migrating", *data)
	case errors.Is(err, storemove.ErrRefused):
		return fmt.Errorf("migrate: %s: %w", where, err)
	case err != nil && ctx.Err() != nil:
		return fmt.Errorf("migrate: interrupted after %d rows; run the same command again to finish the copy", rep.Rows)
	case err != nil:
		return fmt.Errorf("migrate: %w", err)
	}
	if rep.Already {
		fmt.Fprintf(stdout, "%s holds a complete copy of %s already (finished %s); nothing to do.\n",
			where, *data, rep.Finished.UTC().Format(time.RFC3339))
		return nil
	}
	how := "Copied"
	if rep.Resumed {
		how = "Finished the interrupted copy of"
	}
	fmt.Fprintf(stdout, "%s %s (sha256 %s) into %s: %d rows in %s. The counts match:\n  %s\n",
		how, *data, rep.SHA256, where, rep.Rows, time.Since(start).Round(time.Millisecond), strings.Join(rep.Summary(), "\n  "))
	key := *data + ".key"
	if _, err := os.Stat(key); err == nil {
		fmt.Fprintf(stdout, "Webhook secrets stay sealed with %s: start the server with -database and -secret-key-file %s.\n", key, key)
	}
	return nil
}
