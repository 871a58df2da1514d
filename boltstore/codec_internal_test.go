package boltstore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/engine"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

var testKey = []byte{0, 0, 0, 0, 0, 0, 0, 42}

// viaJSON is what the JSON form gives back for r.
func viaJSON(t *testing.T, r *engine.Record) *engine.Record {
	t.Helper()
	v, err := json.Marshal(r)
	require.NoError(t, err)
	got, err := decodeRecord(r.Type, r.AccountID, testKey, v)
	require.NoError(t, err)
	return got
}

// normal makes empty relationship lists comparable (JSON keeps [] and
// null apart, the binary form does not: both mean no ids).
func normal(r *engine.Record) *engine.Record {
	for k, v := range r.Rels {
		if len(v) == 0 {
			r.Rels[k] = nil
		}
	}
	return r
}

func randValue(r *rand.Rand, depth int) any {
	texts := []string{"", "plain", "Zürich — ☃", "<b>&amp;</b>", "line\nbreak\t\"quoted\"", "\u2028", "1999.99"}
	switch n := r.IntN(11); {
	case n == 0:
		return nil
	case n <= 3:
		return texts[r.IntN(len(texts))]
	case n == 4:
		return r.IntN(2) == 0
	case n == 5:
		return json.Number([]string{"0", "-12", "3.25", "1e9", "-0.5E-3"}[r.IntN(5)])
	case n == 6:
		return int64(r.IntN(1000)) - 500
	case n == 7:
		return []string{"network", "security"}
	case depth > 3:
		return "leaf"
	case n == 8:
		m := map[string]any{}
		for i := range r.IntN(4) {
			m[fmt.Sprint("k", i)] = randValue(r, depth+1)
		}
		return m
	default:
		a := []any{}
		for range r.IntN(4) {
			a = append(a, randValue(r, depth+1))
		}
		return a
	}
}

// Ensure the binary form gives back exactly what the JSON form does, for
// every kind of value records hold.
func TestBinaryFormMatchesJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		rec := engine.NewRecord("projects", "7")
		rec.ID = "42"
		for j := range r.IntN(12) {
			rec.Attrs[fmt.Sprint("attr-", j)] = randValue(r, 0)
		}
		for j := range r.IntN(4) {
			ids := []string{}
			for k := range r.IntN(3) {
				ids = append(ids, fmt.Sprint(k+1))
			}
			rec.Rels[fmt.Sprint("rel-", j)] = ids
		}
		rec.CreatedAt, rec.UpdatedAt = "2026-01-02T03:04:05.000000Z", "2026-01-02T03:04:06.000000Z"
		v, err := encodeRecord(rec)
		require.NoError(t, err)
		require.Equal(t, byte(binVersion), v[0], "case %d is covered by the binary form", i)
		got, err := decodeRecord(rec.Type, rec.AccountID, testKey, v)
		require.NoError(t, err)
		require.Equal(t, normal(viaJSON(t, rec)), normal(got), "case %d", i)
	}
}

// Ensure values the binary form does not cover are stored as JSON and
// read back as JSON would.
func TestBinaryFormFallsBackToJSON(t *testing.T) {
	for name, v := range map[string]any{
		"float":         1.5,
		"invalid UTF-8": "a\xffb",
		"bad number":    json.Number("1e"),
		"string map":    map[string]string{"a": "b"},
	} {
		rec := engine.NewRecord("clients", "1")
		rec.ID = "42"
		rec.Attrs["x"] = v
		enc, err := encodeRecord(rec)
		if name == "bad number" {
			require.Error(t, err, "JSON refuses it too")
			continue
		}
		require.NoError(t, err, name)
		require.Equal(t, byte('{'), enc[0], name)
		got, err := decodeRecord("clients", "1", testKey, enc)
		require.NoError(t, err)
		require.Equal(t, viaJSON(t, rec), got, name)
	}
}

