package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/stretchr/testify/require"
)

// Ensure blobs are kept per account, kind and id, replaced by a second
// put, removed by a delete (a missing one included), rolled back with
// their transaction, returned as the caller's own bytes, and that a
// missing blob is ENOTFOUND.
func testBlobs(t *testing.T, open Opener) {
	s := openDefault(t, open)
	ctx := context.Background()
	big := make([]byte, 3<<20)
	for i := range big {
		big[i] = byte(i * 7)
	}
	blob := func(acct, kind, id string) ([]byte, error) {
		var out []byte
		err := s.View(ctx, func(tx engine.Tx) error {
			var err error
			out, err = tx.Blob(acct, kind, id)
			return err
		})
		return out, err
	}
	require.NoError(t, s.Update(ctx, func(tx engine.Tx) error {
		for _, b := range []struct {
			acct, kind, id string
			data           []byte
		}{{"1", "k/file", "5", []byte("one")}, {"2", "k/file", "5", []byte("two")}, {"1", "k/pdf", "5", big}, {"1", "k/file", "5", []byte("one, again")}} {
			if err := tx.PutBlob(b.acct, b.kind, b.id, b.data); err != nil {
				return err
			}
		}
		got, err := tx.Blob("1", "k/file", "5")
		require.NoError(t, err)
		require.Equal(t, "one, again", string(got), "own writes are visible in the transaction")
		return nil
	}))
	for _, tc := range []struct {
		acct, kind, id string
		want           []byte
	}{{"1", "k/file", "5", []byte("one, again")}, {"2", "k/file", "5", []byte("two")}, {"1", "k/pdf", "5", big}} {
		got, err := blob(tc.acct, tc.kind, tc.id)
		require.NoError(t, err)
		require.Equal(t, tc.want, got)
	}
	got, _ := blob("1", "k/file", "5")
	got[0] = 'X' // the caller's copy
	again, _ := blob("1", "k/file", "5")
	require.Equal(t, "one, again", string(again))
	for _, missing := range [][3]string{{"3", "k/file", "5"}, {"1", "k/file", "6"}, {"1", "other", "5"}} {
		_, err := blob(missing[0], missing[1], missing[2])
		require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err), "%v", missing)
	}

	boom := errors.New("boom")
	err := s.Update(ctx, func(tx engine.Tx) error {
		require.NoError(t, tx.PutBlob("1", "k/file", "7", []byte("ghost")))
		require.NoError(t, tx.DeleteBlob("2", "k/file", "5"))
		return boom
	})
	require.ErrorIs(t, err, boom)
	_, err = blob("1", "k/file", "7")
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err), "a rolled-back put leaves nothing")
	_, err = blob("2", "k/file", "5")
	require.NoError(t, err, "a rolled-back delete leaves the blob")

	require.NoError(t, s.Update(ctx, func(tx engine.Tx) error {
		if err := tx.DeleteBlob("1", "k/pdf", "5"); err != nil {
			return err
		}
		return tx.DeleteBlob("1", "k/pdf", "99") // missing: no error
	}))
	_, err = blob("1", "k/pdf", "5")
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))
	_, err = blob("1", "k/file", "5")
	require.NoError(t, err, "deleting one kind keeps the others")
}
