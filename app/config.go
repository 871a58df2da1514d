package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/httpadapter"
	"github.com/scopekit/scopekit/provision"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Config is what a deployment chooses. Its zero value is a working
// service: a bbolt file ./scopekit.db (its secret key beside it, in
// ./scopekit.db.key), the demo on the first start and the library's
// defaults everywhere; it needs an address: Addr (served by Run), or
// BaseURL for a program that serves Handler itself.
type Config struct {
	// Where the data lives: Store (one's own, opened with Schema), else
	// the PostgreSQL database of Database (several instances may share
	// it), else the bbolt file DataFile (default ./scopekit.db).
	Store    Store
	Database string
	DataFile string
	// WebhookClaim is how long an instance on PostgreSQL keeps a due
	// webhook delivery from the others (pgstore.DB.Claim; default
	// pgstore.DefaultClaim).
	WebhookClaim time.Duration

	// Key is the secret key (32 bytes) that seals webhook secrets,
	// second-factor seeds and identity providers' client secrets, and
	// from which the login form's CSRF key and the workspace's clients
	// are derived; every instance of a deployment has the same. When nil
	// it is read from KeyFile (default DataFile + ".key"), which is
	// created, with a random key, when missing.
	Key     []byte
	KeyFile string

	// Addr, AuthAddr and MetricsAddr are the listeners Run serves (bound
	// by New, before the store is opened, so that a busy port leaves no
	// new database behind): the API (and /oauth/*, unless AuthAddr is
	// set), the auth host, and /metrics with the probes. "" binds none.
	Addr, AuthAddr, MetricsAddr string
	// BaseURL is the scheme and host people and programs reach the API
	// at, which links name; default http:// and Addr's host and bound
	// port. Required without Addr.
	BaseURL string

	// Logger receives the service's log (default slog.Default()).
	Logger *slog.Logger

	// The token service (docs/auth.md): throttling of the auth host,
	// invalid_grant for unknown emails, the cost of password hashes (0:
	// auth's default), and Auth, run on the token service once it is
	// made, for what else a deployment sets (TokenTTL, its clock).
	Throttle           httpadapter.Throttle
	UniformTokenErrors bool
	BcryptCost         int
	Auth               func(*auth.Service)

	// Limits bound slow and oversized requests (docs/limits.md).
	Limits httpadapter.Limits

	// Webhook deliveries (docs/webhooks.md): destinations on private
	// addresses allowed, and the delays before each attempt (default
	// 0s, 5s, 5m, 30m, 2h, 5h, 10h, 10h).
	WebhookAllowPrivate  bool
	WebhookRetrySchedule []time.Duration

	// Single sign-on (docs/auth.md): identity providers on private
	// addresses allowed; the DNS server (host:port) domain verification
	// asks, "" for the system's resolver.
	SSOAllowPrivate bool
	DNSServer       string

	// Document generation (docs/documents.md): workers (default 2), the
	// lease of a claim and the time limit of one document (docgen's
	// defaults), the throttle of generations per IP and per account
	// (default 1 per second, bursts of 20), and the LibreOffice processes
	// kept running for PDFs (PDFListeners; 0: office.DefaultPDFConcurrent,
	// negative: a soffice per PDF). BeforeGenerate, when set, runs before
	// each document is rendered (tests).
	DocumentWorkers   int
	DocumentLease     time.Duration
	DocumentTimeLimit time.Duration
	DocumentsRate     float64
	DocumentsBurst    int
	PDFListeners      int
	BeforeGenerate    func(ctx context.Context, doc *engine.Record)

	// MCP (docs/mcp.md): messages per second and burst of each access
	// token (mcpadapter's defaults when zero).
	MCPRate  float64
	MCPBurst int

	// AdminToken, when set, mounts the download of a consistent backup of
	// a bbolt store at httpadapter.BackupPath (docs/operations.md,
	// "Backups"); 32 or more printable characters.
	AdminToken string

	// Monitoring (docs/operations.md, "Monitoring"): Metrics keeps the
	// Prometheus metrics (served on MetricsAddr, or on the API host behind
	// MetricsToken); Spans receives the traces (observe.OTLP for a
	// collector, or an exporter of one's own).
	Metrics      bool
	MetricsToken string
	Spans        sdktrace.SpanExporter

	// Bootstrap, when set, is provisioned at every start (idempotent):
	// the accounts, roles and people the API cannot create.
	Bootstrap *provision.Spec
	// Demo says whether the demo account is created (DemoAuto: on the
	// first start, when there is no Bootstrap).
	Demo DemoMode
}

