package docgen_test

import (
	"context"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/boltstore/bolttest"
	"github.com/scopekit/scopekit/docgen"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/pgstore"
	"github.com/scopekit/scopekit/pgstore/pgtest"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.DropSchemas()
	os.Exit(code)
}

// twoInstances runs fn with the env of a first instance and the store a
// second instance opens on the same data: one bbolt file (one handle:
// bbolt locks its file), and, when SCOPEKIT_TEST_DATABASE is set, one
// PostgreSQL database opened twice.
func twoInstances(t *testing.T, fn func(t *testing.T, e *env, second engine.Store)) {
	t.Run("bbolt", func(t *testing.T) {
		db := bolttest.Open(t, scoping.DefaultSchema())
		fn(t, mustEnvOn(t, db), db)
	})
	t.Run("postgres", func(t *testing.T) {
		url := pgtest.URL(t)
		var dbs [2]*pgstore.DB
		for i := range dbs {
			db, err := pgstore.Open(context.Background(), url, scoping.DefaultSchema())
			require.NoError(t, err)
			t.Cleanup(func() { db.Close() })
			dbs[i] = db
		}
		fn(t, mustEnvOn(t, dbs[0]), dbs[1])
	})
}

// changesOf lists the status changes of a document's events, old>new.
func (e *env) changesOf(t *testing.T, id string) []string {
	t.Helper()
	events, err := e.svc.Events(context.Background(), "", 0)
	require.NoError(t, err)
	var changes []string
	for _, ev := range events {
		if ev.Str("subject-id") == id {
			changes = append(changes, ev.Str("old-status")+">"+ev.Str("new-status"))
		}
	}
	return changes
}

// run starts p until the test ends.
func run(t *testing.T, p *docgen.Pool) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- p.Run(ctx) }()
	t.Cleanup(func() { cancel(); require.NoError(t, <-done) })
}

// Ensure an instance that starts while another one generates a document
// leaves it to that one: the first worker renews its lease, so the
// document is generated once, with one event per status change.
func TestLiveClaimIsLeftAlone(t *testing.T) {
	twoInstances(t, func(t *testing.T, e *env, second engine.Store) {
		const lease = 900 * time.Millisecond // roomy: a late renewal on a loaded machine must not lose it
		var generations atomic.Int32
		started := make(chan struct{}, 1)
		slow := func(ctx context.Context, _ *engine.Record) {
			if generations.Add(1) == 1 {
				started <- struct{}{}
			}
			select { // longer than the lease: only renewals keep the claim
			case <-time.After(2 * lease):
			case <-ctx.Done():
			}
		}
		e.pool.Lease, e.pool.Poll, e.pool.BeforeGenerate = lease, 20*time.Millisecond, slow
		_, other := newPool(second)
		other.Lease, other.Poll, other.BeforeGenerate = lease, 20*time.Millisecond, slow

		id := e.queue(t, "pricing", false)
		run(t, e.pool)
		<-started
		run(t, other) // starts (and keeps checking leases) mid-generation
		require.Eventually(t, func() bool { return e.doc(t, id).Str("status") == scoping.DocumentFinished },
			10*time.Second, 10*time.Millisecond)
		time.Sleep(lease) // time for a wrong re-queue to show
		require.Equal(t, scoping.DocumentFinished, e.doc(t, id).Str("status"))
		require.EqualValues(t, 1, generations.Load())
		require.Equal(t, []string{">queued", "queued>generating", "generating>finished"}, e.changesOf(t, id))
	})
}

// Ensure a document whose worker stopped renewing (its instance was
// killed) is re-queued and finished by another running instance once its
// lease runs out, without any restart.
func TestExpiredLeaseIsRequeuedByAnotherInstance(t *testing.T) {
	twoInstances(t, func(t *testing.T, e *env, second engine.Store) {
		id := e.queue(t, "pricing", false)
		e.claimFor(t, time.Minute) // the claim of an instance that is then killed: never renewed

		svc, other := newPool(second)
		var skew atomic.Int64 // the second instance's clock, moved on by the test
		svc.Now = func() time.Time { return time.Now().UTC().Add(time.Duration(skew.Load())) }
		// its own lease is roomy: a renewal late on a loaded machine must
		// not re-queue the document a second time (the killed claim runs out
		// only through the clock moved on below)
		other.Lease, other.Poll = 3*time.Second, 20*time.Millisecond
		run(t, other)
		time.Sleep(350 * time.Millisecond) // the start and a few periodic checks: the lease is live
		require.Equal(t, scoping.DocumentGenerating, e.doc(t, id).Str("status"))

		skew.Store(int64(2 * time.Minute)) // the lease runs out
		require.Eventually(t, func() bool { return e.doc(t, id).Str("status") == scoping.DocumentFinished },
			10*time.Second, 10*time.Millisecond)
		require.Equal(t, []string{">queued", "queued>generating", "generating>queued", "queued>generating", "generating>finished"},
			e.changesOf(t, id))
	})
}

