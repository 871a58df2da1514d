// Package app is ScopeKit's composition root: the whole service (the
// JSON:API and its reference, the OAuth token service and login pages,
// single sign-on, document templates and generation, webhooks, MCP for
// AI assistants, the workspace at /app/, metrics, traces and probes)
// wired from one Config, in the order its parts need one another:
//
//	a, err := app.New(ctx, app.Config{DataFile: "scopekit.db", Addr: "127.0.0.1:8080"})
//	if err != nil { ... }
//	defer a.Close()
//	err = a.Run(ctx) // serves until ctx is done, then shuts down in order
//
// New does everything up to serving; each step needs the ones before it:
//
//  1. the secret key (Config.Key, or KeyFile read or created): checked
//     before anything is written, so that a bad key file leaves nothing;
//  2. the listeners of Addr, AuthAddr and MetricsAddr, bound before the
//     store is opened, so that a busy port leaves no new database;
//  3. the schema (scoping.NewSchema) and the store opened with it
//     (Config.Store, a PostgreSQL database or a bbolt file), and whether
//     this is the deployment's first start (scoping.BeginFirstStart);
//  4. the domain service over the store (timed by the telemetry), the
//     sealer of secrets, the webhook dispatcher, the single sign-on
//     relying party, the document worker pool, and the probes (served at
//     once on MetricsAddr: live, not ready, during the rest);
//  5. the token service (auth.Service), which seals second factors and
//     keeps single sign-ons in progress in the store;
//  6. the startup work: prices stored before prices were stored or left
//     stale, the bootstrap spec, the built-in document templates, the
//     demo; then the first start is recorded complete (only then: a
//     first start that failed is a first start again);
//  7. the HTTP side: the API (httpadapter), MCP at /mcp, the workspace at
//     /app/, the backup download, the probes, the traces; and the PDF
//     converter (LibreOffice, when installed).
//
// Run starts the background work (the webhook dispatcher, the document
// workers) and serves the listeners; at the end it stops accepting, lets
// requests in flight finish (ShutdownGrace), then stops the background
// work. Close releases what New took: the listeners, the PDF converter's
// processes, the store it opened, the traces not yet exported.
package app

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/docgen"
	"github.com/scopekit/scopekit/httpadapter"
	"github.com/scopekit/scopekit/internal/safehttp"
	"github.com/scopekit/scopekit/internal/seal"
	"github.com/scopekit/scopekit/mcpadapter"
	"github.com/scopekit/scopekit/observe"
	"github.com/scopekit/scopekit/office"
	"github.com/scopekit/scopekit/provision"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/sso"
	"github.com/scopekit/scopekit/webapp"
	"github.com/scopekit/scopekit/webhook"
)

// ShutdownGrace is how long requests in flight get to finish when Run's
// context ends, before their connections are closed.
const ShutdownGrace = 10 * time.Second

// App is a wired ScopeKit service (New).
type App struct {
	cfg Config
	key []byte

	db           Store
	ownStore     bool // opened by New: closed by Close
	storeCreated bool
	started      Started

	tel        *observe.Telemetry
	svc        *scoping.Service
	tokens     *auth.Service
	dispatcher *webhook.Dispatcher
	docs       *docgen.Pool
	conv       office.Converter
	stopPDF    func()
	health     *observe.Health
	serving    *observe.Flag
	api        *httpadapter.Server

	apiLn, authLn, metricsLn net.Listener
	metricsSrv               *http.Server
	baseURL, authURL         string
	metricsURL, backupURL    string

	runOnce   sync.Once
	servingCh chan struct{}
	closeOnce sync.Once
	closeErr  error
}

// Started says what New found and made: what a start banner reports.
type Started struct {
	// First is true when this start was the deployment's first (or
	// finished a first start that had failed).
	First bool
	// StoreCreated is true when the bbolt file or the PostgreSQL schema
	// was created by this start.
	StoreCreated bool
	// Bootstrap holds the JSON pointers of the bootstrap entries written
	// (provision.Report.Written); empty when there was nothing to write.
	Bootstrap []string
	// Demo is the demo account as this start left it.
	Demo DemoState
}

