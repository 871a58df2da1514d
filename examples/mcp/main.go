// Command mcp serves ScopeKit's MCP tools over stdio, for an assistant
// that starts its tool servers as local processes (docs/mcp.md):
//
//	go run ./examples/mcp -token-file token.txt            # ./scopekit.db
//	go run ./examples/mcp -token-file token.txt -data other.db
//
// Every tool call runs as the user of the access token in the file (a
// client-credentials token from POST /oauth/token), checked on each call as
// the API checks it. It opens the example server's bbolt file itself, which
// only one process may hold at a time: stop the example server first, or
// connect the assistant to the server's /mcp endpoint over HTTP instead.
//
// It is a composition root, like examples/server: the store, the domain
// service, the token service and the MCP adapter meet here.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/boltstore"
	"github.com/scopekit/scopekit/mcpadapter"
	"github.com/scopekit/scopekit/scoping"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], &mcp.StdioTransport{}, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "scopekit-mcp: "+err.Error())
		os.Exit(1)
	}
}

// run parses the flags, opens the store and serves the tools over t until
// the client disconnects or ctx ends. Logs go to stderr (stdout is the
// protocol's).
func run(ctx context.Context, args []string, t mcp.Transport, stderr io.Writer) error {
	flags := flag.NewFlagSet("mcp", flag.ContinueOnError)
	flags.SetOutput(stderr)
	data := flags.String("data", envOr("SCOPEKIT_DATA", "scopekit.db"), "bbolt database file of the example server (SCOPEKIT_DATA)")
	tokenFile := flags.String("token-file", "", "file holding the access token the tools run as (required)")
	baseURL := flags.String("base-url", envOr("SCOPEKIT_BASE_URL", "http://127.0.0.1:8080"), "the API's base URL, for links in tool answers (SCOPEKIT_BASE_URL)")
	if err := flags.Parse(args); err != nil {
		return err
	}
	if *tokenFile == "" {
		return errors.New("-token-file is required (a file holding an access token)")
	}
	raw, err := os.ReadFile(*tokenFile)
	if err != nil {
		return fmt.Errorf("-token-file: %w", err)
	}
	token := strings.TrimSpace(string(raw))
	if token == "" {
		return fmt.Errorf("-token-file: %s is empty", *tokenFile)
	}
	if _, err := os.Stat(*data); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("-data: no database at %s (start the example server once to create it)", *data)
	}
	db, err := boltstore.Open(*data, scoping.DefaultSchema())
	if errors.Is(err, boltstore.ErrLocked) {
		return fmt.Errorf("%w: another process (the example server?) holds it; stop it, or use the server's /mcp endpoint over HTTP", err)
	}
	if err != nil {
		return err
	}
	defer db.Close()
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv := &mcpadapter.Server{Svc: scoping.NewService(db), Auth: &auth.Service{Store: db.AuthStore(), Directory: scoping.Directory(db)},
		BaseURL: *baseURL, Logger: logger}
	err = srv.Run(ctx, t, token)
	if scopekit.ErrorCode(err) == scopekit.EUNAUTHORIZED {
		return errors.New("the access token in -token-file is invalid or expired; get a new one from POST /oauth/token")
	}
	return err
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