// Ensure a file written with JSON records reads the same and is rewritten
// in the binary form when opened.
func TestOpenRewritesJSONRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.db")
	db := openTest(t, path)
	rec := engine.NewRecord("clients", "3")
	rec.Attrs["name"], rec.Attrs["active"] = "Globex", true
	rec.Attrs["user-defined-fields"] = map[string]any{"tier": json.Number("2")}
	require.NoError(t, db.Update(t.Context(), func(tx engine.Tx) error { return tx.Insert(rec) }))
	k, _ := idKey(rec.ID)
	old, err := json.Marshal(rec)
	require.NoError(t, err)
	require.NoError(t, db.bolt.Update(func(tx *bolt.Tx) error { // as an earlier version wrote it
		return tx.Bucket(bucketRec).Bucket([]byte("clients")).Bucket([]byte("3")).Put(k, old)
	}))
	var before *engine.Record
	require.NoError(t, db.View(t.Context(), func(tx engine.Tx) error {
		before, err = tx.Get("clients", "3", rec.ID)
		return err
	}))
	require.NoError(t, db.Close())

	db = openTest(t, path)
	defer db.Close()
	require.NoError(t, db.bolt.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketRec).Bucket([]byte("clients")).Bucket([]byte("3")).Get(k)
		require.Equal(t, byte(binVersion), v[0])
		return nil
	}))
	require.NoError(t, db.View(t.Context(), func(tx engine.Tx) error {
		after, err := tx.Get("clients", "3", rec.ID)
		require.NoError(t, err)
		require.Equal(t, before, after)
		return nil
	}))
}

// FuzzDecodeBinary: damaged stored bytes give an error, never a panic.
func FuzzDecodeBinary(f *testing.F) {
	rec := engine.NewRecord("projects", "1")
	rec.Attrs["name"], rec.Attrs["tags"] = "x", []any{"a", json.Number("1"), map[string]any{"k": nil}}
	rec.Rels["client"] = []string{"4"}
	v, _ := encodeRecord(rec)
	f.Add(v)
	f.Add([]byte{binVersion, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := decodeBinary("projects", "1", testKey, append([]byte{binVersion}, bytes.TrimPrefix(b, []byte{binVersion})...))
		if err != nil {
			return
		}
		// what decodes encodes back to the same record (text that is not
		// UTF-8, which the store never writes, goes to JSON and changes)
		again, err := encodeRecord(r)
		require.NoError(t, err)
		if again[0] == binVersion {
			r2, err := decodeRecord("projects", "1", testKey, again)
			require.NoError(t, err)
			require.Equal(t, normal(r), normal(r2))
		}
	})
}

// Ensure the decoded-token cache follows the stored record: a replaced
// token reads as replaced, a deleted one is gone, and callers get copies.
func TestTokenCacheFollowsStore(t *testing.T) {
	db := openTest(t, filepath.Join(t.TempDir(), "t.db"))
	ctx, s := t.Context(), db.AuthStore()
	tok := &auth.Token{Digest: []byte("digest"), Kind: auth.KindAccess, UserID: "1", AccountID: "2",
		CreatedAt: time.Unix(100, 0).UTC(), ExpiresAt: time.Unix(200, 0).UTC()}
	require.NoError(t, s.PutToken(ctx, tok))
	for range 2 {
		got, err := s.TokenByDigest(ctx, tok.Digest)
		require.NoError(t, err)
		require.Equal(t, "1", got.UserID)
		got.UserID = "changed by the caller"
	}
	tok.UserID = "3"
	require.NoError(t, s.PutToken(ctx, tok))
	got, err := s.TokenByDigest(ctx, tok.Digest)
	require.NoError(t, err)
	require.Equal(t, "3", got.UserID)
	require.NoError(t, s.DeleteToken(ctx, tok.Digest))
	_, err = s.TokenByDigest(ctx, tok.Digest)
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))
}
