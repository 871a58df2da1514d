// Command server is ScopeKit's example server: the whole service of
// package app (the JSON:API, the OAuth token endpoint and login pages,
// documents, webhooks, MCP, the workspace) over an embedded bbolt file or
// a PostgreSQL database, with the flags, bootstrap file and demo data of
// docs/operations.md.
//
//	go run ./examples/server                 # 127.0.0.1:8080, ./scopekit.db, demo on first start
//	go run ./examples/server -h              # every flag and its SCOPEKIT_<NAME> variable
//
// It reads flags into an app.Config, prints the start banner and runs
// the service; its subcommands (backup, restore, import, migrate,
// verify-domain) work on a stopped server's data.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/scopekit/scopekit/app"
	"github.com/scopekit/scopekit/observe"
	"github.com/scopekit/scopekit/provision"
	"go.opentelemetry.io/otel"
)

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
// gracefully (app.App.Run and Close). Once it is serving it prints the
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
	ac := cfg.appConfig(logger, boot)
	if cfg.OTLPEndpoint != "" {
		otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { logger.Warn("tracing", "err", err) }))
		if ac.Spans, err = observe.OTLP(ctx, cfg.OTLPEndpoint); err != nil {
			return err
		}
	}
	a, err := app.New(ctx, ac)
	if err != nil {
		return startError(cfg, err)
	}
	running := make(chan struct{})
	announced := make(chan struct{})
	go func() { // the banner, once the service serves
		defer close(announced)
		select {
		case <-a.Serving():
		case <-running:
			return
		}
		printBanner(stdout, bannerOf(a, cfg))
		logger.Info("serving", "api", a.BaseURL(), "auth", a.AuthURL(), "data", cfg.where())
		if ready != nil {
			select {
			case ready <- a.BaseURL():
			case <-ctx.Done():
			}
		}
	}()
	failed := a.Run(ctx)
	close(running)
	<-announced
	if err := a.Close(); err != nil && failed == nil {
		failed = fmt.Errorf("close %s: %w", cfg.where(), err)
	}
	if failed == nil {
		logger.Info("stopped")
	}
	return failed
}

// startError words a failure of app.New for the command line: the
// bootstrap file's problems as the file's, the database named.
func startError(cfg *config, err error) error {
	var se *app.StepError
	if !errors.As(err, &se) {
		return err
	}
	switch {
	case se.Step == "bootstrap":
		return bootstrapError(se.Err)
	case se.Step == "store" && cfg.Database != "":
		return fmt.Errorf("database %s: %w", cfg.where(), se.Err)
	case se.Step == "store", se.Step == "key", se.Step == "listen":
		return se.Err
	}
	return err
}
