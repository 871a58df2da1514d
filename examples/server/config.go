package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/scopekit/scopekit/app"
	"github.com/scopekit/scopekit/docgen"
	"github.com/scopekit/scopekit/httpadapter"
	"github.com/scopekit/scopekit/mcpadapter"
	"github.com/scopekit/scopekit/office"
	"github.com/scopekit/scopekit/pgstore"
	"github.com/scopekit/scopekit/provision"
)

// envPrefix prefixes the environment variable of each flag: -token-rate is
// SCOPEKIT_TOKEN_RATE.
const envPrefix = "SCOPEKIT_"

// config is the parsed and validated command line (docs/operations.md, "Example
// server flags").
type config struct {
	Addr     string
	AuthAddr string
	BaseURL  string // "" until the API listener is bound: http://<addr>
	Data     string
	// Database is a PostgreSQL URL (-database); when set it replaces the
	// bbolt file, so that several instances serve one database.
	Database  string
	Bootstrap string
	// Demo is the -demo flag; DemoSet says whether it was given (flag or
	// environment). When it was not, the demo is created only on a new
	// database started without -bootstrap.
	Demo     bool
	DemoSet  bool
	LogLevel slog.Level

	// Token throttling on POST /oauth/token (docs/auth.md, "Throttling on the
	// auth host"), handed to httpadapter.Server.Throttle by throttle().
	TokenRate        float64
	TokenBurst       int
	TokenBlockAfter  int
	TokenBlockWindow time.Duration
	TokenBlockFor    time.Duration
	TokenGlobalRate  float64
	// UniformTokenErrors answers invalid_grant for an unknown email
	// (auth.Service.UniformTokenErrors; docs/auth.md).
	UniformTokenErrors bool

	// Webhook delivery (docs/webhooks.md): handed to the dispatcher and to the
	// destination check of subscriptions.
	WebhookAllowPrivate  bool
	WebhookRetrySchedule []time.Duration
	// WebhookClaim is how long an instance on PostgreSQL keeps a due
	// delivery from the other instances (pgstore.DB.Claim).
	WebhookClaim time.Duration
	// SecretKeyFile holds the key that seals webhook secrets, TOTP seeds
	// and the identity providers' client secrets; "" means keyFile's
	// default.
	SecretKeyFile string
	// SSOAllowPrivate lets single sign-on reach identity providers on
	// loopback and private addresses (docs/auth.md "Single sign-on").
	SSOAllowPrivate bool
	// DNSServer is the DNS server (host:port) domain verification asks
	// for TXT records; "" is the system's resolver.
	DNSServer string

	// Limits of slow and oversized requests (docs/limits.md), handed to
	// httpadapter.Server.Limits.
	Limits httpadapter.Limits
	// Document generation (documents.md): the worker pool's size and the
	// throttling of generation requests per IP and per account.
	DocumentWorkers int
	// DocumentLease is how long a worker's claim holds a document without
	// renewal (docgen.Pool.Lease).
	DocumentLease time.Duration
	// DocumentTimeLimit bounds one document's generation
	// (docgen.Pool.TimeLimit).
	DocumentTimeLimit time.Duration
	DocumentsRate     float64
	DocumentsBurst    int
	// PDFListeners is how many LibreOffice processes the warm PDF
	// converter keeps running; 0 means one soffice per PDF.
	PDFListeners int

	// AdminToken is the operator's token of the backup download
	// (backup.go); "" means no such route. The handler keeps its digest.
	AdminToken string
	// MCP calls per second and burst of each access token (docs/mcp.md),
	// handed to mcpadapter.Server.
	MCPRate  float64
	MCPBurst int
	// Monitoring (docs/operations.md, "Monitoring"): the metrics and
	// probes listener, the bearer token of /metrics, the OTLP collector.
	MetricsAddr  string
	MetricsToken string
	OTLPEndpoint string
}

// keyFile is the secret key file: -secret-key-file, or the data file's
// path with ".key" appended.
func (c *config) keyFile() string {
	if c.SecretKeyFile != "" {
		return c.SecretKeyFile
	}
	return c.Data + ".key"
}

// errHelp is returned by parseConfig for -h/-help; main prints the usage
// and exits 0.
var errHelp = flag.ErrHelp

