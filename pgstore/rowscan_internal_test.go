package pgstore

import (
	"encoding/binary"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Ensure scanCopied reads a record row exactly as pgx.ScanRow does, in
// the binary and the text formats, and leaves anything else to it.
func TestScanCopied(t *testing.T) {
	be := func(n int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(n)) }
	field := func(oid uint32, format int16) pgconn.FieldDescription {
		return pgconn.FieldDescription{DataTypeOID: oid, Format: format}
	}
	for _, format := range []int16{pgtype.BinaryFormatCode, pgtype.TextFormatCode} {
		fields := []pgconn.FieldDescription{field(pgtype.TextOID, format), field(pgtype.Int8OID, format), field(pgtype.JSONBOID, format), field(pgtype.TextOID, format)}
		id, attrs := []byte("42"), []byte(`{"name": "Ünïcode \"x\""}`)
		if format == pgtype.BinaryFormatCode {
			id, attrs = be(42), append([]byte{1}, attrs...)
		}
		raw := [][]byte{[]byte("projects"), id, attrs, {}}
		var typ, empty string
		var n int64
		var js []byte
		ok, err := scanCopied(fields, raw, []any{&typ, &n, &js, &empty})
		require.NoError(t, err)
		require.True(t, ok)
		var typ2, empty2 string
		var n2 int64
		var js2 []byte
		require.NoError(t, pgx.ScanRow(pgtype.NewMap(), fields, raw, &typ2, &n2, &js2, &empty2))
		assert.Equal(t, [3]any{typ2, n2, string(js2)}, [3]any{typ, n, string(js)}, "format %d", format)
		assert.Equal(t, "", empty)
	}
	var s string
	var n int64
	for _, tc := range []struct {
		field pgconn.FieldDescription
		raw   []byte
		dest  any
	}{
		{field(pgtype.Int4OID, pgtype.BinaryFormatCode), be(1)[4:], &n}, // another type
		{field(pgtype.Int8OID, pgtype.BinaryFormatCode), []byte{1, 2}, &n},
		{field(pgtype.TextOID, pgtype.TextFormatCode), nil, &s}, // NULL
		{field(pgtype.JSONBOID, pgtype.BinaryFormatCode), []byte{2, '{', '}'}, new([]byte)},
		{field(pgtype.TextOID, pgtype.TextFormatCode), []byte("x"), new(any)},
	} {
		ok, err := scanCopied([]pgconn.FieldDescription{tc.field}, [][]byte{tc.raw}, []any{tc.dest})
		assert.NoError(t, err)
		assert.False(t, ok, "%+v", tc.field)
	}
	_, err := scanCopied([]pgconn.FieldDescription{field(pgtype.Int8OID, pgtype.TextFormatCode)}, [][]byte{[]byte("x")}, []any{&n})
	assert.Error(t, err)
	js := []byte("stale")
	ok, err := scanCopied([]pgconn.FieldDescription{field(pgtype.JSONBOID, pgtype.BinaryFormatCode)}, [][]byte{nil}, []any{&js})
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Nil(t, js, "a NULL jsonb is nil, as pgx scans it")
}

// Ensure scanRecordRow reads a record row (with its count) as
// pgx.ScanRow reads it, a row sent without its text included, and
// leaves a row of other columns to pgx.
func TestScanRecordRow(t *testing.T) {
	be := func(n int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(n)) }
	f := func(oid uint32) pgconn.FieldDescription {
		return pgconn.FieldDescription{DataTypeOID: oid, Format: pgtype.BinaryFormatCode}
	}
	fields := []pgconn.FieldDescription{f(pgtype.TextOID), f(pgtype.TextOID), f(pgtype.Int8OID), f(pgtype.Int8OID),
		f(pgtype.JSONBOID), f(pgtype.JSONBOID), f(pgtype.TextOID), f(pgtype.TextOID), f(pgtype.Int8OID)}
	for _, attrs := range [][]byte{append([]byte{1}, `{"name":"x"}`...), nil} {
		raw := [][]byte{[]byte("clients"), []byte("1"), be(7), be(901), attrs, append([]byte{1}, `{}`...),
			[]byte("2026-01-01T00:00:00Z"), []byte("2026-01-02T00:00:00Z"), be(20)}
		var typ, acct string
		var s stored
		var n int64
		ok, err := scanRecordRow(fields, raw, &typ, &acct, &s, []*int64{&n})
		require.NoError(t, err)
		require.True(t, ok)
		var want stored
		var wtyp, wacct string
		var wn int64
		require.NoError(t, pgx.ScanRow(pgtype.NewMap(), fields, raw, &wtyp, &wacct, &want.id, &want.xmin, &want.attrs, &want.rels,
			&want.createdAt, &want.updatedAt, &wn))
		assert.Equal(t, [3]any{wtyp, wacct, wn}, [3]any{typ, acct, n})
		assert.Equal(t, want, s)
	}
	var typ, acct string
	var s stored
	ok, err := scanRecordRow(fields[:8], [][]byte{[]byte("x"), []byte("1"), {1, 2}, nil, nil, nil, nil, nil}, &typ, &acct, &s, nil)
	assert.NoError(t, err)
	assert.False(t, ok)
}
