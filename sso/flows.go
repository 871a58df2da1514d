package sso

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/auth"
)

// FlowTTL is how long a sign-in may stay at the identity provider.
const FlowTTL = 10 * time.Minute

// maxFlows bounds the sign-ins in progress kept in memory (without
// RelyingParty.Flows); Begin refuses more (ErrBusy) until some finish or
// expire.
const maxFlows = 10000

// Flow is a sign-in in progress: what the callback needs to finish it.
// It is kept in RelyingParty.Flows (the store every instance shares)
// under its state and the browser's binding together, once: Take removes
// it.
type Flow struct {
	ProviderID string
	AccountID  string
	// Request is the application's authorize request, resumed after the
	// sign-in.
	Request auth.AuthorizeRequest
	// Email is what the person typed on the login page.
	Email string

	callback string // the redirect URI sent to the provider
	nonce    string
	verifier string // PKCE code verifier
}

// storedFlow is a Flow as FlowStore keeps it (sealed there).
type storedFlow struct {
	ProviderID string                `json:"provider"`
	AccountID  string                `json:"account"`
	Request    auth.AuthorizeRequest `json:"request"`
	Email      string                `json:"email"`
	Callback   string                `json:"callback"`
	Nonce      string                `json:"nonce"`
	Verifier   string                `json:"verifier"`
}

func (f *Flow) encode() ([]byte, error) {
	return json.Marshal(storedFlow{f.ProviderID, f.AccountID, f.Request, f.Email, f.callback, f.nonce, f.verifier})
}

func decodeFlow(b []byte) (*Flow, error) {
	var s storedFlow
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, err
	}
	return &Flow{ProviderID: s.ProviderID, AccountID: s.AccountID, Request: s.Request, Email: s.Email,
		callback: s.Callback, nonce: s.Nonce, verifier: s.Verifier}, nil
}

// FlowStore keeps the sign-ins in progress: auth.Service does, in its
// store (sealed, under a digest of the key), so that the instance the
// provider sends the browser back to finishes a sign-in another one
// began.
type FlowStore interface {
	// SaveSignIn keeps data under key for ttl.
	SaveSignIn(ctx context.Context, key string, data []byte, ttl time.Duration) error
	// TakeSignIn returns the data kept under key and forgets it;
	// ENOTFOUND when there is none or it expired.
	TakeSignIn(ctx context.Context, key string) ([]byte, error)
}

// memoryFlows is the FlowStore of a RelyingParty without one: this
// process's memory, bounded by maxFlows. A sign-in must then come back
// to the instance that began it.
type memoryFlows struct {
	mu  sync.Mutex
	now func() time.Time
	m   map[string]memoryFlow
}

type memoryFlow struct {
	data    []byte
	expires time.Time
}

// SaveSignIn implements FlowStore, first dropping the expired flows when
// the map is full; ErrBusy when it is still full.
func (fs *memoryFlows) SaveSignIn(_ context.Context, key string, data []byte, ttl time.Duration) error {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	now := fs.now()
	if fs.m == nil {
		fs.m = map[string]memoryFlow{}
	}
	if len(fs.m) >= maxFlows {
		for k, v := range fs.m {
			if !now.Before(v.expires) {
				delete(fs.m, k)
			}
		}
		if len(fs.m) >= maxFlows {
			return ErrBusy
		}
	}
	fs.m[key] = memoryFlow{data: data, expires: now.Add(ttl)}
	return nil
}

// TakeSignIn implements FlowStore.
func (fs *memoryFlows) TakeSignIn(_ context.Context, key string) ([]byte, error) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	f, ok := fs.m[key]
	delete(fs.m, key)
	if !ok || !fs.now().Before(f.expires) {
		return nil, scopekit.Errorf(scopekit.ENOTFOUND, "no such sign-in in progress")
	}
	return f.data, nil
}