// parseConfig reads the flags from args, each defaulting to its
// SCOPEKIT_<NAME> environment variable; a flag given on the command line
// wins over the variable. Every error is one line naming the flag or the
// variable that carried the bad value.
func parseConfig(args []string, getenv func(string) string) (*config, error) {
	fs, raw := newFlagSet(io.Discard)
	if err := fs.Parse(args); err != nil {
		return nil, err // flag.ErrHelp for -h, else the flag package's one line
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q (flags only; see -h)", fs.Arg(0))
	}
	source := map[string]string{} // flag name -> how it was given
	fs.Visit(func(f *flag.Flag) { source[f.Name] = "-" + f.Name })
	var envErr error
	fs.VisitAll(func(f *flag.Flag) {
		name := envName(f.Name)
		v := getenv(name)
		if v == "" || source[f.Name] != "" || envErr != nil {
			return
		}
		if err := fs.Set(f.Name, v); err != nil { // only booleans can fail here
			envErr = fmt.Errorf("invalid value %q for %s: must be true or false", v, name)
		}
		source[f.Name] = name
	})
	if envErr != nil {
		return nil, envErr
	}
	return raw.validate(source)
}

// usage returns the text of -h.
func usage() string {
	var b strings.Builder
	fs, _ := newFlagSet(&b)
	b.WriteString("Usage: server [flags]\n\nEach flag may also be set with the environment variable SCOPEKIT_<NAME>\n" +
		"(upper case, dashes as underscores, e.g. SCOPEKIT_TOKEN_RATE); a flag on the\ncommand line wins.\n\n")
	fs.PrintDefaults()
	b.WriteString(commandUsage())
	return b.String()
}