// New wires the service of cfg and does the startup work, in the order
// of the package documentation; it serves nothing yet (Run). A failure
// is a *StepError naming the step; what New had taken is released, and a
// bbolt file it created is removed.
func New(ctx context.Context, cfg Config) (a *App, err error) {
	if cfg, err = cfg.withDefaults(); err != nil {
		return nil, err
	}
	a = &App{cfg: cfg, stopPDF: func() {}, servingCh: make(chan struct{})}
	defer func() {
		if err != nil {
			a.abandon()
			a = nil
		}
	}()
	if a.key = cfg.Key; a.key == nil {
		if a.key, err = LoadOrCreateKey(cfg.KeyFile); err != nil {
			return a, &StepError{Step: "key", Err: err}
		}
	}
	sealer, err := seal.New(a.key)
	if err != nil {
		return a, &StepError{Step: "key", Err: err}
	}
	a.tel = observe.New(observe.Config{Metrics: cfg.Metrics || cfg.MetricsAddr != "" || cfg.MetricsToken != "", Spans: cfg.Spans})
	if err := a.listen(); err != nil {
		return a, &StepError{Step: "listen", Err: err}
	}
	schema, err := scoping.NewSchema() // the declared types, checked once; store and service share it
	if err != nil {
		return a, &StepError{Step: "schema", Err: err}
	}
	if err := a.openStore(ctx, schema); err != nil {
		return a, &StepError{Step: "store", Err: err}
	}
	svc := scoping.NewService(a.tel.Store(a.db), scoping.WithSchema(schema))
	a.svc = svc
	svc.Log, svc.Tracer = cfg.Logger, a.tel.Tracer()
	if a.started.First, err = svc.BeginFirstStart(ctx, a.storeCreated); err != nil {
		return a, &StepError{Step: "store", Err: err}
	}
	a.started.StoreCreated = a.storeCreated

	a.dispatcher = &webhook.Dispatcher{Store: a.db, Secrets: sealer, Schedule: cfg.WebhookRetrySchedule, Jitter: 0.2,
		AllowPrivate: cfg.WebhookAllowPrivate, Logger: cfg.Logger}
	svc.Webhooks = scoping.WebhookConfig{CheckDestination: webhook.CheckDestination(cfg.WebhookAllowPrivate),
		Sealer: sealer, FirstDelay: cfg.WebhookRetrySchedule[0], Notify: a.dispatcher.Notify}
	// single sign-on: the callback is on the auth host; providers are
	// reached with the guarded client of webhook deliveries, for discovery
	// when one is registered as for sign-ins
	rp := &sso.RelyingParty{Client: safehttp.NewClient(sso.Timeout, cfg.SSOAllowPrivate)}
	svc.SSO = scoping.SSOConfig{CheckIssuer: rp.CheckIssuer, Resolver: sso.DNSResolver(cfg.DNSServer)}
	a.docs = a.documentPool()
	a.instrument()
	a.probes()
	a.serveMetrics()

	// the secret key seals second-factor seeds and single sign-ons in
	// progress too (docs/auth.md)
	a.tokens = &auth.Service{Store: a.db.AuthStore(), Directory: scoping.Directory(a.db), Providers: scoping.IdentityProviders(svc),
		BcryptCost: cfg.BcryptCost, Sealer: sealer, UniformTokenErrors: cfg.UniformTokenErrors}
	if cfg.Auth != nil {
		cfg.Auth(a.tokens)
	}
	svc.SignIns = a.tokens // a tightened sign-in policy revokes the refresh tokens it no longer admits
	rp.Flows = a.tokens    // any instance finishes a single sign-on another began

	if err := a.startupWork(ctx); err != nil {
		return a, err
	}
	if err := a.wireHTTP(rp); err != nil {
		return a, &StepError{Step: "http", Err: err}
	}
	a.conv, a.stopPDF = a.pdfConverter()
	a.docs.Converter = a.conv
	return a, nil
}

