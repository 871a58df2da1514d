package webhook_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/scopekit/scopekit/webhook"
	"github.com/stretchr/testify/require"
)

// claimingStore is a Store shared with other (imaginary) processes: a
// claiming query hands out each delivery once, as a claiming store does
// while its claim holds; it records renewals and completions.
type claimingStore struct {
	mu        sync.Mutex
	due       []*webhook.Delivery
	renewed   map[string]int
	completed map[string]int
}

func (s *claimingStore) Deliveries(_ context.Context, q *webhook.DeliveryQuery) ([]*webhook.Delivery, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if q.ClaimUntil.IsZero() {
		return nil, errors.New("the dispatcher of a claiming store must claim")
	}
	var out, rest []*webhook.Delivery
	for _, d := range s.due {
		if len(out) < q.Limit && !q.Skip.Deliveries[d.ID] && !q.Skip.Subscriptions[d.Subscription.ID] {
			out = append(out, d)
		} else {
			rest = append(rest, d)
		}
	}
	s.due = rest
	return out, nil
}

func (s *claimingStore) Complete(_ context.Context, outcomes []*webhook.Outcome) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, o := range outcomes {
		s.completed[o.Delivery.ID]++
	}
	return nil
}

func (s *claimingStore) Purge(context.Context, time.Time) (int, error) { return 0, nil }

func (s *claimingStore) ClaimTTL() time.Duration { return 60 * time.Millisecond }

func (s *claimingStore) RenewClaims(_ context.Context, _ time.Time, ds []*webhook.Delivery) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, d := range ds {
		s.renewed[d.ID]++
	}
	return nil
}

func (s *claimingStore) counts() (renewed, completed map[string]int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	renewed, completed = map[string]int{}, map[string]int{}
	for k, v := range s.renewed {
		renewed[k] = v
	}
	for k, v := range s.completed {
		completed[k] = v
	}
	return renewed, completed
}

type plainSecrets struct{}

func (plainSecrets) Open(sealed []byte) ([]byte, error) { return sealed, nil }

// Ensure the dispatcher keeps what a claiming store's Due handed it: the
// claims of deliveries in flight are renewed while a slow receiver holds
// them, and deliveries beyond their subscription's free slots wait for a
// slot instead of being dropped until their claim runs out.
func TestDispatcherHoldsItsClaims(t *testing.T) {
	release := make(chan struct{})
	var posts atomic.Int32
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if posts.Add(1) == 1 {
			<-release // the first attempt is slow: several claim periods
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	defer recv.Close()

	sub := webhook.Subscription{ID: "7", URL: recv.URL, Active: true, SealedSecret: []byte("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")}
	st := &claimingStore{renewed: map[string]int{}, completed: map[string]int{}}
	for i := 1; i <= 3; i++ {
		st.due = append(st.due, &webhook.Delivery{ID: strconv.Itoa(i), AccountID: "1", Subscription: sub,
			Event: webhook.Event{ID: strconv.Itoa(i), Type: "project_status_changed", SubjectType: "projects", SubjectID: "1", OccurredAt: time.Now()}})
	}
	d := &webhook.Dispatcher{Store: st, Secrets: plainSecrets{}, AllowPrivate: true, PerSubscription: 1,
		PollInterval: 10 * time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()

	require.Eventually(t, func() bool {
		renewed, _ := st.counts()
		return renewed["1"] >= 3 && renewed["2"] >= 3 && renewed["3"] >= 3
	}, 5*time.Second, 5*time.Millisecond, "the claims of a slow attempt and of the deliveries waiting for its slot are renewed")
	close(release)
	require.Eventually(t, func() bool {
		_, completed := st.counts()
		return len(completed) == 3
	}, 5*time.Second, 5*time.Millisecond, "the waiting deliveries are attempted once a slot frees")
	cancel()
	require.NoError(t, <-done)
	_, completed := st.counts()
	require.Equal(t, map[string]int{"1": 1, "2": 1, "3": 1}, completed)
	require.EqualValues(t, 3, posts.Load())
}
