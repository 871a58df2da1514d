package app_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/scopekit/scopekit/app"
	"github.com/scopekit/scopekit/boltstore/bolttest"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/pgstore/pgtest"
	"github.com/scopekit/scopekit/provision"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/bcrypt"
)

// storeCase is a store New opens: a bbolt file of its own, or a
// PostgreSQL schema of its own (skipped without SCOPEKIT_TEST_DATABASE).
type storeCase struct {
	name string
	conf func(t *testing.T, dir string) app.Config
}

var storeCases = []storeCase{
	{"bbolt", func(t *testing.T, dir string) app.Config {
		return app.Config{DataFile: filepath.Join(dir, "scopekit.db"), Addr: "127.0.0.1:0"}
	}},
	{"postgres", func(t *testing.T, dir string) app.Config {
		return app.Config{Database: pgtest.URL(t), DataFile: filepath.Join(dir, "unused.db"), Addr: "127.0.0.1:0"}
	}},
}

// quiet is cfg with a discarded log and cheap password hashes.
func quiet(cfg app.Config) app.Config {
	cfg.Logger, cfg.BcryptCost = slog.New(slog.DiscardHandler), bcrypt.MinCost
	return cfg
}

// start runs New and closes the service when the test ends.
func start(t *testing.T, cfg app.Config) *app.App {
	t.Helper()
	a, err := app.New(context.Background(), quiet(cfg))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, a.Close()) })
	return a
}

// stepOf returns the step of New's failure err.
func stepOf(t *testing.T, err error) string {
	t.Helper()
	var se *app.StepError
	require.True(t, errors.As(err, &se), "want a *app.StepError, got %v", err)
	return se.Step
}

// Ensure a first start with a malformed key file fails before the store is
// touched (no file, no schema), and that the next correct start is a
// first start that creates the demo; then that a first start that failed
// after the store was made (a bootstrap refused by the database) leaves a
// first start to do, which the next start completes, demo included; and
// that a later start is no first start.
func TestFirstStart(t *testing.T) {
	for _, sc := range storeCases {
		t.Run(sc.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := sc.conf(t, dir)
			cfg.KeyFile = filepath.Join(dir, "secret.key")
			require.NoError(t, os.WriteFile(cfg.KeyFile, []byte("not a key\n"), 0o600))
			_, err := app.New(context.Background(), quiet(cfg))
			require.Equal(t, "key", stepOf(t, err))
			require.ErrorContains(t, err, "must hold 32 bytes in base64 on one line")
			_, statErr := os.Stat(cfg.DataFile)
			require.ErrorIs(t, statErr, os.ErrNotExist, "no database file")

			require.NoError(t, os.Remove(cfg.KeyFile))
			bad := cfg
			bad.Demo = app.DemoOn
			bad.Bootstrap = &provision.Spec{Users: []provision.User{{Email: "ada@acme.test", Name: "Ada",
				Memberships: []provision.Membership{{Account: "nowhere", Role: "Account Admin"}}}}}
			_, err = app.New(context.Background(), quiet(bad))
			require.Equal(t, "bootstrap", stepOf(t, err))

			a := start(t, cfg)
			st := a.Started()
			require.True(t, st.First)
			require.True(t, st.StoreCreated || sc.name == "postgres", "the failed bbolt start left no file")
			require.True(t, st.Demo.Created)
			require.True(t, st.Demo.Exists)
			require.True(t, st.Demo.CredsWork)
			require.NotEmpty(t, st.Demo.ProjectID)
			require.NoError(t, a.Close())

			a = start(t, cfg)
			st = a.Started()
			require.False(t, st.First)
			require.False(t, st.StoreCreated)
			require.False(t, st.Demo.Created)
			require.True(t, st.Demo.Exists)
		})
	}
}

// Ensure a first start that failed while making the demo (its account
// made, its data not) is completed by the next start: the data, the
// credentials.
func TestFirstStartCompletesAHalfMadeDemo(t *testing.T) {
	ctx := context.Background()
	db := bolttest.Open(t, app.Schema())
	svc := scoping.NewService(db)
	first, err := svc.BeginFirstStart(ctx, true)
	require.NoError(t, err)
	require.True(t, first)
	demo := app.DemoAccount()
	require.NoError(t, svc.Setup(ctx, func(ad *scoping.Admin) error {
		acct, err := ad.EnsureAccount(demo.Slug, demo.Name, demo.Currency)
		if err != nil {
			return err
		}
		_, err = ad.EnsureMember(acct.ID, scoping.Member{Email: demo.BotEmail, Name: "Demo Bot", UserType: "service", Role: "Account Admin"})
		return err
	}))

	a := start(t, app.Config{Store: db, Key: make([]byte, app.KeySize), BaseURL: "http://127.0.0.1:9"})
	st := a.Started()
	require.True(t, st.First)
	require.True(t, st.Demo.Created)
	require.True(t, st.Demo.CredsWork)
	require.NotEmpty(t, st.Demo.ProjectID)
}

