package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/scopekit/scopekit/internal/safehttp"
	"github.com/scopekit/scopekit/scoping/views"
)

// Defaults of the Dispatcher's zero fields.
const (
	DefaultTimeout         = 15 * time.Second
	DefaultPollInterval    = time.Second
	DefaultRetention       = 30 * 24 * time.Hour
	DefaultDisableAfter    = 5 * 24 * time.Hour
	DefaultPerSubscription = 64
	DefaultMaxInFlight     = 512
	DefaultShutdownGrace   = 5 * time.Second
	// MaxRetryAfter caps how long a receiver's Retry-After may postpone
	// the next attempt: a longer one (or an HTTP date further out) counts
	// as this long, so a receiver cannot park deliveries indefinitely.
	MaxRetryAfter = 24 * time.Hour
)

// DefaultSchedule is the delay before each attempt (docs/webhooks.md).
var DefaultSchedule = []time.Duration{0, 5 * time.Second, 5 * time.Minute, 30 * time.Minute,
	2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour}

// Observer is told what became of each attempt: its outcome, one of
// views.PublicationDelivered, PublicationRejected and PublicationFailed,
// or OutcomeDropped (the subscription is inactive: no attempt was made).
// It is called from the attempts' goroutines.
type Observer interface {
	Attempted(outcome string)
}

// OutcomeDropped is the outcome of a delivery dropped without an attempt.
const OutcomeDropped = "dropped"

// Opener opens sealed secrets (Sealer implements it).
type Opener interface {
	Open(sealed []byte) ([]byte, error)
}

// Dispatcher delivers pending deliveries from its Store. Set the fields,
// then call Run; Notify wakes it early. The zero value of each optional
// field is its default.
type Dispatcher struct {
	Store   Store  // required
	Secrets Opener // required: opens subscription secrets
	// Client sends the deliveries. Default: DefaultTimeout, no redirects
	// followed, no proxy, and (unless AllowPrivate) connections to
	// non-public addresses refused at dial time.
	Client *http.Client
	// Schedule is the delay before each attempt, the first before the
	// first attempt (that one is applied when the delivery is queued);
	// when it is exhausted the delivery is given up. Default
	// DefaultSchedule.
	Schedule []time.Duration
	// Jitter spreads each retry delay by up to this fraction either way
	// (0.2: ±20%); 0 means no jitter.
	Jitter float64
	// AllowPrivate admits http and non-public destinations.
	AllowPrivate bool
	// PollInterval is how often the store is read when nothing wakes the
	// dispatcher.
	PollInterval time.Duration
	// Retention is how long publications, and events that no delivery
	// waits on, are kept.
	Retention time.Duration
	// DisableAfter disables a subscription whose attempts have failed for
	// this long in a row.
	DisableAfter time.Duration
	// PerSubscription bounds the attempts in flight to one subscription, so
	// that a slow receiver cannot take the slots of others; MaxInFlight
	// bounds them all.
	PerSubscription int
	MaxInFlight     int
	// ShutdownGrace is how long attempts in flight may finish once Run's
	// context is canceled; attempts cut off are not recorded and stay
	// pending.
	ShutdownGrace time.Duration
	Now           func() time.Time
	Logger        *slog.Logger
	// Observer, when set, is told the outcome of every attempt (package
	// observe counts them).
	Observer Observer

	once sync.Once
	wake chan struct{}

	mu       sync.Mutex
	inflight map[string]*Delivery // held: returned by Due and not yet recorded, by id
	waiting  []*Delivery          // held but not started: their subscription had no free slot
	perSub   map[string]int       // subscription id -> attempts in flight
}

func (d *Dispatcher) init() {
	d.once.Do(func() {
		d.wake = make(chan struct{}, 1)
		d.inflight, d.perSub = map[string]*Delivery{}, map[string]int{}
		if d.Client == nil {
			d.Client = safehttp.NewClient(DefaultTimeout, d.AllowPrivate)
		}
		if len(d.Schedule) == 0 {
			d.Schedule = DefaultSchedule
		}
		if d.PollInterval <= 0 {
			d.PollInterval = DefaultPollInterval
		}
		if d.Retention <= 0 {
			d.Retention = DefaultRetention
		}
		if d.DisableAfter <= 0 {
			d.DisableAfter = DefaultDisableAfter
		}
		if d.PerSubscription <= 0 {
			d.PerSubscription = DefaultPerSubscription
		}
		if d.MaxInFlight <= 0 {
			d.MaxInFlight = DefaultMaxInFlight
		}
		if d.ShutdownGrace <= 0 {
			d.ShutdownGrace = DefaultShutdownGrace
		}
		if d.Now == nil {
			d.Now = func() time.Time { return time.Now().UTC() }
		}
		if d.Logger == nil {
			d.Logger = slog.Default()
		}
	})
}

