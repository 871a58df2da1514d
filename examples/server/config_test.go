package main

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/scopekit/scopekit/httpadapter"
	"github.com/stretchr/testify/require"
)

// Ensure the defaults are docs/operations.md's.
func TestConfigDefaults(t *testing.T) {
	c, err := parseConfig(nil, env())
	require.NoError(t, err)
	require.Equal(t, &config{
		Addr: "127.0.0.1:8080", Data: "./scopekit.db", LogLevel: slog.LevelInfo,
		TokenRate: 10, TokenBurst: 30, TokenBlockAfter: 100, TokenBlockWindow: 10 * time.Minute,
		TokenBlockFor: time.Hour, TokenGlobalRate: 500,
		WebhookRetrySchedule: []time.Duration{0, 5 * time.Second, 5 * time.Minute, 30 * time.Minute,
			2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour},
		WebhookClaim: time.Minute,
		Limits: httpadapter.Limits{ReadHeaderTimeout: 10 * time.Second, BodyTimeout: 20 * time.Second,
			IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10},
		DocumentWorkers: 2, DocumentLease: 2 * time.Minute, DocumentTimeLimit: time.Minute, DocumentsRate: 1, DocumentsBurst: 20, PDFListeners: 2,
		MCPRate: 10, MCPBurst: 60,
	}, c)
}

// Ensure every flag reads SCOPEKIT_<NAME> and the command line wins.
func TestConfigEnvironment(t *testing.T) {
	getenv := env("SCOPEKIT_ADDR=0.0.0.0:9000", "SCOPEKIT_AUTH_ADDR=127.0.0.1:9001", "SCOPEKIT_BASE_URL=https://x.test/",
		"SCOPEKIT_DATA=/tmp/a.db", "SCOPEKIT_BOOTSTRAP=b.json", "SCOPEKIT_DEMO=true", "SCOPEKIT_LOG_LEVEL=debug",
		"SCOPEKIT_TOKEN_RATE=2.5", "SCOPEKIT_TOKEN_BURST=5", "SCOPEKIT_TOKEN_BLOCK_AFTER=7",
		"SCOPEKIT_TOKEN_BLOCK_WINDOW=1m", "SCOPEKIT_TOKEN_BLOCK_FOR=2h", "SCOPEKIT_TOKEN_GLOBAL_RATE=50",
		"SCOPEKIT_WEBHOOK_ALLOW_PRIVATE=true", "SCOPEKIT_WEBHOOK_RETRY_SCHEDULE=1s, 2s",
		"SCOPEKIT_READ_HEADER_TIMEOUT=3s", "SCOPEKIT_BODY_TIMEOUT=4s", "SCOPEKIT_IDLE_TIMEOUT=5s", "SCOPEKIT_MAX_HEADER_BYTES=8192",
		"SCOPEKIT_DOCUMENT_WORKERS=4", "SCOPEKIT_DOCUMENT_LEASE=45s", "SCOPEKIT_DOCUMENT_TIME_LIMIT=90s", "SCOPEKIT_DOCUMENTS_RATE=0.5", "SCOPEKIT_DOCUMENTS_BURST=3",
		"SCOPEKIT_PDF_LISTENERS=0", "SCOPEKIT_DATABASE=postgres://sk:pw@db.test:5432/sk", "SCOPEKIT_WEBHOOK_CLAIM=30s", "SCOPEKIT_MCP_RATE=2", "SCOPEKIT_MCP_BURST=25")
	c, err := parseConfig(nil, getenv)
	require.NoError(t, err)
	require.Equal(t, &config{
		Addr: "0.0.0.0:9000", AuthAddr: "127.0.0.1:9001", BaseURL: "https://x.test", Data: "/tmp/a.db",
		Database: "postgres://sk:pw@db.test:5432/sk", WebhookClaim: 30 * time.Second, Bootstrap: "b.json", Demo: true, DemoSet: true, LogLevel: slog.LevelDebug,
		TokenRate: 2.5, TokenBurst: 5, TokenBlockAfter: 7, TokenBlockWindow: time.Minute, TokenBlockFor: 2 * time.Hour,
		TokenGlobalRate: 50, WebhookAllowPrivate: true, WebhookRetrySchedule: []time.Duration{time.Second, 2 * time.Second},
		Limits: httpadapter.Limits{ReadHeaderTimeout: 3 * time.Second, BodyTimeout: 4 * time.Second,
			IdleTimeout: 5 * time.Second, MaxHeaderBytes: 8192},
		DocumentWorkers: 4, DocumentLease: 45 * time.Second, DocumentTimeLimit: 90 * time.Second, DocumentsRate: 0.5, DocumentsBurst: 3, PDFListeners: 0, MCPRate: 2, MCPBurst: 25,
	}, c)

	c, err = parseConfig([]string{"-addr", "127.0.0.1:1", "-demo=false", "-token-rate", "3", "-token-burst=9"}, getenv)
	require.NoError(t, err)
	require.Equal(t, "127.0.0.1:1", c.Addr)
	require.False(t, c.Demo)
	require.True(t, c.DemoSet)
	require.Equal(t, 3.0, c.TokenRate)
	require.Equal(t, 9, c.TokenBurst)
	require.Equal(t, 7, c.TokenBlockAfter, "the variable still applies to flags not on the command line")

	// A bad variable is not reported when the command line overrides it.
	_, err = parseConfig([]string{"-token-rate=1"}, env("SCOPEKIT_TOKEN_RATE=abc"))
	require.NoError(t, err)
	_, err = parseConfig(nil, env("SCOPEKIT_TOKEN_RATE=abc"))
	require.EqualError(t, err, `invalid value "abc" for SCOPEKIT_TOKEN_RATE: not a number`)
}