// DemoMode is whether a start creates the demo account and its data
// (docs/operations.md, "Demo data").
type DemoMode int

// The demo choices.
const (
	DemoAuto DemoMode = iota // on the deployment's first start, when Config.Bootstrap is nil
	DemoOn                   // whenever the demo account does not exist
	DemoOff                  // never
)

// defaultRetrySchedule is docs/webhooks.md's schedule.
var defaultRetrySchedule = []time.Duration{0, 5 * time.Second, 5 * time.Minute, 30 * time.Minute,
	2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour}

// withDefaults returns cfg with its defaults filled in, or the first
// value that cannot be used.
func (cfg Config) withDefaults() (Config, error) {
	if cfg.DataFile == "" {
		cfg.DataFile = "./scopekit.db"
	}
	if cfg.KeyFile == "" {
		cfg.KeyFile = cfg.DataFile + ".key"
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if len(cfg.WebhookRetrySchedule) == 0 {
		cfg.WebhookRetrySchedule = defaultRetrySchedule
	}
	if cfg.DocumentWorkers <= 0 {
		cfg.DocumentWorkers = 2
	}
	if cfg.DocumentsRate <= 0 {
		cfg.DocumentsRate = 1
	}
	if cfg.DocumentsBurst <= 0 {
		cfg.DocumentsBurst = 20
	}
	if cfg.Addr == "" && cfg.BaseURL == "" {
		return cfg, errors.New("app: Config.BaseURL is required without Config.Addr: links, and the workspace's sign-in, name it")
	}
	if cfg.Key != nil && len(cfg.Key) != KeySize {
		return cfg, fmt.Errorf("the secret key must be %d bytes (it has %d)", KeySize, len(cfg.Key))
	}
	if cfg.AdminToken != "" && !StrongToken(cfg.AdminToken) {
		return cfg, errors.New("the admin token must be 32 or more printable ASCII characters without spaces")
	}
	if cfg.Bootstrap != nil {
		if err := cfg.Bootstrap.Validate(); err != nil {
			return cfg, &StepError{Step: "bootstrap", Err: err}
		}
	}
	if cfg.Demo == DemoOn && cfg.Bootstrap != nil {
		for i, a := range cfg.Bootstrap.Accounts {
			if a.Slug == DemoSlug {
				return cfg, &StepError{Step: "bootstrap", Err: fmt.Errorf("%s: the account %q is the demo's, which is asked for too: "+
					"give the account another slug, or start without the demo", provision.EntryName("accounts", i, a.Slug), DemoSlug)}
			}
		}
	}
	return cfg, nil
}

// StrongToken reports whether an operator token is long enough to resist
// guessing (nothing throttles the backup route) and fits a bearer header:
// 32 or more printable ASCII characters, no spaces.
func StrongToken(tok string) bool {
	if len(tok) < 32 {
		return false
	}
	for _, r := range tok {
		if r <= ' ' || r > '~' {
			return false
		}
	}
	return true
}

// StepError is the failure of one step of New ("key", "store",
// "bootstrap", "demo", ...): Step names it for the messages of the
// program that starts the service.
type StepError struct {
	Step string
	Err  error
}

func (e *StepError) Error() string { return e.Step + ": " + e.Err.Error() }

func (e *StepError) Unwrap() error { return e.Err }
