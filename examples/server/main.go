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
	"github.com/scopekit/scopekit/mcpadapter"
	"github.com/scopekit/scopekit/pgstore"
	"github.com/scopekit/scopekit/provision"
	"github.com/scopekit/scopekit/scoping"
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

	svc := scoping.NewService(db, scoping.WithSchema(schema))
	svc.Log = logger
	key, err := loadOrCreateKey(cfg.keyFile())
	if err != nil {
		return err
	}
	sealer, err := webhook.NewSealer(key)
	if err != nil {
		return err
	}
	dispatcher := &webhook.Dispatcher{Store: db, Secrets: sealer, Schedule: cfg.WebhookRetrySchedule, Jitter: 0.2,
		AllowPrivate: cfg.WebhookAllowPrivate, Logger: logger}
	svc.Webhooks = scoping.WebhookConfig{CheckDestination: webhook.CheckDestination(cfg.WebhookAllowPrivate),
		Sealer: sealer, FirstDelay: cfg.WebhookRetrySchedule[0], Notify: dispatcher.Notify}
	docs := newDocumentPool(svc, cfg, logger)
	as := &auth.Service{Store: db.AuthStore(), Directory: scoping.Directory(db), BcryptCost: bcryptCost}
	// stored prices: price the projects of a database written before
	// prices were stored, or left stale by an interrupted refresh
	if err := svc.RefreshAllPrices(ctx); err != nil {
		return fmt.Errorf("prices: %w", err)
	}
	if boot != nil {
		if err := applyBootstrap(ctx, boot, svc, as); err != nil {
			return err
		}
	}
	if err := svc.EnsureBuiltinTemplates(ctx); err != nil { // accounts made before a built-in existed
		return fmt.Errorf("built-in document templates: %w", err)
	}
	demo, err := findDemo(ctx, svc, db.AuthStore())
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
		if demo, err = findDemo(ctx, svc, db.AuthStore()); err != nil {
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

	api := &httpadapter.Server{Svc: svc, Auth: as, BaseURL: baseURL, Logger: logger, Throttle: cfg.throttle(), Limits: cfg.Limits,
		DocumentThrottle: httpadapter.DocumentThrottle{Rate: cfg.DocumentsRate, Burst: cfg.DocumentsBurst}}
	// MCP (docs/mcp.md): the tools for AI assistants on the API host, over
	// the same use cases, behind the same token check.
	assistants := &mcpadapter.Server{Svc: svc, Auth: as, BaseURL: baseURL, AuthURL: authURL, Logger: logger}
	api.Mounts = map[string]http.Handler{mcpadapter.Path: assistants.HTTPHandler(), mcpadapter.MetadataPath: assistants.MetadataHandler()}
	backupURL := mountBackup(api, db, cfg, baseURL, logger)
	var servers []*http.Server
	newServer := api.HTTPServer
	if authLn == nil {
		servers = append(servers, newServer(api.Handler()))
	} else {
		servers = append(servers, newServer(api.APIHandler()), newServer(api.AuthHandler()))
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
	conv, stopPDF := newPDFConverter(cfg, logger)
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
	printBanner(stdout, banner{BaseURL: baseURL, AuthURL: authURL, Data: cfg.where(), Demo: demo, DemoCreated: demoCreated, BackupURL: backupURL})
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
		pg, err := pgstore.Open(ctx, cfg.Database, pgstore.WithSchema(schema))
		if err != nil {
			return nil, false, fmt.Errorf("database %s: %w", cfg.where(), err)
		}
		pg.Claim = cfg.WebhookClaim
		return pg, pg.Created(), nil
	}
	_, statErr := os.Stat(cfg.Data)
	bdb, err := boltstore.Open(cfg.Data, boltstore.WithSchema(schema))
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
