package sso_test

import (
	"bytes"
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/boltstore/bolttest"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/internal/seal"
	"github.com/scopekit/scopekit/sso"
	"github.com/stretchr/testify/require"
)

// Ensure a sign-in begun by one relying party is finished by another
// over the same flow store (two instances of a deployment: the provider
// sends the browser back to either), once; and that without a flow store
// the other one knows nothing of it.
func TestFlowsInTheStore(t *testing.T) {
	f := newFixture(t)
	db := bolttest.Open(t, engine.NewSchema())
	sealer, err := seal.New(bytes.Repeat([]byte{3}, seal.KeySize))
	require.NoError(t, err)
	tokens := &auth.Service{Store: db.AuthStore(), Sealer: sealer}
	client := &http.Client{Timeout: 10 * time.Second}
	a := &sso.RelyingParty{Client: client, Flows: tokens}
	b := &sso.RelyingParty{Client: client, Flows: tokens}
	alone := &sso.RelyingParty{Client: client}

	ctx := context.Background()
	redirect, binding, err := a.Begin(ctx, f.idp, callback, &f.req, ada.Email)
	require.NoError(t, err)
	back := f.op.SignIn(t, redirect, ada.Username, ada.Password)
	state := back.Query().Get("state")
	_, ok := take(t, alone, state, binding)
	require.False(t, ok, "kept in the store, not in memory")
	_, ok = take(t, b, state, "another browser's binding")
	require.False(t, ok)
	flow, ok := take(t, b, state, binding)
	require.True(t, ok, "the other instance finds the flow")
	require.Equal(t, f.req, flow.Request)
	_, ok = take(t, a, state, binding)
	require.False(t, ok, "taken once, whichever instance takes it")
	id, err := b.Finish(ctx, f.idp, flow, back.Query().Get("code"))
	require.NoError(t, err, "the verifier and nonce came through the store")
	require.Equal(t, ada.Email, id.Email)
}
