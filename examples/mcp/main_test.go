package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/boltstore/bolttest"
	"github.com/scopekit/scopekit/internal/demodata"
	"github.com/scopekit/scopekit/mcpadapter"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
)

// demoDB creates a database with the worked example project and a service
// account, and returns its path and a file holding that account's token.
func demoDB(t *testing.T) (data, tokenFile string) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	data = filepath.Join(dir, "scopekit.db")
	db := bolttest.OpenFile(t, data, scoping.DefaultSchema())
	defer db.Close()
	svc := scoping.NewService(db)
	as := &auth.Service{Store: db.AuthStore(), Directory: scoping.Directory(db)}
	var acct, bot string
	require.NoError(t, svc.Setup(ctx, func(a *scoping.Admin) error {
		ac, err := a.EnsureAccount("demo", "Demo", "USD")
		if err != nil {
			return err
		}
		acct = ac.ID
		u, err := a.EnsureMember(acct, scoping.Member{Email: "bot@demo.test", Name: "Bot", UserType: "service", Role: "Account Admin"})
		if u != nil {
			bot = u.ID
		}
		return err
	}))
	actor, err := svc.SystemActor(ctx, acct)
	require.NoError(t, err)
	_, err = demodata.Seed(ctx, svc, actor, "")
	require.NoError(t, err)
	require.NoError(t, as.SetServiceCredential(ctx, acct, bot, "bot", "bot-secret"))
	tok, err := as.Token(ctx, &auth.TokenRequest{GrantType: "client_credentials", ClientID: "bot", ClientSecret: "bot-secret"})
	require.NoError(t, err)
	tokenFile = filepath.Join(dir, "token")
	require.NoError(t, os.WriteFile(tokenFile, []byte(tok.AccessToken+"\n"), 0o600))
	return data, tokenFile
}

// Ensure the stdio command serves the tools as the token's user.
func TestRunServesTheTools(t *testing.T) {
	data, tokenFile := demoDB(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	serverT, clientT := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"-data", data, "-token-file", tokenFile}, serverT, io.Discard) }()

	ses, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, clientT, nil)
	require.NoError(t, err)
	tools, err := ses.ListTools(ctx, nil)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(tools.Tools), 5)
	res, err := ses.CallTool(ctx, &mcp.CallToolParams{Name: mcpadapter.ToolSearchProjects, Arguments: map[string]any{"query": "firewall"}})
	require.NoError(t, err)
	require.False(t, res.IsError)
	projects := res.StructuredContent.(map[string]any)["projects"].([]any)
	require.Len(t, projects, 1)
	require.Equal(t, demodata.ProjectName, projects[0].(map[string]any)["name"])
	require.NoError(t, ses.Close())
	require.NoError(t, <-done)
}

// Ensure start-up problems are one clear error each.
func TestRunErrors(t *testing.T) {
	data, tokenFile := demoDB(t)
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	require.NoError(t, os.WriteFile(empty, []byte("\n"), 0o600))
	bad := filepath.Join(dir, "bad")
	require.NoError(t, os.WriteFile(bad, []byte("not-a-valid-token-at-all-but-long-enough-0123456789"), 0o600))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-data", data}, "-token-file is required"},
		{[]string{"-data", data, "-token-file", filepath.Join(dir, "missing")}, "-token-file"},
		{[]string{"-data", data, "-token-file", empty}, "is empty"},
		{[]string{"-data", data, "-token-file", bad}, "invalid or expired"},
		{[]string{"-data", filepath.Join(dir, "none.db"), "-token-file", tokenFile}, "no database"},
	} {
		serverT, _ := mcp.NewInMemoryTransports()
		err := run(context.Background(), tc.args, serverT, io.Discard)
		require.ErrorContains(t, err, tc.want, "%v", tc.args)
	}
	// a database held by another process (the example server)
	bolttest.OpenFile(t, data, scoping.DefaultSchema())
	serverT, _ := mcp.NewInMemoryTransports()
	require.ErrorContains(t, run(context.Background(), []string{"-data", data, "-token-file", tokenFile}, serverT, io.Discard), "another process")
}