// Ensure the values of later features are validated now.
func TestConfigValidation(t *testing.T) {
	for _, tc := range []struct{ arg, want string }{
		{"-token-rate=0", `invalid value "0" for -token-rate: must be a positive number`},
		{"-token-rate=NaN", `invalid value "NaN" for -token-rate: must be a positive number`},
		{"-token-global-rate=Inf", `invalid value "Inf" for -token-global-rate: must be a positive number`},
		{"-token-burst=1.5", `invalid value "1.5" for -token-burst: not a whole number`},
		{"-token-block-after=0", `invalid value "0" for -token-block-after: must be a positive whole number`},
		{"-token-block-for=forever", `invalid value "forever" for -token-block-for: not a Go duration such as 10m or 1h`},
		{"-webhook-retry-schedule=1s,,2s", `invalid value "1s,,2s" for -webhook-retry-schedule: entry 2 ("") is not a Go duration such as 5s or 2h`},
		{"-webhook-retry-schedule=-1s", `invalid value "-1s" for -webhook-retry-schedule: entry 1 ("-1s") is negative`},
		{"-auth-addr=nowhere", `invalid value "nowhere" for -auth-addr: must be host:port, e.g. 127.0.0.1:8080`},
		{"-dns-server=10.0.0.53", `invalid value "10.0.0.53" for -dns-server: must be host:port, e.g. 127.0.0.1:8080`},
		{"-data=", `invalid value "" for -data: must name a file`},
		{"-body-timeout=0s", `invalid value "0s" for -body-timeout: must be a positive duration`},
		{"-read-header-timeout=soon", `invalid value "soon" for -read-header-timeout: not a Go duration such as 10m or 1h`},
		{"-idle-timeout=-1s", `invalid value "-1s" for -idle-timeout: must be a positive duration`},
		{"-max-header-bytes=1k", `invalid value "1k" for -max-header-bytes: not a whole number`},
		{"-document-workers=0", `invalid value "0" for -document-workers: must be a positive whole number`},
		{"-pdf-listeners=-1", `invalid value "-1" for -pdf-listeners: must be a whole number, 0 or more`},
		{"-document-lease=0s", `invalid value "0s" for -document-lease: must be a positive duration`},
		{"-document-time-limit=-1s", `invalid value "-1s" for -document-time-limit: must be a positive duration`},
		{"-documents-rate=-1", `invalid value "-1" for -documents-rate: must be a positive number`},
		{"-documents-burst=x", `invalid value "x" for -documents-burst: not a whole number`},
		{"-database=mysql://u:secret@h/db", `invalid value "mysql://u:xxxxx@h/db" for -database: must be a postgres:// URL such as postgres://scopekit:secret@127.0.0.1:5432/scopekit (on a unix socket: postgres:///scopekit?host=/var/run/postgresql) or key=value settings such as host=/var/run/postgresql dbname=scopekit`},
		{"-database=/var/db", `invalid value "/var/db" for -database: must be a postgres:// URL such as postgres://scopekit:secret@127.0.0.1:5432/scopekit (on a unix socket: postgres:///scopekit?host=/var/run/postgresql) or key=value settings such as host=/var/run/postgresql dbname=scopekit`},
		{"-database=postgres://u:secret@h:port/db", `invalid value "(unparsable URL)" for -database: must be a postgres:// URL such as postgres://scopekit:secret@127.0.0.1:5432/scopekit (on a unix socket: postgres:///scopekit?host=/var/run/postgresql) or key=value settings such as host=/var/run/postgresql dbname=scopekit`},
		{"-database=host=h password='s e' port=x", `invalid value "host=h password=xxxxx port=x" for -database: must be a postgres:// URL such as postgres://scopekit:secret@127.0.0.1:5432/scopekit (on a unix socket: postgres:///scopekit?host=/var/run/postgresql) or key=value settings such as host=/var/run/postgresql dbname=scopekit`},
		{"-webhook-claim=0s", `invalid value "0s" for -webhook-claim: must be a positive duration`},
		{"-admin-token=short-secret", `invalid value "(not shown)" for -admin-token: must be 32 or more printable ASCII characters without spaces, e.g. from openssl rand -hex 32`},
		{"-admin-token=" + strings.Repeat("s", 31) + " ", `invalid value "(not shown)" for -admin-token: must be 32 or more printable ASCII characters without spaces, e.g. from openssl rand -hex 32`},
		{"-mcp-rate=0", `invalid value "0" for -mcp-rate: must be a positive number`},
		{"-mcp-burst=many", `invalid value "many" for -mcp-burst: not a whole number`},
	} {
		_, err := parseConfig([]string{tc.arg}, env())
		require.EqualError(t, err, tc.want, tc.arg)
	}
}

// Ensure -database takes every form pgx connects with: the host in the
// URL, in its query (a unix socket's folder), or left to PGHOST and the
// default socket, several hosts, and key=value settings.
func TestDatabaseURLForms(t *testing.T) {
	for _, raw := range []string{
		"postgres://scopekit:secret@127.0.0.1:5432/scopekit",
		"postgresql://127.0.0.1/scopekit?sslmode=disable&search_path=tenant1",
		"postgres:///scopekit?host=/var/run/postgresql",
		"postgres:///scopekit",
		"postgres://a.example:5432,b.example:5433/scopekit?target_session_attrs=read-write",
		"host=/var/run/postgresql dbname=scopekit",
		"host=127.0.0.1 port=5432 user=scopekit password='s e cret' dbname=scopekit",
	} {
		c, err := parseConfig([]string{"-database", raw}, env())
		require.NoError(t, err, raw)
		require.Equal(t, raw, c.Database)
	}
}
