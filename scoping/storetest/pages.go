package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Ensure a page read again is never older than what was committed before
// the read began, whatever the store keeps of pages it read: while a
// writer renames a record again and again, readers of shared pages each
// see the name of the last commit before they began, or a later one; and
// a record written twice in one transaction after it listed it, or
// written and rolled back after a list, reads as committed.
func testPagesFollowWrites(t *testing.T, open Opener) {
	s := openDefault(t, open)
	ctx := context.Background()
	var recs []*engine.Record
	for i := range 30 {
		recs = append(recs, client("1", fmt.Sprintf("client %02d", i)))
	}
	Insert(t, s, recs...)
	id := recs[7].ID
	page := func(tx engine.Tx) (*engine.Record, error) {
		got, _, err := tx.List(&engine.Query{Type: views.TypeClients, AccountID: "1", Limit: 25, Shared: true})
		if err != nil {
			return nil, err
		}
		for _, r := range got {
			if r.ID == id {
				return r, nil
			}
		}
		return nil, fmt.Errorf("record %s not on the page", id)
	}
	read := func() (string, error) {
		var name string
		err := engine.ViewRerun(ctx, s, func(tx engine.Tx) error {
			r, err := page(tx)
			if err == nil {
				name = r.Str(views.NameName)
			}
			return err
		})
		return name, err
	}
	rename := func(tx engine.Tx, to string) error {
		r, err := tx.Get(views.TypeClients, "1", id)
		if err != nil {
			return err
		}
		r = r.Clone()
		r.Attrs[views.NameName] = to
		return tx.Replace(r)
	}

	const writes = 40
	var committed atomic.Int64 // the last rename committed
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				floor := committed.Load()
				name, err := read()
				if !assert.NoError(t, err) {
					return
				}
				var n int64
				if _, err := fmt.Sscanf(name, "v%d", &n); err != nil {
					n = 0 // the name before the first rename
				}
				if !assert.GreaterOrEqual(t, n, floor, "read %q after v%d was committed", name, floor) {
					return
				}
			}
		}()
	}
	for i := int64(1); i <= writes; i++ {
		require.NoError(t, s.Update(ctx, func(tx engine.Tx) error { return rename(tx, fmt.Sprintf("v%d", i)) }))
		committed.Store(i)
	}
	close(stop)
	wg.Wait()

	name, err := read()
	require.NoError(t, err)
	require.Equal(t, fmt.Sprintf("v%d", writes), name)
	require.NoError(t, s.Update(ctx, func(tx engine.Tx) error {
		if err := rename(tx, "first"); err != nil {
			return err
		}
		if _, err := page(tx); err != nil { // the first value listed
			return err
		}
		return rename(tx, "second")
	}))
	name, err = read()
	require.NoError(t, err)
	require.Equal(t, "second", name, "a record written twice in one transaction")

	boom := errors.New("boom")
	require.ErrorIs(t, s.Update(ctx, func(tx engine.Tx) error {
		if err := rename(tx, "rolled back"); err != nil {
			return err
		}
		if _, err := page(tx); err != nil {
			return err
		}
		return boom
	}), boom)
	name, err = read()
	require.NoError(t, err)
	require.Equal(t, "second", name, "a rolled back write")
}