// Ensure a worker whose claim ran out and was taken again cannot store its
// result, renew or release the document; the new claim's result counts.
func TestStaleClaim(t *testing.T) {
	twoInstances(t, func(t *testing.T, e *env, second engine.Store) {
		ctx := context.Background()
		id := e.queue(t, "pricing", false)
		stale := e.claimFor(t, 0) // its lease ran out at once
		n, err := e.svc.RequeueDocuments(ctx)
		require.NoError(t, err)
		require.Equal(t, 1, n)
		svc, _ := newPool(second)
		fresh, err := svc.ClaimDocument(ctx, time.Minute)
		require.NoError(t, err)
		require.Equal(t, id, fresh.Document.ID)
		require.NotEqual(t, stale.Claim, fresh.Claim)

		out := e.pool.Generate(ctx, stale)
		require.Empty(t, out.Failure)
		err = e.svc.FinishDocument(ctx, stale, out)
		require.Equal(t, scopekit.ECONFLICT, scopekit.ErrorCode(err), "%v", err)
		require.Equal(t, scopekit.ECONFLICT, scopekit.ErrorCode(e.svc.RenewDocumentLease(ctx, stale, time.Minute)))
		require.NoError(t, e.svc.ReleaseDocument(ctx, stale))
		doc := e.doc(t, id)
		require.Equal(t, scoping.DocumentGenerating, doc.Str("status"), "the stale result is dropped")
		require.Zero(t, doc.Int("size"))

		// the live claim is renewed and not re-queued; its result is stored
		require.NoError(t, svc.RenewDocumentLease(ctx, fresh, time.Minute))
		n, err = e.svc.RequeueDocuments(ctx)
		require.NoError(t, err)
		require.Zero(t, n)
		require.NoError(t, svc.FinishDocument(ctx, fresh, &scoping.DocumentOutput{Filename: "f.xlsx", ContentType: "x", File: []byte("fresh")}))
		doc = e.doc(t, id)
		require.Equal(t, scoping.DocumentFinished, doc.Str("status"))
		require.EqualValues(t, len("fresh"), doc.Int("size"))
		require.Equal(t, scopekit.ECONFLICT, scopekit.ErrorCode(e.svc.FinishDocument(ctx, stale, out)), "still dropped after the finish")
		require.Equal(t, []string{">queued", "queued>generating", "generating>queued", "queued>generating", "generating>finished"},
			e.changesOf(t, id))
	})
}

// Ensure a worker stopped mid-generation (a graceful shutdown) puts its
// document back in the queue at once, and that a worker whose claim was
// taken from it gives up without storing anything.
func TestStoppedAndLostWorkers(t *testing.T) {
	e := mustEnv(t)
	hold := make(chan struct{})
	started := make(chan string, 2)
	e.pool.Workers, e.pool.Lease, e.pool.Poll = 1, 300*time.Millisecond, 10*time.Millisecond
	e.pool.BeforeGenerate = func(ctx context.Context, doc *engine.Record) {
		started <- doc.ID
		select {
		case <-hold:
		case <-ctx.Done():
		}
	}
	id := e.queue(t, "pricing", false)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- e.pool.Run(ctx) }()
	<-started
	cancel()
	require.NoError(t, <-done)
	require.Equal(t, scoping.DocumentQueued, e.doc(t, id).Str("status"), "released at the stop")

	// the claim is taken from the running worker, as a re-queue and a claim
	// elsewhere would: the worker gives up (its one worker is free to
	// claim again) and the document, never renewed, is re-queued and
	// generated once
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	go func() { done <- e.pool.Run(ctx) }()
	<-started
	acct := e.doc(t, id).AccountID
	require.NoError(t, e.db.Update(context.Background(), func(tx engine.Tx) error {
		doc, err := tx.Get("project-documents", acct, id)
		if err != nil {
			return err
		}
		doc.Attrs["claim"] = doc.Int("claim") + 100
		return tx.Replace(doc)
	}))
	select {
	case <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("the worker that lost its claim did not give up")
	}
	close(hold)
	require.Eventually(t, func() bool { return e.doc(t, id).Str("status") == scoping.DocumentFinished },
		10*time.Second, 10*time.Millisecond)
	cancel()
	require.NoError(t, <-done)
	require.Equal(t, []string{">queued", "queued>generating", "generating>queued", "queued>generating",
		"generating>queued", "queued>generating", "generating>finished"}, e.changesOf(t, id))
}