// Notify wakes the dispatcher to look for due deliveries now (after a
// commit that queued some). It never blocks; it fits
// scoping.WebhookConfig.Notify.
func (d *Dispatcher) Notify() {
	d.init()
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// Run delivers until ctx is canceled, then lets attempts in flight finish
// (at most ShutdownGrace), records them and returns. Undelivered work stays
// in the store: a later Run resumes it.
func (d *Dispatcher) Run(ctx context.Context) error {
	d.init()
	if d.Store == nil || d.Secrets == nil {
		return errors.New("webhook: Dispatcher needs a Store and Secrets")
	}
	attemptCtx, cancelAttempts := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelAttempts()
	outcomes := make(chan *Outcome, 1024)
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		d.write(outcomes)
	}()

	if r, ok := d.Store.(ClaimRenewer); ok {
		stopRenew := make(chan struct{})
		renewDone := make(chan struct{})
		go func() {
			defer close(renewDone)
			d.renew(r, stopRenew)
		}()
		defer func() { close(stopRenew); <-renewDone }()
	}

	var wg sync.WaitGroup
	ticker := time.NewTicker(d.PollInterval)
	defer ticker.Stop()
	lastPurge := time.Time{}
	for ctx.Err() == nil {
		if err := d.dispatch(ctx, attemptCtx, &wg, outcomes); err != nil && ctx.Err() == nil {
			d.Logger.Error("webhook: reading due deliveries", "err", err)
		}
		if now := d.Now(); now.Sub(lastPurge) > time.Hour {
			lastPurge = now
			if n, err := d.Store.Purge(ctx, now.Add(-d.Retention)); err != nil && ctx.Err() == nil {
				d.Logger.Error("webhook: purging publications", "err", err)
			} else if n > 0 {
				d.Logger.Info("webhook: purged old publications", "count", n)
			}
		}
		select {
		case <-ctx.Done():
		case <-d.wake:
		case <-ticker.C:
		}
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(d.ShutdownGrace):
		cancelAttempts()
		<-done
	}
	close(outcomes)
	<-writerDone
	return nil
}

// dispatch starts an attempt for every due delivery not already held,
// within the per-subscription and overall bounds. A delivery whose
// subscription has no free slot is held (its claim kept) until one frees.
func (d *Dispatcher) dispatch(ctx, attemptCtx context.Context, wg *sync.WaitGroup, out chan<- *Outcome) error {
	d.mu.Lock()
	waiting := d.waiting
	d.waiting = nil
	for _, dl := range waiting {
		d.startLocked(attemptCtx, wg, out, dl)
	}
	free := d.MaxInFlight - len(d.inflight)
	skip := Skip{Deliveries: make(map[string]bool, len(d.inflight)), Subscriptions: map[string]bool{}}
	for id := range d.inflight {
		skip.Deliveries[id] = true
	}
	for id, n := range d.perSub {
		if n >= d.PerSubscription {
			skip.Subscriptions[id] = true
		}
	}
	d.mu.Unlock()
	if free <= 0 || (free < d.MaxInFlight/4 && len(skip.Deliveries) > 0) {
		return nil // reading the store for a few slots costs more than waiting for more to free up
	}
	due, err := Due(ctx, d.Store, d.Now(), free, skip)
	if err != nil {
		return err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, dl := range due {
		if d.inflight[dl.ID] != nil {
			continue
		}
		d.inflight[dl.ID] = dl
		d.startLocked(attemptCtx, wg, out, dl)
	}
	return nil
}

// startLocked starts the attempt of a held delivery, or keeps it waiting
// when its subscription has no free slot. d.mu is held.
func (d *Dispatcher) startLocked(attemptCtx context.Context, wg *sync.WaitGroup, out chan<- *Outcome, dl *Delivery) {
	sub := dl.Subscription.ID
	if d.perSub[sub] >= d.PerSubscription {
		d.waiting = append(d.waiting, dl)
		return
	}
	d.perSub[sub]++
	wg.Add(1)
	go func() {
		defer wg.Done()
		o := d.attempt(attemptCtx, dl)
		if o == nil { // cut off by shutdown: stays pending
			d.release(dl)
			return
		}
		if d.Observer != nil {
			outcome := OutcomeDropped
			if o.Publication != nil {
				outcome = o.Publication.Status
			}
			d.Observer.Attempted(outcome)
		}
		out <- o
	}()
}

// renew keeps the claims of the held deliveries until stop is closed.
func (d *Dispatcher) renew(r ClaimRenewer, stop <-chan struct{}) {
	every := max(r.ClaimTTL()/3, 10*time.Millisecond)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		d.mu.Lock()
		held := make([]*Delivery, 0, len(d.inflight))
		for _, dl := range d.inflight {
			held = append(held, dl)
		}
		d.mu.Unlock()
		if len(held) == 0 {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), every)
		if err := r.RenewClaims(ctx, d.Now().Add(r.ClaimTTL()), held); err != nil {
			d.Logger.Error("webhook: renewing delivery claims", "err", err, "count", len(held))
		}
		cancel()
	}
}

