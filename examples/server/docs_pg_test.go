package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/scopekit/scopekit/pgstore/pgtest"
	"github.com/stretchr/testify/require"
)

// The blocks marked <!-- postgres: ... --> run as a reader pastes them,
// from the repository's root, against the PostgreSQL server the tests use
// (SCOPEKIT_TEST_DATABASE), told to them as psql is told: PGHOST, PGPORT,
// PGUSER, PGPASSWORD. Each block starts what it needs itself; the test
// gives it a database of its own (the block's "scopekit" renamed) and
// free ports for the addresses it listens on, and afterwards ends every
// process the block left and drops the database.

// Ensure the PostgreSQL blocks of README.md and docs/*.md run.
func TestDocsPostgresBlocks(t *testing.T) {
	base := os.Getenv(pgtest.EnvVar)
	if base == "" {
		t.Skip(pgtest.EnvVar + " is not set: no PostgreSQL server to run the docs' PostgreSQL blocks against")
	}
	for _, prog := range []string{"bash", "curl", "createdb", "timeout"} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Skipf("skipping the docs' PostgreSQL blocks: %s is not installed (.ci/run installs it)", prog)
		}
	}
	cfg, err := pgconn.ParseConfig(base)
	require.NoError(t, err)
	root, err := filepath.Abs(filepath.Join("..", ".."))
	require.NoError(t, err)
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	require.NoError(t, err)
	n := 0
	for _, file := range append([]string{filepath.Join(root, "README.md")}, files...) {
		for _, b := range shellBlocks(t, file) {
			if !b.postgres {
				continue
			}
			n++
			name, _ := filepath.Rel(root, file)
			t.Run(name+":"+strconv.Itoa(b.line), func(t *testing.T) {
				out := runPostgresBlock(t, b, root, base, cfg)
				if want, ok := docPostgresFigures[name]; ok {
					for _, w := range want {
						require.Contains(t, out, w)
					}
				}
				for _, once := range docPostgresOnce[name] {
					require.Equal(t, 1, strings.Count(out, once), "%q in the output, once:\n%s", once, out)
				}
			})
		}
	}
	require.NotZero(t, n, "no block is marked <!-- postgres: ... -->: README.md's several instances are")
}

// docPostgresFigures are what the PostgreSQL blocks of a file must show,
// and docPostgresOnce what they must show exactly once.
var (
	docPostgresFigures = map[string][]string{
		"README.md": {`"project-name":"Initech SD-WAN"`, `"total_contract_value":"`, `"status":"approved"`},
	}
	docPostgresOnce = map[string][]string{
		"README.md": {"draft -> pending_approval", "pending_approval -> approved"},
	}
)

// runPostgresBlock runs b from root on a database of its own on the
// server of base (cfg parsed) and returns its output.
func runPostgresBlock(t *testing.T, b docBlock, root, base string, cfg *pgconn.Config) string {
	raw := make([]byte, 4)
	_, _ = rand.Read(raw)
	db := "scopekit_docs_" + hex.EncodeToString(raw)
	code := b.code
	for _, re := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^(createdb .*\s)scopekit(\s|$)`),
		regexp.MustCompile(`(postgres:///)scopekit\b`),
	} {
		require.Regexp(t, re, code, "%s:%d: the block's database is no longer named as the test expects", b.file, b.line)
		code = re.ReplaceAllString(code, "${1}"+db+"${2}")
	}
	ports := map[string]string{}
	code = regexp.MustCompile(`127\.0\.0\.1:(\d+)`).ReplaceAllStringFunc(code, func(addr string) string {
		if _, ok := ports[addr]; !ok {
			ports[addr] = freeAddr(t)
		}
		return ports[addr]
	})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("drop database %s: %v", db, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+db+" WITH (FORCE)"); err != nil {
			t.Errorf("drop database %s: %v", db, err)
		}
	})

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // two builds on a loaded machine
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", "set -e -o pipefail\n"+code)
	cmd.Dir = root
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // the block's servers are in the group, and end with it
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.Env = append(os.Environ(), "PGHOST="+cfg.Host, "PGPORT="+strconv.Itoa(int(cfg.Port)), "PGUSER="+cfg.User,
		"PGPASSWORD="+cfg.Password, "PGDATABASE=", "PGSSLMODE="+sslMode(base))
	t.Cleanup(func() {
		if cmd.Process != nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // what the block left running after a failure
		}
	})
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s:%d failed:\n%s", b.file, b.line, out)
	return string(out)
}

// sslMode is the sslmode of a connection string, or prefer (libpq's
// default).
func sslMode(conn string) string {
	if m := regexp.MustCompile(`sslmode=(\w+)`).FindStringSubmatch(conn); m != nil {
		return m[1]
	}
	return "prefer"
}