// startupWork stores the prices left stale, applies the bootstrap,
// makes the built-in templates and the demo, and records the first
// start complete: the steps that write data, after which the
// deployment is ready.
func (a *App) startupWork(ctx context.Context) error {
	// stored prices: price the projects of a database written before
	// prices were stored, or left stale by an interrupted refresh
	if err := a.svc.RefreshAllPrices(ctx); err != nil {
		return &StepError{Step: "prices", Err: err}
	}
	if spec := a.cfg.Bootstrap; spec != nil {
		rep, err := provision.Provision(ctx, a.db, a.svc, a.tokens, spec)
		if err != nil {
			return &StepError{Step: "bootstrap", Err: err}
		}
		a.started.Bootstrap = rep.Written
	}
	if err := a.svc.EnsureBuiltinTemplates(ctx); err != nil { // accounts made before a built-in existed
		return &StepError{Step: "built-in document templates", Err: err}
	}
	if err := a.demo(ctx); err != nil {
		return &StepError{Step: "demo", Err: err}
	}
	if a.started.First {
		if err := a.svc.CompleteFirstStart(ctx); err != nil {
			return &StepError{Step: "store", Err: err}
		}
	}
	return nil
}

// listen binds the listeners of the configuration.
func (a *App) listen() error {
	var err error
	for _, l := range []struct {
		addr string
		ln   *net.Listener
	}{{a.cfg.Addr, &a.apiLn}, {a.cfg.AuthAddr, &a.authLn}, {a.cfg.MetricsAddr, &a.metricsLn}} {
		if l.addr == "" {
			continue
		}
		if *l.ln, err = net.Listen("tcp", l.addr); err != nil {
			return err
		}
	}
	return nil
}

// wireHTTP makes the API, MCP, the workspace and the backup download.
func (a *App) wireHTTP(rp *sso.RelyingParty) error {
	cfg := a.cfg
	a.baseURL = cfg.BaseURL
	if a.baseURL == "" && a.apiLn != nil {
		a.baseURL = "http://" + displayAddr(cfg.Addr, a.apiLn.Addr())
	}
	a.authURL = a.baseURL
	if a.authLn != nil {
		a.authURL = "http://" + displayAddr(cfg.AuthAddr, a.authLn.Addr())
	}
	if a.metricsLn != nil {
		a.metricsURL = "http://" + displayAddr(cfg.MetricsAddr, a.metricsLn.Addr())
	}
	a.api = &httpadapter.Server{Svc: a.svc, Auth: a.tokens, BaseURL: a.baseURL, AuthURL: a.authURL, Key: a.key, Logger: cfg.Logger,
		Throttle: cfg.Throttle, Limits: cfg.Limits, Metrics: a.tel.RequestMetrics(), SSO: rp,
		DocumentThrottle: httpadapter.DocumentThrottle{Rate: cfg.DocumentsRate, Burst: cfg.DocumentsBurst}}
	// MCP (docs/mcp.md): the tools for AI assistants on the API host,
	// over the same use cases, behind the same token check
	assistants := &mcpadapter.Server{Svc: a.svc, Auth: a.tokens, BaseURL: a.baseURL, AuthURL: a.authURL, Logger: cfg.Logger,
		CallRate: cfg.MCPRate, CallBurst: cfg.MCPBurst}
	a.api.Mounts = map[string]http.Handler{mcpadapter.Path: assistants.HTTPHandler(), mcpadapter.MetadataPath: assistants.MetadataHandler()}
	// the workspace (docs/workspace.md) at /app/, with the share links'
	// public pages (docs/lifecycle.md) and the invitation pages: its OAuth
	// clients and the pages' forms are derived from the secret key, which
	// every instance shares; the invitation page is throttled with the
	// API's own bucket
	workspace, err := webapp.New(webapp.Config{Svc: a.svc, Auth: a.tokens, BaseURL: a.baseURL, AuthURL: a.authURL, Key: a.key,
		Logger: cfg.Logger, DocumentRate: cfg.DocumentsRate, DocumentBurst: cfg.DocumentsBurst, AdmitAuth: a.api.AdmitAuth})
	if err != nil {
		return err
	}
	a.api.Mounts[webapp.Path] = workspace.Handler()
	a.mountBackup()
	return nil
}