func (d *Dispatcher) release(dl *Delivery) {
	d.mu.Lock()
	delete(d.inflight, dl.ID)
	if d.perSub[dl.Subscription.ID]--; d.perSub[dl.Subscription.ID] <= 0 {
		delete(d.perSub, dl.Subscription.ID)
	}
	d.mu.Unlock()
}

// write commits outcomes in batches (group commit: one transaction for
// whatever has arrived), then frees their slots and wakes the dispatcher.
func (d *Dispatcher) write(in <-chan *Outcome) {
	for o := range in {
		batch := []*Outcome{o}
	more:
		for len(batch) < 1000 {
			select {
			case o, ok := <-in:
				if !ok {
					break more
				}
				batch = append(batch, o)
			default:
				break more
			}
		}
		if err := d.Store.Complete(context.Background(), batch); err != nil {
			d.Logger.Error("webhook: recording attempts (they will be retried)", "err", err, "count", len(batch))
		}
		for _, o := range batch {
			d.release(o.Delivery)
		}
		d.Notify()
	}
}

// attempt makes one attempt of dl and returns its outcome; nil when ctx
// ended first (shutdown).
func (d *Dispatcher) attempt(ctx context.Context, dl *Delivery) *Outcome {
	o := &Outcome{Delivery: dl}
	if !dl.Subscription.Active {
		return o // dropped: an attempt that never happened has no record
	}
	n := dl.Attempt + 1
	body := Body(&dl.Event)
	start := d.Now()
	p := &Publication{Attempt: n, Payload: body, CreatedAt: start}
	o.Publication = p
	status, retryAfter, err := d.post(ctx, dl, body, start)
	if err != nil && ctx.Err() != nil {
		return nil
	}
	p.CompletedAt, p.ResponseStatus = d.Now(), status
	switch {
	case err != nil:
		p.Status, p.Error = views.PublicationFailed, err.Error()
	case status >= 200 && status < 300:
		p.Status = views.PublicationDelivered
		return o
	default:
		p.Status, p.Error = views.PublicationRejected, fmt.Sprintf("the receiver answered %d %s", status, http.StatusText(status))
	}
	now := p.CompletedAt
	fs := dl.Subscription.FailingSince
	switch {
	case status == http.StatusGone:
		o.Disable = "the receiver answered 410 Gone"
	case !fs.IsZero() && now.Sub(fs) >= d.DisableAfter:
		o.Disable = fmt.Sprintf("deliveries failed for %s in a row (since %s)", d.DisableAfter, fs.Format(time.RFC3339))
	case n >= len(d.Schedule):
		p.Error += fmt.Sprintf("; gave up after %d attempts", n)
	default:
		delay := d.jitter(d.Schedule[n])
		if retryAfter > delay {
			delay = retryAfter
		}
		o.Next = now.Add(delay)
		p.NextAttemptAt = o.Next
		return o
	}
	if o.Disable != "" {
		p.Error += "; subscription disabled: " + o.Disable
	}
	return o
}

func (d *Dispatcher) jitter(delay time.Duration) time.Duration {
	if d.Jitter <= 0 || delay <= 0 {
		return delay
	}
	f := 1 + d.Jitter*(2*rand.Float64()-1)
	return time.Duration(float64(delay) * f)
}

// post sends one signed delivery and returns the answer's status and
// Retry-After (0 when none).
func (d *Dispatcher) post(ctx context.Context, dl *Delivery, body []byte, now time.Time) (int, time.Duration, error) {
	if _, err := checkURL(dl.Subscription.URL, d.AllowPrivate); err != nil {
		return 0, 0, fmt.Errorf("destination-url %v", err)
	}
	secret, err := d.Secrets.Open(dl.Subscription.SealedSecret)
	if err != nil {
		return 0, 0, err
	}
	sig, err := Sign(string(secret), dl.Event.ID, now, body)
	if err != nil {
		return 0, 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, dl.Subscription.URL, bytes.NewReader(body))
	if err != nil {
		return 0, 0, err
	}
	req.Header.Set("Content-Type", MediaType)
	req.Header.Set("User-Agent", "ScopeKit-Webhooks/1")
	req.Header.Set("webhook-id", dl.Event.ID)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(now.Unix(), 10))
	req.Header.Set("webhook-signature", sig)
	res, err := d.Client.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10)) // lets the connection be reused
	return res.StatusCode, retryAfter(res.Header.Get("Retry-After"), d.Now()), nil
}

// retryAfter parses a Retry-After value: seconds or an HTTP date, at most
// MaxRetryAfter.
func retryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	s, err := strconv.ParseUint(v, 10, 64)
	if errors.Is(err, strconv.ErrRange) {
		return MaxRetryAfter
	}
	if err == nil && s > 0 {
		return time.Duration(min(s, uint64(MaxRetryAfter/time.Second))) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return min(t.Sub(now), MaxRetryAfter)
	}
	return 0
}