// Ensure a bootstrap naming the account "demo" with the demo asked for is
// refused before anything is written; that without the demo asked for it
// makes an account the banner does not take for the demo; and that the
// demo asked for later is refused, saying why.
func TestBootstrapNamingTheDemo(t *testing.T) {
	dir := t.TempDir()
	spec := func() *provision.Spec {
		return &provision.Spec{Accounts: []provision.Account{{Slug: "demo", Name: "Ours", DefaultCurrency: "EUR"}}}
	}
	cfg := app.Config{DataFile: filepath.Join(dir, "scopekit.db"), Addr: "127.0.0.1:0", Bootstrap: spec(), Demo: app.DemoOn}
	_, err := app.New(context.Background(), quiet(cfg))
	require.Equal(t, "bootstrap", stepOf(t, err))
	require.EqualError(t, err, `bootstrap: accounts[0] (demo): the account "demo" is the demo's, which is asked for too: `+
		`give the account another slug, or start without the demo`)
	_, statErr := os.Stat(cfg.DataFile)
	require.ErrorIs(t, statErr, os.ErrNotExist)

	cfg.Demo, cfg.Bootstrap = app.DemoAuto, spec()
	a := start(t, cfg)
	st := a.Started()
	require.True(t, st.First)
	require.Equal(t, []string{"/accounts/0"}, st.Bootstrap)
	require.False(t, st.Demo.Exists)
	require.False(t, st.Demo.Created)
	require.True(t, st.Demo.NotTheDemo)
	require.NoError(t, a.Close())

	cfg.Demo, cfg.Bootstrap = app.DemoOn, nil
	_, err = app.New(context.Background(), quiet(cfg))
	require.Equal(t, "demo", stepOf(t, err))
	require.ErrorContains(t, err, `the account "demo" exists and is not the demo (a bootstrap made it): not creating the demo`)
	_, statErr = os.Stat(cfg.DataFile)
	require.NoError(t, statErr, "a database that was not new stays")
}

// Ensure a program that serves Handler itself (no Addr, its BaseURL)
// gets the whole API, and Run without listeners runs the background work until its
// context ends; that a store of one's own is used and left open; and
// that Run runs once.
func TestHandlerOfOnesOwn(t *testing.T) {
	db := bolttest.Open(t, app.Schema())
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	a := start(t, app.Config{Store: db, Key: make([]byte, app.KeySize), BaseURL: base, Demo: app.DemoOn})
	require.Equal(t, base, a.BaseURL())
	srv.Config.Handler = a.Handler()
	srv.Start()
	defer srv.Close()
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	<-a.Serving()
	// ready once the document workers run (they re-queue expired leases
	// first): a probe is polled, so it may take a moment
	require.Eventually(t, func() bool {
		res, err := http.Get(srv.URL + "/readyz")
		if err != nil {
			return false
		}
		res.Body.Close()
		return res.StatusCode == http.StatusOK
	}, 10*time.Second, 20*time.Millisecond, "/readyz")
	for path, want := range map[string]int{"/": http.StatusOK, "/app/": http.StatusOK, "/v2/projects": http.StatusUnauthorized,
		"/healthz": http.StatusOK, "/readyz": http.StatusOK} {
		res, err := http.Get(srv.URL + path)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		require.Equal(t, want, res.StatusCode, path)
	}
	// people provisioned while it runs get tokens at once
	rep, err := a.Provision(ctx, &provision.Spec{Accounts: []provision.Account{{Slug: "acme", Name: "Acme", DefaultCurrency: "USD"}},
		Users: []provision.User{{Email: "bot@acme.test", Name: "Bot", UserType: "service", ClientID: "acme-bot", ClientSecret: "acme-bot-secret",
			Memberships: []provision.Membership{{Account: "acme", Role: "Account Admin"}}}}})
	require.NoError(t, err)
	require.Contains(t, rep.Written, "/users/0/client-id")
	res, err := http.PostForm(srv.URL+"/oauth/token", url.Values{"grant_type": {"client_credentials"},
		"client_id": {"acme-bot"}, "client_secret": {"acme-bot-secret"}})
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)

	stop()
	require.NoError(t, <-done)
	require.Error(t, a.Run(context.Background()), "Run runs once")
	require.NoError(t, a.Close())
	require.NoError(t, db.View(context.Background(), func(engine.Tx) error { return nil }), "the store stays open")

	_, err = app.New(context.Background(), app.Config{Store: db, Key: make([]byte, app.KeySize)})
	require.ErrorContains(t, err, "Config.BaseURL is required without Config.Addr")
}