// mountBackup mounts the backup download when an admin token is set and
// the store can copy itself (bbolt).
func (a *App) mountBackup() {
	if a.cfg.AdminToken == "" {
		return
	}
	b, ok := a.db.(httpadapter.Backuper)
	if !ok {
		a.cfg.Logger.Warn("admin token: no backup download on PostgreSQL; back it up with pg_dump (docs/operations.md, \"Backups\")")
		return
	}
	a.api.Mounts[httpadapter.BackupPath] = httpadapter.BackupHandler(b, a.cfg.AdminToken)
	a.cfg.AdminToken = "" // the handler keeps its digest
	a.backupURL = a.baseURL + httpadapter.BackupPath
}

// Handler serves the API host: the API, its reference at /, MCP, the
// workspace, the probes (and /metrics behind MetricsToken when there is
// no MetricsAddr), and /oauth/* too unless AuthAddr is set. Requests are
// traced when Config.Spans is set. The background work (Run) must run for
// documents to be generated and webhooks delivered.
func (a *App) Handler() http.Handler {
	h := a.api.Handler()
	if a.authLn != nil {
		h = a.api.APIHandler()
	}
	return a.tel.TraceHTTP(a.withProbes(h))
}

// AuthHandler serves the auth host (/oauth/*) on its own, for a
// deployment that gives it an address of its own (Config.AuthAddr).
func (a *App) AuthHandler() http.Handler { return a.tel.TraceHTTP(a.api.AuthHandler()) }

// Run starts the background work (the webhook dispatcher, which resumes
// the outbox, and the document workers, which resume the queue) and
// serves the listeners until ctx is done or one fails; then it stops
// accepting, lets requests in flight finish (at most ShutdownGrace),
// and stops the background work. It returns the listener's failure, if
// any. Run runs once; Close follows it.
func (a *App) Run(ctx context.Context) error {
	err := errors.New("app: Run runs once")
	a.runOnce.Do(func() { err = a.run(ctx) })
	return err
}

func (a *App) run(ctx context.Context) error {
	log := a.cfg.Logger
	bgCtx, stopBackground := context.WithCancel(context.WithoutCancel(ctx))
	defer stopBackground()
	var background sync.WaitGroup
	background.Go(func() {
		if err := a.dispatcher.Run(bgCtx); err != nil {
			log.Error("webhook dispatcher stopped", "err", err)
		}
	})
	background.Go(func() {
		if err := a.docs.Run(bgCtx); err != nil {
			log.Error("document workers stopped", "err", err)
		}
	})

	var servers []*http.Server
	var lns []net.Listener
	if a.apiLn != nil {
		servers, lns = append(servers, a.api.HTTPServer(a.Handler())), append(lns, a.apiLn)
	}
	if a.authLn != nil {
		servers, lns = append(servers, a.api.HTTPServer(a.AuthHandler())), append(lns, a.authLn)
	}
	serveErr := make(chan error, len(servers))
	for i, srv := range servers {
		go func() {
			if err := srv.Serve(httpadapter.WrapListener(lns[i])); !errors.Is(err, http.ErrServerClosed) {
				serveErr <- err
			}
		}()
	}
	a.serving.Set(true)
	close(a.servingCh)

	var failed error
	select {
	case <-ctx.Done():
		log.Info("shutting down: finishing requests in flight", "grace", ShutdownGrace.String())
	case failed = <-serveErr:
		log.Error("serve failed; shutting down", "err", failed)
	}
	a.serving.Set(false) // not ready: load balancers stop sending requests
	shutCtx, cancel := context.WithTimeout(context.Background(), ShutdownGrace)
	defer cancel()
	for _, srv := range servers {
		if err := srv.Shutdown(shutCtx); err != nil {
			log.Warn("requests still running at the shutdown deadline were cut off", "err", err)
			srv.Close()
		}
	}
	// the background work stops after the servers (no new events, no new
	// documents) and before the store closes (Close)
	stopBackground()
	background.Wait()
	if a.metricsSrv != nil {
		_ = a.metricsSrv.Shutdown(shutCtx)
	}
	return failed
}

