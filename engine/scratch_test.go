package engine_test

import (
	"context"
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/stretchr/testify/require"
)

// Ensure a scratch transaction's reads see its writes (inserts, replaces,
// deletes and blobs, listed, filtered, sorted and paged as the store
// would) and that the store never does.
func TestScratch(t *testing.T) {
	v := newEnv(t, engine.Hooks{}, engine.Config{})
	ctx := context.Background()
	a := v.mustCreate("boxes", map[string]any{"name": "a"}, nil)
	b := v.mustCreate("boxes", map[string]any{"name": "b"}, nil)
	item := v.mustCreate("items", map[string]any{"title": "kept", "count": 1}, map[string]engine.RelInput{"box": to1("boxes", a.ID)})
	v.mustCreate("items", map[string]any{"title": "other", "count": 5}, map[string]engine.RelInput{"box": to1("boxes", b.ID)})

	err := v.e.Read(ctx, v.admin, engine.Options{}, func(c *engine.Call) error {
		tx := engine.Scratch(c.Tx)
		// an insert gets an id of its own
		n := engine.NewRecord("items", "1")
		n.Attrs["title"], n.Attrs["count"] = "new", "3"
		n.SetRel("box", a.ID)
		require.NoError(t, tx.Insert(n))
		require.Len(t, n.ID, 19)
		require.NotEmpty(t, n.CreatedAt)
		// a replace and a delete
		cur, err := tx.Get("items", "1", item.ID)
		require.NoError(t, err)
		cur.Attrs["title"] = "changed"
		require.NoError(t, tx.Replace(cur))
		require.NoError(t, tx.Delete("boxes", "1", b.ID))
		_, err = tx.Get("boxes", "1", b.ID)
		require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))
		require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(tx.Delete("boxes", "1", b.ID)))
		missing := engine.NewRecord("items", "1")
		missing.ID = "999"
		require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(tx.Replace(missing)))

		// lists hold the writes, filtered, sorted and paged
		q := &engine.Query{Type: "items", AccountID: "1", Where: []engine.Cond{engine.Eq("box", a.ID)},
			Sort: []engine.SortKey{{Field: "count", Numeric: true, Desc: true}}}
		recs, total, err := tx.List(q)
		require.NoError(t, err)
		require.Equal(t, 2, total)
		require.Equal(t, []string{"new", "changed"}, []string{recs[0].Str("title"), recs[1].Str("title")})
		q.Offset, q.Limit = 1, 1
		recs, total, err = tx.List(q)
		require.NoError(t, err)
		require.Equal(t, 2, total)
		require.Equal(t, "changed", recs[0].Str("title"))
		boxes, _, err := tx.List(&engine.Query{Type: "boxes", AccountID: "1"})
		require.NoError(t, err)
		require.Equal(t, []string{a.ID}, ids(boxes))
		// a record read is the caller's: changing it changes nothing
		recs[0].Attrs["title"] = "scribbled"
		again, err := tx.Get("items", "1", item.ID)
		require.NoError(t, err)
		require.Equal(t, "changed", again.Str("title"))

		// blobs
		require.NoError(t, tx.PutBlob("1", "items/file", n.ID, []byte("x")))
		blob, err := tx.Blob("1", "items/file", n.ID)
		require.NoError(t, err)
		require.Equal(t, "x", string(blob))
		require.NoError(t, tx.DeleteBlob("1", "items/file", n.ID))
		_, err = tx.Blob("1", "items/file", n.ID)
		require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))
		_, err = tx.Blob("1", "items/file", "1")
		require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))
		return nil
	})
	require.NoError(t, err)

	// the store holds what it held
	res, err := v.list(v.admin, "items", engine.ListParams{})
	require.NoError(t, err)
	require.Equal(t, 2, res.Total)
	for _, r := range res.Records {
		require.NotEqual(t, "changed", r.Str("title"))
	}
	_, err = v.e.Get(ctx, v.admin, "boxes", b.ID, engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
}
