package sso

import (
	"crypto/sha256"
	"crypto/subtle"
	"sync"
	"time"

	"github.com/scopekit/scopekit/auth"
)

// FlowTTL is how long a sign-in may stay at the identity provider.
const FlowTTL = 10 * time.Minute

// maxFlows bounds the sign-ins in progress kept in memory; Begin refuses
// more (ErrBusy) until some finish or expire.
const maxFlows = 10000

// Flow is a sign-in in progress: what the callback needs to finish it.
// It lives in the memory of the server that began it, once: Take removes
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
	verifier string   // PKCE code verifier
	binding  [32]byte // SHA-256 of the browser's binding cookie
	expires  time.Time
}

// flows holds the flows by state.
type flows struct {
	mu sync.Mutex
	m  map[string]*Flow
}

// put stores f under state, first dropping the expired flows when the
// map is full; false when it is still full.
func (fs *flows) put(state string, f *Flow, now time.Time) bool {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.m == nil {
		fs.m = map[string]*Flow{}
	}
	if len(fs.m) >= maxFlows {
		for k, v := range fs.m {
			if !now.Before(v.expires) {
				delete(fs.m, k)
			}
		}
		if len(fs.m) >= maxFlows {
			return false
		}
	}
	fs.m[state] = f
	return true
}

// take removes and returns the flow of state when it has not expired and
// binding is the browser's that began it. A flow named with the wrong
// binding stays, so that a forged callback cannot cancel a sign-in.
func (fs *flows) take(state, binding string, now time.Time) (*Flow, bool) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	f, ok := fs.m[state]
	if !ok {
		return nil, false
	}
	sum := sha256.Sum256([]byte(binding))
	if subtle.ConstantTimeCompare(sum[:], f.binding[:]) != 1 {
		return nil, false
	}
	delete(fs.m, state)
	return f, now.Before(f.expires)
}
