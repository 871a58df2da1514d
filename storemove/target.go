package storemove

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/scopekit/scopekit/pgstore"
)

// The bookkeeping of a move, in the target's schema beside pgstore's
// tables: which file it copies (one row) and how far each set has come.
// They stay after the copy, as a record of where the data came from.
const bookkeeping = `
CREATE TABLE IF NOT EXISTS scopekit_moved_from (
	sha256      text PRIMARY KEY,
	file        text NOT NULL,
	started_at  timestamptz NOT NULL DEFAULT now(),
	finished_at timestamptz
);
CREATE TABLE IF NOT EXISTS scopekit_move_progress (
	set_name text PRIMARY KEY,
	after    text NOT NULL,
	copied   bigint NOT NULL,
	done     boolean NOT NULL
)`

// moveLock is the session advisory lock a move holds on its target, so
// that two moves into one schema do not run at once; it is taken as the
// pair (moveLock, the hash of the target's schema), so that moves into
// other schemas of the database (other instances' stores) go on.
const moveLock = 0x5c09_e002

// target is the session a move holds on its database.
type target struct{ conn *pgx.Conn }

// mark is how far a set has come.
type mark struct {
	after  string // the last id copied
	copied int
	done   bool
}

// targetState is what the target holds of this move.
type targetState struct {
	started  bool      // a copy of this file was begun
	finished time.Time // and completed then
	progress map[string]mark
}

func openTarget(ctx context.Context, url string) (*target, error) {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("connect to the target: %w", err)
	}
	var got bool
	if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1, hashtext(coalesce(current_schema(), '')))", int32(moveLock)).Scan(&got); err != nil {
		conn.Close(ctx)
		return nil, err
	}
	if !got {
		conn.Close(ctx)
		return nil, fmt.Errorf("%w: another migration into this database schema is running", ErrRefused)
	}
	return &target{conn: conn}, nil
}

// close ends the session, which releases the lock.
func (t *target) close() { t.conn.Close(context.Background()) }

// check reads what the target holds: nothing (or pgstore's tables
// without data: checked by start), or a copy of the file with this
// SHA-256. Anything else is refused.
func (t *target) check(ctx context.Context, sum, path string) (*targetState, error) {
	var schema *string
	if err := t.conn.QueryRow(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
		return nil, err
	}
	if schema == nil {
		return nil, fmt.Errorf("%w: the schema of the URL's search_path does not exist (create it first)", ErrRefused)
	}
	rows, err := t.conn.Query(ctx, "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename")
	if err != nil {
		return nil, err
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, err
	}
	st := &targetState{progress: map[string]mark{}}
	var from, file string
	var finished *time.Time
	if slices.Contains(tables, "scopekit_moved_from") {
		err := t.conn.QueryRow(ctx, "SELECT sha256, file, finished_at FROM scopekit_moved_from").Scan(&from, &file, &finished)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) { // no row: no copy begun
			return nil, fmt.Errorf("read scopekit_moved_from: %w", err)
		}
	}
	switch {
	case from != "":
		if from != sum {
			return nil, fmt.Errorf("%w: the database holds a copy of another file (%s, sha256 %s; this one is %s): if it is this file, it changed since (was a server started on it?); migrate into a new empty database or schema",
				ErrRefused, file, from, sum)
		}
		st.started = true
		if finished != nil {
			st.finished = *finished
		}
		rows, err := t.conn.Query(ctx, "SELECT set_name, after, copied, done FROM scopekit_move_progress")
		if err != nil {
			return nil, err
		}
		var name string
		var m mark
		if _, err := pgx.ForEachRow(rows, []any{&name, &m.after, &m.copied, &m.done}, func() error {
			st.progress[name] = m
			return nil
		}); err != nil {
			return nil, err
		}
	case len(tables) > 0 && !slices.Contains(tables, "scopekit_migrations"):
		return nil, fmt.Errorf("%w: the schema holds tables of something else (%s); migrate into a new empty database or schema",
			ErrRefused, list(tables, 5))
	}
	return st, nil
}

// start refuses a database that holds ScopeKit data already (a server
// ran on it), then records the file being copied.
func (t *target) start(ctx context.Context, dst *pgstore.DB, sum, path string) error {
	c, err := dst.Counts(ctx)
	if err != nil {
		return err
	}
	if n := total(c); n > 0 {
		return fmt.Errorf("%w: the database holds ScopeKit data already (rows: %d) that is not a copy of this file; migrate into a new empty database or schema",
			ErrRefused, n)
	}
	return pgx.BeginFunc(ctx, t.conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, bookkeeping); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "INSERT INTO scopekit_moved_from (sha256, file) VALUES ($1, $2)", sum, path)
		return err
	})
}

// finish records the end of the copy.
func (t *target) finish(ctx context.Context) (time.Time, error) {
	var at time.Time
	err := t.conn.QueryRow(ctx, "UPDATE scopekit_moved_from SET finished_at = now() RETURNING finished_at").Scan(&at)
	return at, err
}

// saveMark records, in the transaction of a batch, how far its set has
// come.
func saveMark(ctx context.Context, tx pgx.Tx, set string, m mark) error {
	_, err := tx.Exec(ctx, `INSERT INTO scopekit_move_progress (set_name, after, copied, done) VALUES ($1, $2, $3, $4)
		ON CONFLICT (set_name) DO UPDATE SET after = excluded.after, copied = excluded.copied, done = excluded.done`,
		set, m.after, m.copied, m.done)
	return err
}

// fileSHA256 identifies the file's content: a resumed copy must read the
// same file, unchanged.
func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// list names the first n items of names and how many more there are.
func list(names []string, n int) string {
	if len(names) <= n {
		return fmt.Sprint(names)
	}
	return fmt.Sprintf("%v and %d more", names[:n], len(names)-n)
}
