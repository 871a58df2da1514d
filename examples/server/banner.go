package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/scopekit/scopekit/app"
)

// banner is what the startup output shows.
type banner struct {
	BaseURL, AuthURL string
	MetricsURL       string // "" without -metrics-addr
	Data             string
	BackupURL        string // the backup download, "" when not mounted
	Started          app.Started
}

// bannerOf is the banner of a started service.
func bannerOf(a *app.App, cfg *config) banner {
	return banner{BaseURL: a.BaseURL(), AuthURL: a.AuthURL(), MetricsURL: a.MetricsURL(), Data: cfg.where(),
		BackupURL: a.BackupURL(), Started: a.Started()}
}

// tokenSed extracts the access token from the JSON answer of POST
// /oauth/token, so that the first curl line sets $TOKEN.
const tokenSed = `sed -E 's/.*"access_token":"([^"]+)".*/\1/'`

// printBanner writes the URL, what this start created, the demo
// credentials (when the demo account exists and its credentials still
// work) and three copy-paste curl lines. The curl lines are not indented:
// shells with HISTCONTROL=ignorespace would leave indented commands out of
// the history.
func printBanner(w io.Writer, b banner) {
	var s strings.Builder
	fmt.Fprintf(&s, "ScopeKit is serving %s (database %s)\n", b.BaseURL, b.Data)
	fmt.Fprintf(&s, "OAuth token endpoint: %s/oauth/token\n", b.AuthURL)
	fmt.Fprintf(&s, "MCP endpoint for AI assistants: %s/mcp (docs/mcp.md)\n", b.BaseURL)
	fmt.Fprintf(&s, "Workspace for the people who scope: %s/app/ (docs/workspace.md)\n", b.BaseURL)
	if b.BackupURL != "" {
		fmt.Fprintf(&s, "Backup download for operators: %s with the -admin-token (docs/operations.md)\n", b.BackupURL)
	}
	if b.MetricsURL != "" {
		fmt.Fprintf(&s, "Metrics: %s/metrics, probes %s/healthz and /readyz\n", b.MetricsURL, b.MetricsURL)
	}
	fmt.Fprintf(&s, "%s\n\n", createdLine(b.Started))

	clientID, secret := "CLIENT_ID", "CLIENT_SECRET"
	slug, project := "ACCOUNT_SLUG", "PROJECT_ID"
	d, demo := b.Started.Demo, app.DemoAccount()
	switch {
	case d.Exists && d.CredsWork:
		how := "in this database"
		if d.Created {
			how = "created now"
		}
		fmt.Fprintf(&s, "Demo account %q (%s), %s:\n", demo.Slug, demo.Name, how)
		fmt.Fprintf(&s, "  admin user       %s / %s (Account Admin)\n", demo.AdminEmail, demo.AdminPassword)
		fmt.Fprintf(&s, "  workspace        %s/app/%s/projects: sign in as the admin user\n", b.BaseURL, demo.Slug)
		fmt.Fprintf(&s, "  service account  %s: client_id %s, client_secret %s\n", demo.BotEmail, demo.BotClientID, demo.BotSecret)
		fmt.Fprintf(&s, "  OAuth app        %s: client_id %s, client_secret %s, redirect URI %s\n\n",
			demo.AppName, demo.AppClientID, demo.AppSecret, demo.AppRedirect)
		clientID, secret = demo.BotClientID, demo.BotSecret
	case d.Exists:
		fmt.Fprintf(&s, "Demo account %q exists, but its service account credentials were changed; use yours below.\n\n", demo.Slug)
	case d.NotTheDemo:
		fmt.Fprintf(&s, "No demo account in this database: the account %q was made by a bootstrap file and holds no demo data or credentials.\n"+
			"Replace the upper-case placeholders with a service account's credentials and ids.\n\n", demo.Slug)
	default:
		s.WriteString("No demo account in this database (start with -demo=true to create it).\n" +
			"Replace the upper-case placeholders with a service account's credentials and ids.\n\n")
	}
	if d.Exists {
		slug = demo.Slug
		if d.ProjectID != "" {
			project = d.ProjectID
		}
	}
	s.WriteString("Try it (copy and paste):\n")
	fmt.Fprintf(&s, "TOKEN=$(curl -s -X POST %s/oauth/token -d grant_type=client_credentials -d client_id=%s -d client_secret=%s | %s)\n",
		b.AuthURL, clientID, secret, tokenSed)
	const headers = `-H "Authorization: Bearer $TOKEN" -H "Accept: application/vnd.api+json"`
	fmt.Fprintf(&s, "curl -s %s %s/v2/projects\n", headers, b.BaseURL)
	fmt.Fprintf(&s, "curl -s %s \"%s/%s/v1/projects/%s/merge-data?version=2\"\n", headers, b.BaseURL, slug, project)
	io.WriteString(w, s.String())
}

// createdLine says what this start created: the database, the demo, the
// bootstrap file's entries; or that it created nothing.
func createdLine(st app.Started) string {
	var made []string
	if st.StoreCreated {
		made = append(made, "a new database")
	}
	if st.Demo.Created {
		made = append(made, fmt.Sprintf("the demo account %q with its data", app.DemoSlug))
	}
	switch n := len(st.Bootstrap); {
	case n == 1:
		made = append(made, "1 entry of the bootstrap file")
	case n > 1:
		made = append(made, fmt.Sprintf("%d entries of the bootstrap file", n))
	}
	if len(made) == 0 {
		return "Created at this start: nothing (the database and its accounts were there)."
	}
	return "Created at this start: " + strings.Join(made, ", ") + "."
}
