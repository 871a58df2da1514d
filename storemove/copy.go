package storemove

import (
	"bytes"
	"context"
	"fmt"

	"github.com/scopekit/scopekit/boltstore"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/pgstore"
)

// mover copies the sets of one file, skipping what earlier runs
// committed.
type mover struct {
	opts Options
	dst  *pgstore.DB
	done map[string]mark // by set name, as the target recorded them
	rows int
}

// copy copies records, blobs and auth data, then moves the id sequences
// past the file's.
func (m *mover) copy(ctx context.Context, e *boltstore.Export) error {
	for _, set := range e.RecordSets() {
		if err := m.records(ctx, e, set); err != nil {
			return err
		}
	}
	for _, set := range e.BlobSets() {
		if err := m.blobs(ctx, e, set); err != nil {
			return err
		}
	}
	if err := m.auth(ctx, e); err != nil {
		return err
	}
	return m.dst.Load(ctx, func(l *pgstore.Loader) error {
		for typ, last := range e.Sequences() {
			if err := l.AdvanceSequence(typ, int64(last)); err != nil {
				return fmt.Errorf("id sequence of %s: %w", typ, err)
			}
		}
		return nil
	})
}

// setName names a set in progress reports and in the progress table.
func setName(what, name, accountID string) string {
	if accountID == "" {
		return what + " " + name + " (global)"
	}
	return what + " " + name + " (account " + accountID + ")"
}

func (m *mover) records(ctx context.Context, e *boltstore.Export, set boltstore.RecordSet) error {
	return copySet(ctx, m, setName("records", set.Type, set.AccountID), set.Count,
		func(after string, fn func(*engine.Record) error) error { return e.Records(set, after, fn) },
		func(r *engine.Record) (string, int) { return r.ID, 0 },
		func(l *pgstore.Loader, recs []*engine.Record) error {
			_, err := l.Records(recs)
			return err
		})
}

// blob is a file of a blob set, copied out of the read transaction.
type blob struct {
	id   string
	data []byte
}

func (m *mover) blobs(ctx context.Context, e *boltstore.Export, set boltstore.BlobSet) error {
	return copySet(ctx, m, setName("blobs", set.Kind, set.AccountID), set.Count,
		func(after string, fn func(blob) error) error {
			return e.Blobs(set, after, func(id string, data []byte) error { return fn(blob{id: id, data: bytes.Clone(data)}) })
		},
		func(b blob) (string, int) { return b.id, len(b.data) },
		func(l *pgstore.Loader, blobs []blob) error {
			for _, b := range blobs {
				if err := l.Blob(set.AccountID, set.Kind, b.id, b.data); err != nil {
					return err
				}
			}
			return nil
		})
}

// copySet copies the items of one set that each yields after an id, in
// batches of at most Options.Batch items (and Options.BatchBytes, by the
// sizes key gives), each committed with the set's progress; a set an
// earlier run completed is skipped, one it began continues after its last
// batch.
func copySet[T any](ctx context.Context, m *mover, name string, total int,
	each func(after string, fn func(T) error) error, key func(T) (id string, size int), load func(*pgstore.Loader, []T) error) error {
	mk := m.done[name]
	if mk.done {
		return nil
	}
	var pending []T
	size := 0
	flush := func(done bool) error {
		after := mk.after
		if len(pending) > 0 {
			after, _ = key(pending[len(pending)-1])
		}
		err := m.commit(ctx, name, total, &mk, len(pending), after, done, func(l *pgstore.Loader) error { return load(l, pending) })
		pending, size = pending[:0], 0
		return err
	}
	err := each(mk.after, func(x T) error {
		_, n := key(x)
		if len(pending) > 0 && size+n > m.opts.BatchBytes {
			if err := flush(false); err != nil {
				return err
			}
		}
		pending, size = append(pending, x), size+n
		if len(pending) < m.opts.Batch {
			return nil
		}
		return flush(false)
	})
	if err == nil {
		err = flush(true)
	}
	if err != nil {
		return fmt.Errorf("copy %s: %w", name, err)
	}
	return nil
}

// auth copies each auth table in one transaction: they are small (tokens
// the largest), and every write is an upsert.
func (m *mover) auth(ctx context.Context, e *boltstore.Export) error {
	apps, creds, passwords, tokens, codes, mfa := e.AuthCounts()
	tables := []struct {
		name  string
		count int
		load  func(*pgstore.Loader) error
	}{
		{"auth applications", apps, func(l *pgstore.Loader) error { return e.Applications(l.Application) }},
		{"auth service credentials", creds, func(l *pgstore.Loader) error { return e.ServiceCredentials(l.ServiceCredential) }},
		{"auth passwords", passwords, func(l *pgstore.Loader) error { return e.Passwords(l.Password) }},
		{"auth tokens", tokens, func(l *pgstore.Loader) error { return e.Tokens(l.Token) }},
		{"auth codes", codes, func(l *pgstore.Loader) error { return e.AuthCodes(l.AuthCode) }},
		{"auth second factors", mfa, func(l *pgstore.Loader) error { return e.SecondFactors(l.SecondFactor) }},
	}
	for _, tb := range tables {
		mk := m.done[tb.name]
		if mk.done {
			continue
		}
		if err := m.commit(ctx, tb.name, tb.count, &mk, tb.count, "", true, tb.load); err != nil {
			return fmt.Errorf("copy %s: %w", tb.name, err)
		}
	}
	return nil
}

// commit runs load and records the set's new mark in one transaction,
// then reports the progress.
func (m *mover) commit(ctx context.Context, name string, total int, mk *mark, n int, after string, done bool, load func(*pgstore.Loader) error) error {
	next := mark{after: after, copied: mk.copied + n, done: done}
	err := m.dst.Load(ctx, func(l *pgstore.Loader) error {
		if n > 0 {
			if err := load(l); err != nil {
				return err
			}
		}
		return saveMark(ctx, l.Tx(), name, next)
	})
	if err != nil {
		return err
	}
	*mk = next
	m.rows += n
	if m.opts.Progress != nil {
		m.opts.Progress(Progress{Set: name, Done: done, Copied: next.copied, Total: total, Rows: m.rows})
	}
	return nil
}
