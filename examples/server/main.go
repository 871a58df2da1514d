// Command server is ScopeKit's example server: the JSON:API and the OAuth
// token endpoint over an embedded bbolt file, with the flags, bootstrap
// file and demo data of docs/operations.md.
//
//	go run ./examples/server                 # 127.0.0.1:8080, ./scopekit.db, demo on first start
//	go run ./examples/server -h              # every flag and its SCOPEKIT_<NAME> variable
//
// It is the composition root: the only place where the store, the domain
// service, the token service and the HTTP adapter meet.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/boltstore"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/httpadapter"
	"github.com/scopekit/scopekit/internal/safehttp"
	"github.com/scopekit/scopekit/internal/seal"
	"github.com/scopekit/scopekit/mcpadapter"
	"github.com/scopekit/scopekit/observe"
	"github.com/scopekit/scopekit/pgstore"
	"github.com/scopekit/scopekit/provision"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/sso"
	"github.com/scopekit/scopekit/webapp"
	"github.com/scopekit/scopekit/webhook"
)

// shutdownGrace is how long requests in flight get to finish on SIGINT or
// SIGTERM before their connections are closed.
const shutdownGrace = 10 * time.Second

// bcryptCost is the cost of password hashes; 0 is auth's default. Tests
// lower it.
var bcryptCost = 0

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr, nil)
	if errors.Is(err, errHelp) {
		fmt.Fprint(os.Stdout, usage())
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "scopekit: "+oneLine(err))
		os.Exit(1)
	}
}

// oneLine keeps a failure to one line of output.
func oneLine(err error) string {
	return strings.TrimSpace(strings.NewReplacer("\r\n", "; ", "\n", "; ", "\r", "; ").Replace(err.Error()))
}