// Serving is closed once Run serves.
func (a *App) Serving() <-chan struct{} { return a.servingCh }

// Close releases what New took: the listeners Run did not serve, the
// metrics listener, the PDF converter's processes, the store New opened
// (not Config.Store) and the traces not exported yet. Call it once Run
// has returned (or instead of Run).
func (a *App) Close() error {
	a.closeOnce.Do(func() { a.closeErr = a.release(false) })
	return a.closeErr
}

// abandon releases a failed New's parts, removing a bbolt file it
// created (so that the next start is a first one with a new file).
func (a *App) abandon() { _ = a.release(true) }

func (a *App) release(failed bool) error {
	for _, ln := range []net.Listener{a.apiLn, a.authLn, a.metricsLn} {
		if ln != nil {
			ln.Close()
		}
	}
	if a.metricsSrv != nil {
		a.metricsSrv.Close()
	}
	a.stopPDF()
	var err error
	if a.db != nil && a.ownStore {
		if err = a.db.Close(); err != nil {
			err = fmt.Errorf("close the store: %w", err)
		}
		if failed && a.storeCreated && a.cfg.Database == "" { // no half-made database file
			os.Remove(a.cfg.DataFile)
		}
	}
	if a.tel != nil {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if terr := a.tel.Shutdown(sctx); terr != nil {
			a.cfg.Logger.Warn("traces not exported at shutdown", "err", terr)
		}
	}
	return err
}

// Service is the domain service: the use cases, for a program that calls
// them directly (Go, not HTTP).
func (a *App) Service() *scoping.Service { return a.svc }

// Auth is the token service.
func (a *App) Auth() *auth.Service { return a.tokens }

// Provision applies a provisioning spec (the bootstrap file's rules:
// accounts, roles, people, OAuth applications and credentials, keyed so
// that applying it again writes nothing), as Config.Bootstrap does at
// start: for a program that keeps ScopeKit's accounts and people in step
// with its own directory while it runs.
func (a *App) Provision(ctx context.Context, spec *provision.Spec) (provision.Report, error) {
	return provision.Provision(ctx, a.db, a.svc, a.tokens, spec)
}

// Telemetry is the metrics and traces: Registry() takes a program's own
// collectors, MetricsHandler serves them where the program likes.
func (a *App) Telemetry() *observe.Telemetry { return a.tel }

// Started says what this start found and made.
func (a *App) Started() Started { return a.started }

// BaseURL is the API's scheme and host ("" without Addr or
// Config.BaseURL: links then name the request's host).
func (a *App) BaseURL() string { return a.baseURL }

// AuthURL is the auth host's scheme and host (BaseURL unless AuthAddr).
func (a *App) AuthURL() string { return a.authURL }

// MetricsURL is the metrics listener's scheme and host ("" without
// MetricsAddr).
func (a *App) MetricsURL() string { return a.metricsURL }

// BackupURL is the backup download ("" when not mounted).
func (a *App) BackupURL() string { return a.backupURL }

// displayAddr is the host:port to name for a listener: the host as
// configured (127.0.0.1 when it listens on every interface) and the port
// actually bound (which differs for port 0).
func displayAddr(configured string, bound net.Addr) string {
	host, _, _ := net.SplitHostPort(configured)
	_, port, err := net.SplitHostPort(bound.String())
	if err != nil {
		return bound.String()
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}