func envName(flagName string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// rawFlags holds flag values before validation. Numbers and durations are
// read as strings so that the error message is ours, not strconv's.
type rawFlags struct {
	addr, authAddr, baseURL, data, bootstrap string
	database, webhookClaim                   string
	demo                                     bool
	logLevel                                 string
	tokenRate, tokenBurst, tokenBlockAfter   string
	tokenBlockWindow, tokenBlockFor          string
	tokenGlobalRate                          string
	uniformTokenErrors                       bool
	webhookAllowPrivate                      bool
	ssoAllowPrivate                          bool
	dnsServer                                string
	webhookRetrySchedule                     string
	secretKeyFile                            string
	readHeaderTimeout, bodyTimeout           string
	idleTimeout, maxHeaderBytes              string
	documentWorkers, documentLease           string
	documentTimeLimit                        string
	documentsRate, documentsBurst            string
	pdfListeners                             string
	adminToken                               string
	mcpRate, mcpBurst                        string
	metricsAddr, metricsToken, otlpEndpoint  string
}

func newFlagSet(out io.Writer) (*flag.FlagSet, *rawFlags) {
	fs := flag.NewFlagSet("scopekit", flag.ContinueOnError)
	fs.SetOutput(out)
	r := &rawFlags{}
	fs.StringVar(&r.addr, "addr", "127.0.0.1:8080", "API listener `host:port`; also serves /oauth/* unless -auth-addr is set")
	fs.StringVar(&r.authAddr, "auth-addr", "", "separate listener `host:port` for /oauth/* (the auth host)")
	fs.StringVar(&r.baseURL, "base-url", "", "the base `URL` used in links (default http://<addr>)")
	fs.StringVar(&r.data, "data", "./scopekit.db", "bbolt database `file` (created if missing)")
	fs.StringVar(&r.database, "database", "", "PostgreSQL `URL` (postgres://user:password@host/db, postgres:///db?host=/socket/folder, or key=value settings) to use instead of the bbolt file; several instances may share it")
	fs.StringVar(&r.webhookClaim, "webhook-claim", pgstore.DefaultClaim.String(), "with -database: how long (a `duration`) an instance keeps a due webhook delivery from the others; after it (the instance died) another one attempts it")
	fs.StringVar(&r.bootstrap, "bootstrap", "", "apply this bootstrap `file` (JSON) before serving; idempotent")
	fs.BoolVar(&r.demo, "demo", false, "create the demo account and data (default: true when the database is new and no -bootstrap is given)")
	fs.StringVar(&r.logLevel, "log-level", "info", "log `level`: debug, info, warn or error")
	fs.StringVar(&r.tokenRate, "token-rate", "10", "token requests per second (a `rate`) per client IP on POST /oauth/token")
	fs.StringVar(&r.tokenBurst, "token-burst", "30", "burst (a `count`) of the per-IP token bucket")
	fs.StringVar(&r.tokenBlockAfter, "token-block-after", "100", "`count` of throttled token requests from one IP within -token-block-window that trigger a block")
	fs.StringVar(&r.tokenBlockWindow, "token-block-window", "10m", "window (a `duration`) of -token-block-after")
	fs.StringVar(&r.tokenBlockFor, "token-block-for", "1h", "how long (a `duration`) a blocked IP gets 403")
	fs.StringVar(&r.tokenGlobalRate, "token-global-rate", "500", "ceiling on tokens minted per second (a `rate`) across all clients")
	fs.BoolVar(&r.uniformTokenErrors, "uniform-token-errors", false, "answer invalid_grant, as for a wrong password, when a password grant names an unknown email (instead of the spec's invalid_resource_owner)")
	fs.BoolVar(&r.webhookAllowPrivate, "webhook-allow-private", false, "allow webhook destinations on loopback/private addresses")
	fs.StringVar(&r.webhookRetrySchedule, "webhook-retry-schedule", "0s,5s,5m,30m,2h,5h,10h,10h", "delays before each webhook attempt, comma-separated Go `durations`")
	fs.StringVar(&r.secretKeyFile, "secret-key-file", "", "`file` of the 32-byte key that encrypts webhook secrets, TOTP seeds and identity providers' client secrets at rest (default <data file>.key, created with mode 0600 if missing)")
	fs.BoolVar(&r.ssoAllowPrivate, "sso-allow-private", false, "allow identity providers (single sign-on) on loopback/private addresses")
	fs.StringVar(&r.dnsServer, "dns-server", "", "DNS server `host:port` that domain verification (single sign-on) asks for TXT records (default: the system's resolver)")
	fs.StringVar(&r.readHeaderTimeout, "read-header-timeout", httpadapter.DefaultReadHeaderTimeout.String(), "time (a `duration`) a client has to send its request line and headers; the connection is closed after it")
	fs.StringVar(&r.bodyTimeout, "body-timeout", httpadapter.DefaultBodyTimeout.String(), "time (a `duration`) a client has to send a request body; 408 after it")
	fs.StringVar(&r.idleTimeout, "idle-timeout", httpadapter.DefaultIdleTimeout.String(), "how long (a `duration`) an idle keep-alive connection stays open")
	fs.StringVar(&r.maxHeaderBytes, "max-header-bytes", strconv.Itoa(httpadapter.DefaultMaxHeaderBytes), "largest request line and headers (a `count` of bytes); 431 above")
	fs.StringVar(&r.documentWorkers, "document-workers", "2", "documents generated at once (a `count` of workers)")
	fs.StringVar(&r.pdfListeners, "pdf-listeners", strconv.Itoa(office.DefaultPDFConcurrent), "LibreOffice processes (a `count`) kept running to make PDFs, started with the first PDF; 0 starts a soffice per PDF")
	fs.StringVar(&r.documentTimeLimit, "document-time-limit", docgen.DefaultTimeLimit.String(), "how long (a `duration`) one document may take to generate, its PDF included; past it the document ends in error, saying so, and its worker takes the next")
	fs.StringVar(&r.documentLease, "document-lease", docgen.DefaultLease.String(), "how long (a `duration`) a worker's claim holds a generating document without renewal; workers renew it every third, and a document whose instance died is re-queued once it runs out")
	fs.StringVar(&r.documentsRate, "documents-rate", "1", "document generations per second (a `rate`) per client IP and per account")
	fs.StringVar(&r.documentsBurst, "documents-burst", "20", "burst (a `count`) of the document generation buckets")
	fs.StringVar(&r.adminToken, "admin-token", "", "operator `token` (32 or more printable characters) that downloads a backup of the whole bbolt file at GET /v1/admin/backup; unset, there is no such route. Prefer SCOPEKIT_ADMIN_TOKEN: command lines are visible to other users")
	fs.StringVar(&r.mcpRate, "mcp-rate", strconv.Itoa(mcpadapter.DefaultCallRate), "JSON-RPC messages per second (a `rate`) each person (all of a user's access tokens together) may send to /mcp")
	fs.StringVar(&r.mcpBurst, "mcp-burst", strconv.Itoa(mcpadapter.DefaultCallBurst), "burst (a `count`) of each person's /mcp bucket; at least the batch cap, 20")
	fs.StringVar(&r.metricsAddr, "metrics-addr", "", "listener `host:port` of /metrics, /healthz and /readyz (default: no metrics)")
	fs.StringVar(&r.metricsToken, "metrics-token", "", "bearer `token` /metrics requires; without -metrics-addr it serves /metrics on the API listener behind it")
	fs.StringVar(&r.otlpEndpoint, "otlp-endpoint", "", "OpenTelemetry collector `URL` (OTLP/HTTP, e.g. http://127.0.0.1:4318) to send traces to (default: no traces)")
	return fs, r
}

// validate checks every value; source maps the flags given explicitly to
// how they were given ("-addr" or "SCOPEKIT_ADDR"), for error messages.
func (r *rawFlags) validate(source map[string]string) (*config, error) {
	c := &config{
		Addr: r.addr, AuthAddr: r.authAddr, Data: r.data, Database: r.database, Bootstrap: r.bootstrap,
		Demo: r.demo, DemoSet: source["demo"] != "", WebhookAllowPrivate: r.webhookAllowPrivate,
		UniformTokenErrors: r.uniformTokenErrors, SSOAllowPrivate: r.ssoAllowPrivate,
	}
	bad := func(flagName, value, format string, args ...any) error {
		from := source[flagName]
		if from == "" {
			from = "-" + flagName
		}
		return fmt.Errorf("invalid value %q for %s: %s", value, from, fmt.Sprintf(format, args...))
	}
	if err := checkHostPort(r.addr); err != nil {
		return nil, bad("addr", r.addr, "%v", err)
	}
	if r.authAddr != "" {
		if err := checkHostPort(r.authAddr); err != nil {
			return nil, bad("auth-addr", r.authAddr, "%v", err)
		}
	}
	if r.baseURL != "" {
		u, err := url.Parse(r.baseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" ||
			u.RawQuery != "" || u.Fragment != "" || u.User != nil {
			return nil, bad("base-url", r.baseURL, "must be an http or https URL such as https://api.example.com")
		}
		c.BaseURL = strings.TrimSuffix(r.baseURL, "/")
	}
	if strings.TrimSpace(r.data) == "" {
		return nil, bad("data", r.data, "must name a file")
	}
	if r.database != "" {
		if err := checkDatabaseURL(r.database); err != nil {
			return nil, bad("database", redactURL(r.database), "%v", err)
		}
	}
	c.SecretKeyFile = r.secretKeyFile
	switch strings.ToLower(r.logLevel) {
	case "debug":
		c.LogLevel = slog.LevelDebug
	case "info":
		c.LogLevel = slog.LevelInfo
	case "warn":
		c.LogLevel = slog.LevelWarn
	case "error":
		c.LogLevel = slog.LevelError
	default:
		return nil, bad("log-level", r.logLevel, "must be debug, info, warn or error")
	}

	var err error
	if c.TokenRate, err = positiveFloat(r.tokenRate); err != nil {
		return nil, bad("token-rate", r.tokenRate, "%v", err)
	}
	if c.TokenGlobalRate, err = positiveFloat(r.tokenGlobalRate); err != nil {
		return nil, bad("token-global-rate", r.tokenGlobalRate, "%v", err)
	}
	if c.TokenBurst, err = positiveInt(r.tokenBurst); err != nil {
		return nil, bad("token-burst", r.tokenBurst, "%v", err)
	}
	if c.TokenBlockAfter, err = positiveInt(r.tokenBlockAfter); err != nil {
		return nil, bad("token-block-after", r.tokenBlockAfter, "%v", err)
	}
	if c.TokenBlockWindow, err = positiveDuration(r.tokenBlockWindow); err != nil {
		return nil, bad("token-block-window", r.tokenBlockWindow, "%v", err)
	}
	if c.TokenBlockFor, err = positiveDuration(r.tokenBlockFor); err != nil {
		return nil, bad("token-block-for", r.tokenBlockFor, "%v", err)
	}
	if c.WebhookRetrySchedule, err = retrySchedule(r.webhookRetrySchedule); err != nil {
		return nil, bad("webhook-retry-schedule", r.webhookRetrySchedule, "%v", err)
	}
	if c.WebhookClaim, err = positiveDuration(r.webhookClaim); err != nil {
		return nil, bad("webhook-claim", r.webhookClaim, "%v", err)
	}
	if c.Limits.ReadHeaderTimeout, err = positiveDuration(r.readHeaderTimeout); err != nil {
		return nil, bad("read-header-timeout", r.readHeaderTimeout, "%v", err)
	}
	if c.Limits.BodyTimeout, err = positiveDuration(r.bodyTimeout); err != nil {
		return nil, bad("body-timeout", r.bodyTimeout, "%v", err)
	}
	if c.Limits.IdleTimeout, err = positiveDuration(r.idleTimeout); err != nil {
		return nil, bad("idle-timeout", r.idleTimeout, "%v", err)
	}
	if c.Limits.MaxHeaderBytes, err = positiveInt(r.maxHeaderBytes); err != nil {
		return nil, bad("max-header-bytes", r.maxHeaderBytes, "%v", err)
	}
	if c.DocumentWorkers, err = positiveInt(r.documentWorkers); err != nil {
		return nil, bad("document-workers", r.documentWorkers, "%v", err)
	}
	if c.PDFListeners, err = strconv.Atoi(r.pdfListeners); err != nil || c.PDFListeners < 0 {
		return nil, bad("pdf-listeners", r.pdfListeners, "must be a whole number, 0 or more")
	}
	if c.DocumentLease, err = positiveDuration(r.documentLease); err != nil {
		return nil, bad("document-lease", r.documentLease, "%v", err)
	}
	if c.DocumentTimeLimit, err = positiveDuration(r.documentTimeLimit); err != nil {
		return nil, bad("document-time-limit", r.documentTimeLimit, "%v", err)
	}
	if c.DocumentsRate, err = positiveFloat(r.documentsRate); err != nil {
		return nil, bad("documents-rate", r.documentsRate, "%v", err)
	}
	if c.DocumentsBurst, err = positiveInt(r.documentsBurst); err != nil {
		return nil, bad("documents-burst", r.documentsBurst, "%v", err)
	}
	if c.AdminToken = r.adminToken; c.AdminToken != "" && !app.StrongToken(c.AdminToken) {
		return nil, bad("admin-token", "(not shown)", "must be 32 or more printable ASCII characters without spaces, e.g. from openssl rand -hex 32")
	}
	if c.MCPRate, err = positiveFloat(r.mcpRate); err != nil {
		return nil, bad("mcp-rate", r.mcpRate, "%v", err)
	}
	if c.MCPBurst, err = positiveInt(r.mcpBurst); err != nil {
		return nil, bad("mcp-burst", r.mcpBurst, "%v", err)
	}
	if r.metricsAddr != "" {
		if err := checkHostPort(r.metricsAddr); err != nil {
			return nil, bad("metrics-addr", r.metricsAddr, "%v", err)
		}
	}
	if r.dnsServer != "" {
		if err := checkHostPort(r.dnsServer); err != nil {
			return nil, bad("dns-server", r.dnsServer, "%v", err)
		}
		c.DNSServer = r.dnsServer
	}
	if u, err := url.Parse(r.otlpEndpoint); r.otlpEndpoint != "" && (err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "") {
		return nil, bad("otlp-endpoint", r.otlpEndpoint, "must be an http or https URL such as http://127.0.0.1:4318")
	}
	c.MetricsAddr, c.MetricsToken, c.OTLPEndpoint = r.metricsAddr, r.metricsToken, r.otlpEndpoint
	return c, nil
}

// appConfig is the service's configuration the flags describe, with the
// logger and the bootstrap file's spec (nil: none).
func (c *config) appConfig(logger *slog.Logger, boot *provision.Spec) app.Config {
	demo := app.DemoAuto
	if c.DemoSet {
		demo = app.DemoOff
		if c.Demo {
			demo = app.DemoOn
		}
	}
	pdf := c.PDFListeners
	if pdf == 0 {
		pdf = -1 // -pdf-listeners 0: a soffice per PDF
	}
	return app.Config{
		DataFile: c.Data, Database: c.Database, WebhookClaim: c.WebhookClaim, KeyFile: c.keyFile(),
		Addr: c.Addr, AuthAddr: c.AuthAddr, MetricsAddr: c.MetricsAddr, BaseURL: c.BaseURL, Logger: logger,
		Throttle: c.throttle(), UniformTokenErrors: c.UniformTokenErrors, BcryptCost: bcryptCost, Limits: c.Limits,
		WebhookAllowPrivate: c.WebhookAllowPrivate, WebhookRetrySchedule: c.WebhookRetrySchedule,
		SSOAllowPrivate: c.SSOAllowPrivate, DNSServer: c.DNSServer,
		DocumentWorkers: c.DocumentWorkers, DocumentLease: c.DocumentLease, DocumentTimeLimit: c.DocumentTimeLimit,
		DocumentsRate: c.DocumentsRate, DocumentsBurst: c.DocumentsBurst, PDFListeners: pdf, BeforeGenerate: beforeGenerate,
		MCPRate: c.MCPRate, MCPBurst: c.MCPBurst, AdminToken: c.AdminToken,
		Metrics: c.MetricsAddr != "" || c.MetricsToken != "", MetricsToken: c.MetricsToken,
		Bootstrap: boot, Demo: demo,
	}
}

// throttle is the auth host's throttling configured by the -token-* flags.
func (c *config) throttle() httpadapter.Throttle {
	return httpadapter.Throttle{
		Rate:        c.TokenRate,
		Burst:       c.TokenBurst,
		BlockAfter:  c.TokenBlockAfter,
		BlockWindow: c.TokenBlockWindow,
		BlockFor:    c.TokenBlockFor,
		GlobalRate:  c.TokenGlobalRate,
	}
}

// checkDatabaseURL accepts what pgx connects with (pgconn.ParseConfig): a
// postgres:// URL, its host in the authority or in the query (a unix
// socket's folder: postgres:///scopekit?host=/var/run/postgresql) or
// left to PGHOST and the default socket, or key=value settings
// (host=/var/run/postgresql dbname=scopekit).
func checkDatabaseURL(raw string) error {
	const want = "must be a postgres:// URL such as postgres://scopekit:secret@127.0.0.1:5432/scopekit " +
		"(on a unix socket: postgres:///scopekit?host=/var/run/postgresql) or key=value settings such as " +
		"host=/var/run/postgresql dbname=scopekit"
	if strings.Contains(raw, "://") {
		if u, err := url.Parse(raw); err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
			return errors.New(want)
		}
	}
	if _, err := pgconn.ParseConfig(raw); err != nil {
		return errors.New(want) // pgx's reason may quote the password
	}
	return nil
}

// keyValuePassword is a password in key=value settings.
var keyValuePassword = regexp.MustCompile(`(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'|\S*)`)

// redactURL hides the password of a database URL or key=value settings in
// messages.
func redactURL(raw string) string {
	if !strings.Contains(raw, "://") {
		return keyValuePassword.ReplaceAllString(raw, "${1}xxxxx")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	if q := u.Query(); q.Has("password") { // libpq's other place for it
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}

// where names the database in the banner and the logs: the URL without
// its password, or the bbolt file.
func (c *config) where() string {
	if c.Database != "" {
		return redactURL(c.Database)
	}
	return c.Data
}

func checkHostPort(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return errors.New("must be host:port, e.g. 127.0.0.1:8080")
	}
	if _, err := net.LookupPort("tcp", port); err != nil {
		return fmt.Errorf("bad port %q", port)
	}
	return nil
}

func positiveFloat(s string) (float64, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, errors.New("not a number")
	}
	if !(f > 0) || math.IsInf(f, 0) {
		return 0, errors.New("must be a positive number")
	}
	return f, nil
}

func positiveInt(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, errors.New("not a whole number")
	}
	if n <= 0 {
		return 0, errors.New("must be a positive whole number")
	}
	return n, nil
}

func positiveDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, errors.New("not a Go duration such as 10m or 1h")
	}
	if d <= 0 {
		return 0, errors.New("must be a positive duration")
	}
	return d, nil
}

// retrySchedule parses "0s,5s,5m": at least one delay, none negative.
func retrySchedule(s string) ([]time.Duration, error) {
	var out []time.Duration
	for i, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		d, err := time.ParseDuration(part)
		if err != nil {
			return nil, fmt.Errorf("entry %d (%q) is not a Go duration such as 5s or 2h", i+1, part)
		}
		if d < 0 {
			return nil, fmt.Errorf("entry %d (%q) is negative", i+1, part)
		}
		out = append(out, d)
	}
	return out, nil
}