// run starts the server and serves until ctx is canceled, then shuts down
// gracefully: it stops accepting, lets requests in flight finish (at most
// shutdownGrace) and closes the store. Once it is serving it prints the
// startup banner to stdout and sends the API base URL on ready (when not
// nil). Logs go to stderr. Any failure to start is returned as an error
// whose text is one line.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer, ready chan<- string) error {
	if cmd, rest, ok := commandOf(args); ok {
		return cmd.run(ctx, rest, getenv, stdout, stderr)
	}
	cfg, err := parseConfig(args, getenv)
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))
	var boot *provision.Spec
	if cfg.Bootstrap != "" {
		if boot, err = loadBootstrap(cfg.Bootstrap); err != nil {
			return err
		}
	}
	tel, err := newTelemetry(ctx, cfg, logger)
	if err != nil {
		return err
	}
	defer func() { // the spans not exported yet
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := tel.Shutdown(sctx); err != nil {
			logger.Warn("traces not exported at shutdown", "err", err)
		}
	}()

	// Bind before touching the database, so that a busy port does not
	// leave a new, empty database behind (which would then not get the
	// demo on the next start).
	apiLn, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	var authLn net.Listener
	if cfg.AuthAddr != "" {
		if authLn, err = net.Listen("tcp", cfg.AuthAddr); err != nil {
			apiLn.Close()
			return err
		}
	}
	listeners := []net.Listener{apiLn}
	if authLn != nil {
		listeners = append(listeners, authLn)
	}
	var metricsLn net.Listener
	if cfg.MetricsAddr != "" {
		if metricsLn, err = net.Listen("tcp", cfg.MetricsAddr); err != nil {
			closeAll(listeners)
			return err
		}
		listeners = append(listeners, metricsLn) // closed with the others on a failed start
	}

	schema, err := scoping.NewSchema() // the declared types, checked once; store and service share it
	if err != nil {
		closeAll(listeners)
		return err
	}
	db, isNew, err := openStore(ctx, cfg, schema)
	if err != nil {
		closeAll(listeners)
		return err
	}
	started := false
	defer func() {
		if !started {
			closeAll(listeners)
			db.Close()
			if isNew && cfg.Database == "" { // a failed first start leaves no half-made database file
				os.Remove(cfg.Data)
			}
		}
	}()

	svc := scoping.NewService(tel.Store(db), scoping.WithSchema(schema))
	svc.Log, svc.Tracer = logger, tel.Tracer()
	key, err := loadOrCreateKey(cfg.keyFile())
	if err != nil {
		return err
	}
	sealer, err := seal.New(key)
	if err != nil {
		return err
	}
	dispatcher := &webhook.Dispatcher{Store: db, Secrets: sealer, Schedule: cfg.WebhookRetrySchedule, Jitter: 0.2,
		AllowPrivate: cfg.WebhookAllowPrivate, Logger: logger}
	svc.Webhooks = scoping.WebhookConfig{CheckDestination: webhook.CheckDestination(cfg.WebhookAllowPrivate),
		Sealer: sealer, FirstDelay: cfg.WebhookRetrySchedule[0], Notify: dispatcher.Notify}
	// single sign-on: providers are reached with the guarded client of
	// webhook deliveries, for discovery when one is registered as for
	// sign-ins (the callback is on the auth host)
	// single sign-on: the callback is on the auth host; providers are
	// reached with the guarded client of webhook deliveries
	relyingParty := &sso.RelyingParty{Client: safehttp.NewClient(sso.Timeout, cfg.SSOAllowPrivate)}
	svc.SSO = scoping.SSOConfig{CheckIssuer: relyingParty.CheckIssuer, Resolver: sso.DNSResolver(cfg.DNSServer)}
	docs := newDocumentPool(svc, cfg, logger)
	instrument(tel, db, docs, dispatcher, svc.QueuedDocuments)
	// The probes answer on the metrics listener from now on: not ready
	// until the startup work below is done, live all along (a long price
	// refresh is not a hung server).
	serving := observe.NewFlag("the server is starting or shutting down")
	health := newProbes(db, docs, serving, logger)
	var metricsSrv *http.Server
	if metricsLn != nil {
		metricsSrv = metricsServer(tel, health, cfg)
		go func() {
			if err := metricsSrv.Serve(metricsLn); !errors.Is(err, http.ErrServerClosed) {
				logger.Error("metrics listener failed", "err", err)
			}
		}()
		defer metricsSrv.Close()
	}
	// the webhook key seals TOTP seeds too (docs/auth.md "Two-step verification")
	as := &auth.Service{Store: db.AuthStore(), Directory: scoping.Directory(db), Providers: scoping.IdentityProviders(svc),
		BcryptCost: bcryptCost, Sealer: sealer, UniformTokenErrors: cfg.UniformTokenErrors}
	svc.SignIns = as        // a tightened sign-in policy revokes the refresh tokens it no longer admits
	relyingParty.Flows = as // single sign-ons in progress are kept in the store: any instance finishes them
	// stored prices: price the projects of a database written before
	// prices were stored, or left stale by an interrupted refresh
	if err := svc.RefreshAllPrices(ctx); err != nil {
		return fmt.Errorf("prices: %w", err)
	}
	if boot != nil {
		if err := applyBootstrap(ctx, boot, db, svc, as); err != nil {
			return err
		}
	}
	if err := svc.EnsureBuiltinTemplates(ctx); err != nil { // accounts made before a built-in existed
		return fmt.Errorf("built-in document templates: %w", err)
	}
	demo, err := findDemo(ctx, db, db.AuthStore())
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	wantDemo := cfg.Demo
	if !cfg.DemoSet {
		wantDemo = isNew && cfg.Bootstrap == ""
	}
	demoCreated := false
	if wantDemo && !demo.Exists {
		if err := createDemo(ctx, svc, db, as); err != nil {
			return err
		}
		if demo, err = findDemo(ctx, db, db.AuthStore()); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		demoCreated = true
	}

	baseURL := cfg.BaseURL
	if baseURL == "" {
		baseURL = "http://" + displayAddr(cfg.Addr, apiLn.Addr())
	}
	authURL := baseURL
	if authLn != nil {
		authURL = "http://" + displayAddr(cfg.AuthAddr, authLn.Addr())
	}

	api := &httpadapter.Server{Svc: svc, Auth: as, BaseURL: baseURL, AuthURL: authURL, Key: key, Logger: logger, Throttle: cfg.throttle(), Limits: cfg.Limits,
		DocumentThrottle: httpadapter.DocumentThrottle{Rate: cfg.DocumentsRate, Burst: cfg.DocumentsBurst},
		Metrics:          tel.RequestMetrics(), SSO: relyingParty}
	// MCP (docs/mcp.md): the tools for AI assistants on the API host, over
	// the same use cases, behind the same token check.
	assistants := &mcpadapter.Server{Svc: svc, Auth: as, BaseURL: baseURL, AuthURL: authURL, Logger: logger,
		CallRate: cfg.MCPRate, CallBurst: cfg.MCPBurst}
	api.Mounts = map[string]http.Handler{mcpadapter.Path: assistants.HTTPHandler(), mcpadapter.MetadataPath: assistants.MetadataHandler()}
	// The workspace (docs/workspace.md) at /app/: its OAuth clients are
	// derived from the secret key, which every instance shares.
	workspace, err := webapp.New(webapp.Config{Svc: svc, Auth: as, BaseURL: baseURL, AuthURL: authURL, Key: key, Logger: logger,
		DocumentRate: cfg.DocumentsRate, DocumentBurst: cfg.DocumentsBurst})
	if err != nil {
		return err
	}
	api.Mounts[webapp.Path] = workspace.Handler()
	backupURL := mountBackup(api, db, cfg, baseURL, logger)
	var servers []*http.Server
	newServer := func(h http.Handler) *http.Server { return api.HTTPServer(tel.TraceHTTP(h)) }
	if authLn == nil {
		servers = append(servers, newServer(withProbes(api.Handler(), tel, health, cfg)))
	} else {
		servers = append(servers, newServer(withProbes(api.APIHandler(), tel, health, cfg)), newServer(api.AuthHandler()))
	}
	started = true

	// The dispatcher resumes whatever the outbox holds; it is stopped after
	// the HTTP servers (no new events) and before the store closes.
	dispatchCtx, stopDispatch := context.WithCancel(context.Background())
	defer stopDispatch()
	dispatched := make(chan struct{})
	go func() {
		defer close(dispatched)
		if err := dispatcher.Run(dispatchCtx); err != nil {
			logger.Error("webhook dispatcher stopped", "err", err)
		}
	}()

	// The document workers resume the queue (re-queuing what a crash left
	// generating once its lease has run out); like the dispatcher they stop
	// after the HTTP servers.
	conv, stopPDF := newPDFConverter(cfg, logger, tel.PDFListenerRestarts())
	defer stopPDF() // at return, once the workers have stopped (<-generated below)
	docs.Converter = conv
	generated := make(chan struct{})
	go func() {
		defer close(generated)
		if err := docs.Run(dispatchCtx); err != nil {
			logger.Error("document workers stopped", "err", err)
		}
	}()

	serveErr := make(chan error, len(servers))
	for i, srv := range servers {
		go func() {
			if err := srv.Serve(httpadapter.WrapListener(listeners[i])); !errors.Is(err, http.ErrServerClosed) {
				serveErr <- err
			}
		}()
	}
	serving.Set(true)
	metricsURL := ""
	if metricsLn != nil {
		metricsURL = "http://" + displayAddr(cfg.MetricsAddr, metricsLn.Addr())
		logger.Info("metrics and probes", "url", metricsURL)
	}
	printBanner(stdout, banner{BaseURL: baseURL, AuthURL: authURL, MetricsURL: metricsURL, Data: cfg.where(), Demo: demo,
		DemoCreated: demoCreated, BackupURL: backupURL})
	logger.Info("serving", "api", baseURL, "auth", authURL, "data", cfg.where())
	if ready != nil {
		select {
		case ready <- baseURL:
		case <-ctx.Done():
		}
	}

	var failed error
	select {
	case <-ctx.Done():
		logger.Info("shutting down: finishing requests in flight", "grace", shutdownGrace.String())
	case failed = <-serveErr:
		logger.Error("serve failed; shutting down", "err", failed)
	}
	serving.Set(false) // not ready: load balancers stop sending requests
	shutCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	for _, srv := range servers {
		if err := srv.Shutdown(shutCtx); err != nil {
			logger.Warn("requests still running at the shutdown deadline were cut off", "err", err)
			srv.Close()
		}
	}
	stopDispatch()
	<-dispatched
	<-generated
	if metricsSrv != nil {
		_ = metricsSrv.Shutdown(shutCtx)
	}
	if err := db.Close(); err != nil && failed == nil {
		failed = fmt.Errorf("close %s: %w", cfg.where(), err)
	}
	if failed == nil {
		logger.Info("stopped")
	}
	return failed
}

// store is what the server needs of a database: the records, the webhook
// outbox and the auth store.
type store interface {
	engine.Store
	webhook.Store
	AuthStore() auth.Store
	Close() error
}

// openStore opens the PostgreSQL database of -database or else the bbolt
// file of -data; isNew reports a database created by this start (the
// demo's default).
func openStore(ctx context.Context, cfg *config, schema *engine.Schema) (db store, isNew bool, err error) {
	if cfg.Database != "" {
		pg, err := pgstore.Open(ctx, cfg.Database, schema)
		if err != nil {
			return nil, false, fmt.Errorf("database %s: %w", cfg.where(), err)
		}
		pg.Claim = cfg.WebhookClaim
		return pg, pg.Created(), nil
	}
	_, statErr := os.Stat(cfg.Data)
	bdb, err := boltstore.Open(cfg.Data, schema)
	if err != nil {
		return nil, false, err
	}
	return bdb, errors.Is(statErr, fs.ErrNotExist), nil
}

func closeAll(ls []net.Listener) {
	for _, l := range ls {
		l.Close()
	}
}

// displayAddr is the host:port to print for a listener: the host as
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
