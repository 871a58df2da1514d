package pgstore

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/scopekit/scopekit/engine"
)

// Records are partitioned by type (migration 0006): each declared type
// has a partition of its own with the indexes its declarations ask for;
// records of undeclared types live in records_default.

// partition is the name of the partition of typ's records: 'records:'
// and the type, or its md5 when that would be too long for an identifier
// (as migration 0006 names them).
func partition(typ string) string {
	if len(typ) <= 54 {
		return "records:" + typ
	}
	sum := md5.Sum([]byte(typ))
	return "records:" + hex.EncodeToString(sum[:])
}

// table is where an insert of typ's records goes: its partition when the
// type is declared (no routing per statement), else the partitioned
// table.
func (db *DB) table(typ string) string {
	if _, ok := db.schema.Lookup(typ); ok {
		return pgx.Identifier{partition(typ)}.Sanitize()
	}
	return "records"
}

// dueIndex is the index of the webhook outbox in due order: Deliveries
// claims from its front.
const dueIndex = `CREATE INDEX IF NOT EXISTS records_due ON %s (((attrs ->> 'next-attempt-at') COLLATE "C"), id)`

// syncSchema creates the id sequence and the partition of every declared
// type, and the indexes its declarations ask for (indexed fields for
// filters, sortable fields for sorts), and drops derived indexes no
// declaration asks for any more. Index names carry a digest of their
// definition, so a changed declaration gets a new index. A partition
// created for a type takes over its records from records_default.
func (db *DB) syncSchema(ctx context.Context, conn *pgx.Conn) error {
	parts := map[string]bool{}
	rows, err := conn.Query(ctx, `SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
		WHERE i.inhparent = 'records'::regclass`)
	if err != nil {
		return err
	}
	var rel string
	if _, err := pgx.ForEachRow(rows, []any{&rel}, func() error { parts[rel] = true; return nil }); err != nil {
		return err
	}
	want := map[string]string{}
	var stmts []string
	for _, def := range db.schema.Types() {
		stmts = append(stmts, "CREATE SEQUENCE IF NOT EXISTS "+seqName(def.Name))
		part := partition(def.Name)
		table := pgx.Identifier{part}.Sanitize()
		if !parts[part] {
			typ := quoteLiteral(def.Name)
			stmts = append(stmts, "CREATE TABLE "+table+" (LIKE records INCLUDING DEFAULTS)",
				"INSERT INTO "+table+" SELECT * FROM records_default WHERE type = "+typ,
				"DELETE FROM records_default WHERE type = "+typ,
				"ALTER TABLE records ATTACH PARTITION "+table+" FOR VALUES IN ("+typ+")")
		}
		for _, expr := range indexExprs(def) {
			idx := fmt.Sprintf("ON %s (account_id, %s, id)", table, expr)
			want[fmt.Sprintf("ix_%016x", hash64(idx))] = idx
		}
		if def.Name == "webhook-deliveries" {
			stmts = append(stmts, fmt.Sprintf(dueIndex, table))
		}
	}
	existing := map[string]bool{}
	rows, err = conn.Query(ctx, `SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND indexname LIKE 'ix\_%'`)
	if err != nil {
		return err
	}
	var name string
	if _, err := pgx.ForEachRow(rows, []any{&name}, func() error { existing[name] = true; return nil }); err != nil {
		return err
	}
	for name, def := range want {
		if !existing[name] {
			stmts = append(stmts, "CREATE INDEX "+name+" "+def)
		}
	}
	for name := range existing {
		if _, ok := want[name]; !ok {
			stmts = append(stmts, "DROP INDEX "+name)
		}
	}
	if _, err := conn.Exec(ctx, strings.Join(stmts, ";\n")); err != nil {
		return err
	}
	db.mu.Lock()
	for _, def := range db.schema.Types() {
		db.seqs[def.Name] = true
	}
	db.mu.Unlock()
	return nil
}

// indexExprs lists the index expressions of a type: one per indexed field
// (equality filters compare lower-cased text) and one per sortable
// attribute. Long values (text kinds, bounded in bytes rather than as
// short strings) are left unindexed: a btree entry holds about 2.7 KB.
func indexExprs(def *engine.TypeDef) []string {
	var out []string
	for _, f := range def.IndexedFields() {
		if rd, ok := def.Rel(f); ok && rd.ToMany {
			continue // to-many lists are matched element by element
		}
		if a, ok := def.Attr(f); ok && !short(a) {
			continue
		}
		out = append(out, "lower("+fieldExpr(def, f)+")")
	}
	for _, a := range def.Attrs {
		sk, ok := def.Sortable(a.Name)
		if !ok || !short(&a) {
			continue
		}
		out = append(out, sortExpr(def, sk))
	}
	return out
}

// short reports whether an attribute's values fit an index entry.
func short(a *engine.AttrDef) bool {
	n, unit := a.MaxLength()
	return unit != "bytes" && n <= 255
}

func seqName(typ string) string { return pgx.Identifier{"id:" + typ}.Sanitize() }

func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func hash64(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// ensureSeq creates the id sequence of a type declared after Open (tests
// may store undeclared types).
func (db *DB) ensureSeq(ctx context.Context, typ string) error {
	db.mu.Lock()
	ok := db.seqs[typ]
	db.mu.Unlock()
	if ok {
		return nil
	}
	_, err := db.pool.Exec(ctx, "CREATE SEQUENCE IF NOT EXISTS "+seqName(typ))
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "23505" { // created concurrently
		err = nil
	}
	if err == nil {
		db.mu.Lock()
		db.seqs[typ] = true
		db.mu.Unlock()
	}
	return err
}
