package client_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/boltstore/bolttest"
	"github.com/scopekit/scopekit/client"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/bcrypt"
	"golang.org/x/oauth2"
)

// The demo account's credentials (docs/operations.md).
const (
	botID, botSecret = "demo-bot", "demo-bot-secret"
	appID, appSecret = "demo-portal", "demo-portal-secret"
	adminEmail       = "admin@demo.test"
	adminPassword    = "demo-admin-password"
)

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return c
}

func collect[T any](t *testing.T, seq func(func(T, error) bool)) []T {
	t.Helper()
	var out []T
	for v, err := range seq {
		require.NoError(t, err)
		out = append(out, v)
	}
	return out
}

// Ensure the client credentials grant gets one token, which is cached and
// reused by every following call.
func TestClientCredentials(t *testing.T) {
	rec, hc := newRecorder()
	c := client.NewClientCredentials(serverURL, botID, botSecret, client.WithHTTPClient(hc))
	me, err := c.Me(ctx(t))
	require.NoError(t, err)
	assert.Equal(t, "bot@demo.test", me.Email)
	assert.Equal(t, "demo", me.AccountSlug)
	projects := collect(t, c.ListProjects(ctx(t), nil))
	require.Len(t, projects, 1)
	assert.Equal(t, "Globex firewall refresh", projects[0].ProjectName)
	assert.NotEmpty(t, projects[0].ContractRevenue)
	assert.NotEmpty(t, projects[0].ClientID)
	assert.True(t, projects[0].Active, "a generated attribute the hand-written type never had")
	assert.NotNil(t, projects[0].CreatedAt)
	_, err = c.GetProject(ctx(t), projects[0].ID)
	require.NoError(t, err)
	assert.Equal(t, []string{
		"POST /oauth/token client_credentials -> 200",
		"GET /v1/me -> 200", "GET /v2/projects -> 200", "GET /v2/projects/" + projects[0].ID + " -> 200",
	}, rec.entries())
}

// Ensure the password grant signs the person in, and that the token it got
// is cached.
func TestPasswordGrant(t *testing.T) {
	rec, hc := newRecorder()
	c := client.NewPassword(serverURL, appID, appSecret, adminEmail, adminPassword, client.WithHTTPClient(hc))
	me, err := c.Me(ctx(t))
	require.NoError(t, err)
	assert.Equal(t, adminEmail, me.Email)
	_, err = c.Me(ctx(t))
	require.NoError(t, err)
	assert.Equal(t, []string{"POST /oauth/token password -> 200", "GET /v1/me -> 200", "GET /v1/me -> 200"}, rec.entries())

	// wrong credentials: a typed error with the OAuth code, no API call
	bad := client.NewPassword(serverURL, appID, appSecret, adminEmail, "not the password")
	_, err = bad.Me(ctx(t))
	var e *client.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, http.StatusBadRequest, e.StatusCode)
	assert.Equal(t, "invalid_grant", e.OAuth)
}

// passwordToken gets a real password-grant token (with its refresh token)
// straight from the token endpoint.
func passwordToken(t *testing.T) *oauth2.Token {
	conf := &oauth2.Config{ClientID: appID, ClientSecret: appSecret, Endpoint: oauth2.Endpoint{TokenURL: serverURL + "/oauth/token"}}
	tok, err := conf.PasswordCredentialsToken(ctx(t), adminEmail, adminPassword)
	require.NoError(t, err)
	require.NotEmpty(t, tok.RefreshToken)
	return tok
}

// Ensure a 401 (a token the server does not know, though not expired by
// the client's clock) triggers one renewal and one retry: the refresh
// token for the password grant; when the refresh fails, the password
// grant from the start; a new client credentials token for a service
// account.
func TestRenewOn401(t *testing.T) {
	stale := func(refresh string) client.Option {
		return client.WithToken(&oauth2.Token{AccessToken: "revoked-or-unknown", RefreshToken: refresh, Expiry: time.Now().Add(time.Hour)})
	}
	for _, tc := range []struct {
		name string
		new  func(opts ...client.Option) *client.Client
		opt  func(t *testing.T) client.Option
		want []string
	}{
		{"refresh token", func(opts ...client.Option) *client.Client {
			return client.NewPassword(serverURL, appID, appSecret, adminEmail, adminPassword, opts...)
		}, func(t *testing.T) client.Option { return stale(passwordToken(t).RefreshToken) },
			[]string{"GET /v1/me -> 401", "POST /oauth/token refresh_token -> 200", "GET /v1/me -> 200"}},
		{"failed refresh signs in again", func(opts ...client.Option) *client.Client {
			return client.NewPassword(serverURL, appID, appSecret, adminEmail, adminPassword, opts...)
		}, func(*testing.T) client.Option { return stale("no-such-refresh-token") },
			[]string{"GET /v1/me -> 401", "POST /oauth/token refresh_token -> 400", "POST /oauth/token password -> 200", "GET /v1/me -> 200"}},
		{"client credentials", func(opts ...client.Option) *client.Client {
			return client.NewClientCredentials(serverURL, botID, botSecret, opts...)
		}, func(*testing.T) client.Option { return stale("") },
			[]string{"GET /v1/me -> 401", "POST /oauth/token client_credentials -> 200", "GET /v1/me -> 200"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec, hc := newRecorder()
			c := tc.new(client.WithHTTPClient(hc), tc.opt(t))
			_, err := c.Me(ctx(t))
			require.NoError(t, err)
			assert.Equal(t, tc.want, rec.entries())
		})
	}
}

// Ensure a 403 that a new token does not cure (a slug of an account the
// user is no member of) is retried once only, then returned as *Error.
func TestForbiddenRetriedOnce(t *testing.T) {
	rec, hc := newRecorder()
	c := client.NewClientCredentials(serverURL, botID, botSecret, client.WithHTTPClient(hc))
	_, err := c.Call(ctx(t), http.MethodGet, "/other/v1/projects", nil, nil)
	var e *client.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, http.StatusForbidden, e.StatusCode)
	require.NotEmpty(t, e.Errors)
	assert.Equal(t, "403", e.Errors[0].Status)
	assert.Equal(t, []string{
		"POST /oauth/token client_credentials -> 200", "GET /other/v1/projects -> 403",
		"POST /oauth/token client_credentials -> 200", "GET /other/v1/projects -> 403",
	}, rec.entries())
}

// Ensure typed errors carry the JSON:API error objects: 404 for a missing
// record, 422 with one pointer per invalid attribute.
func TestTypedErrors(t *testing.T) {
	c := client.NewClientCredentials(serverURL, botID, botSecret)
	_, err := c.GetProject(ctx(t), "987654")
	var e *client.Error
	require.ErrorAs(t, err, &e)
	assert.True(t, e.NotFound())
	require.Len(t, e.Errors, 1)
	assert.Equal(t, "404", e.Errors[0].Status)
	assert.Equal(t, "Not Found", e.Errors[0].Title)
	assert.Contains(t, err.Error(), "404")

	_, err = c.Call(ctx(t), http.MethodGet, "http://example.invalid/v2/projects", nil, nil)
	require.ErrorContains(t, err, "is not on "+serverURL, "the token goes to the client's own server only")

	cl, err := c.CreateClient(ctx(t), "Typed Errors Inc", nil)
	require.NoError(t, err)
	_, err = c.CreateProject(ctx(t), "  ", cl.ID, nil)
	require.ErrorAs(t, err, &e)
	assert.Equal(t, http.StatusUnprocessableEntity, e.StatusCode)
	assert.Contains(t, e.Pointers(), "/data/attributes/project-name")
	assert.Equal(t, "422", e.Errors[0].Status)
	assert.NotEmpty(t, e.Errors[0].Detail)
}

// Ensure a 429 from a throttled token endpoint is waited out: the client
// waits at least Retry-After and then gets its token; and that a context
// ending during the wait ends the call at once.
func TestThrottledTokenEndpoint(t *testing.T) {
	s := startServer(t, "", "-token-rate", "0.5", "-token-burst", "1")
	first := client.NewClientCredentials(s.URL, botID, botSecret)
	_, err := first.Me(ctx(t))
	require.NoError(t, err)

	rec, hc := newRecorder()
	second := client.NewClientCredentials(s.URL, botID, botSecret, client.WithHTTPClient(hc),
		client.WithRetry(client.Retry{Attempts: 6, Base: 20 * time.Millisecond, Max: 100 * time.Millisecond}))
	began := time.Now()
	_, err = second.Me(ctx(t))
	took := time.Since(began)
	require.NoError(t, err)
	log := rec.entries()
	require.GreaterOrEqual(t, len(log), 3, "%v", log)
	throttled := log[0]
	require.Contains(t, throttled, "POST /oauth/token client_credentials -> 429 retry-after ", "%v", log)
	wait, err := strconv.Atoi(throttled[strings.LastIndex(throttled, " ")+1:])
	require.NoError(t, err)
	assert.GreaterOrEqual(t, took, time.Duration(wait)*time.Second, "waited at least Retry-After")
	assert.Equal(t, "GET /v1/me -> 200", log[len(log)-1])

	// the bucket is empty again: a short deadline ends the wait early
	third := client.NewClientCredentials(s.URL, botID, botSecret)
	short, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	began = time.Now()
	_, err = third.Me(short)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(began), time.Second)
}

// Ensure paging visits each of 2,600 records once, reading the page count
// from the first page only, and that stopping early asks for no more
// pages.
func TestPaging(t *testing.T) {
	const n = 2600
	data := filepath.Join(t.TempDir(), "bulk.db")
	seedBulk(t, data, n)
	s := startServer(t, data, "-demo=false")
	rec, hc := newRecorder()
	c := client.NewClientCredentials(s.URL, "bulk-bot", "bulk-bot-secret", client.WithHTTPClient(hc))

	seen := map[string]bool{}
	for cl, err := range c.ListClients(ctx(t), url.Values{"sort": {"name"}}) {
		require.NoError(t, err)
		require.False(t, seen[cl.ID], "client %s twice", cl.ID)
		seen[cl.ID] = true
	}
	require.Len(t, seen, n)
	var pages []string
	for _, e := range rec.entries() {
		if strings.HasPrefix(e, "GET /v2/clients") {
			pages = append(pages, e)
		}
	}
	assert.Len(t, pages, 11, "ceil(2600/250) pages, each asked once")

	// page[size] from the query, and an early stop
	rec.log = nil
	count := 0
	for _, err := range c.ListClients(ctx(t), url.Values{"page[size]": {"1000"}}) {
		require.NoError(t, err)
		if count++; count == 1500 {
			break
		}
	}
	assert.Equal(t, []string{"GET /v2/clients -> 200", "GET /v2/clients -> 200"}, rec.entries())

	// a generic typed call on the same collection
	doc, err := c.Call(ctx(t), http.MethodGet, "/v2/clients", url.Values{"page[size]": {"1000"}}, nil)
	require.NoError(t, err)
	assert.Equal(t, 3, doc.PageCount())
	assert.Equal(t, n, doc.RecordCount())
}

// seedBulk writes an account "bulk" with a service account (bulk-bot) and
// n clients into a new database file, in one transaction.
func seedBulk(t *testing.T, path string, n int) {
	c := ctx(t)
	db := bolttest.OpenFile(t, path, scoping.DefaultSchema())
	defer db.Close()
	svc := scoping.NewService(db)
	var acct, uid string
	require.NoError(t, svc.Setup(c, func(a *scoping.Admin) error {
		ac, err := a.EnsureAccount("bulk", "Bulk", "USD")
		if err != nil {
			return err
		}
		acct = ac.ID
		u, err := a.EnsureMember(acct, scoping.Member{Email: "bot@bulk.test", Name: "Bulk Bot", UserType: "service", Role: "Account Admin"})
		if err != nil {
			return err
		}
		uid = u.ID
		return nil
	}))
	au := &auth.Service{Store: db.AuthStore(), Directory: scoping.Directory(db), BcryptCost: bcrypt.MinCost}
	require.NoError(t, au.SetServiceCredential(c, acct, uid, "bulk-bot", "bulk-bot-secret"))
	require.NoError(t, db.Update(c, func(tx engine.Tx) error {
		for i := range n {
			r := engine.NewRecord("clients", acct)
			r.Attrs["name"], r.Attrs["active"] = fmt.Sprintf("Client %04d", i), true
			if err := tx.Insert(r); err != nil {
				return err
			}
		}
		return nil
	}))
}

// Ensure a canceled context ends calls and iterations with its error.
func TestContextCancellation(t *testing.T) {
	c := client.NewClientCredentials(serverURL, botID, botSecret)
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := c.Me(canceled)
	require.ErrorIs(t, err, context.Canceled)

	live, stop := context.WithCancel(context.Background())
	defer stop()
	var errs []error
	for _, err := range c.ListServices(live, url.Values{"page[size]": {"1"}}) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		stop() // the next page's request sees the canceled context
	}
	require.Len(t, errs, 1)
	require.ErrorIs(t, errs[0], context.Canceled)
}

// Ensure the typed helpers do what the README's tour does: a client, a
// project with a catalog service, its price and merge data, a webhook
// subscription, and the approval of a submitted project by its approver.
func TestTypedHelpers(t *testing.T) {
	c := client.NewClientCredentials(serverURL, botID, botSecret)
	cl, err := c.CreateClient(ctx(t), "Initech", map[string]any{"domain": "initech.test"})
	require.NoError(t, err)
	got, err := c.GetClient(ctx(t), cl.ID)
	require.NoError(t, err)
	assert.Equal(t, "initech.test", got.Domain)
	p, err := c.CreateProject(ctx(t), "Initech SD-WAN", cl.ID, nil)
	require.NoError(t, err)
	assert.Equal(t, "draft", p.Status)
	assert.Equal(t, cl.ID, p.ClientID)

	services := collect(t, c.ListServices(ctx(t), nil))
	require.NotEmpty(t, services)
	ps, err := c.AddService(ctx(t), p.ID, services[0].ID, "2")
	require.NoError(t, err)
	assert.Equal(t, services[0].Name, ps.Name)
	assert.Equal(t, p.ID, ps.ProjectID)
	listed := collect(t, c.ListProjectServices(ctx(t), p.ID, nil))
	require.Len(t, listed, 1)
	assert.Equal(t, ps.ID, listed[0].ID)

	price, err := c.GetPricing(ctx(t), p.ID)
	require.NoError(t, err)
	assert.Equal(t, "USD", price.Currency.Code)
	assert.NotEqual(t, "0", strings.TrimRight(strings.TrimRight(price.TotalContractValue, "0"), "."))
	assert.Contains(t, price.Figures, "professional_services")
	p, err = c.GetProject(ctx(t), p.ID)
	require.NoError(t, err)
	assert.Equal(t, price.TotalContractValue, p.ContractRevenue, "the project's contract revenue is its pricing's total")

	md, err := c.GetMergeData(ctx(t), p.ID, 2)
	require.NoError(t, err)
	assert.Equal(t, 2, md.Version)
	assert.NotEmpty(t, md.Data)

	sub, err := c.CreateWebhookSubscription(ctx(t), "project_status_changed", "https://93.184.215.14/hooks/scopekit", "test")
	if err == nil {
		assert.True(t, strings.HasPrefix(sub.Secret, "whsec_"))
		subs := collect(t, c.ListWebhookSubscriptions(ctx(t), nil))
		assert.NotEmpty(t, subs)
		require.NoError(t, c.DeleteWebhookSubscription(ctx(t), sub.ID))
	} else {
		var e *client.Error
		require.ErrorAs(t, err, &e)
		t.Fatalf("create a webhook subscription: %v", err)
	}

	// approval: a level with the demo admin as approver; the bot submits,
	// the admin approves with a password-grant client
	slug, err := c.Slug(ctx(t))
	require.NoError(t, err)
	level, err := client.Create[client.Resource](ctx(t), c, "/"+slug+"/v1/approval-levels", client.TypeApprovalLevels, client.Write{
		Attributes: map[string]any{"name": "Client test review", "kind": "technical", "position": 7}})
	require.NoError(t, err)
	admin := client.NewPassword(serverURL, appID, appSecret, adminEmail, adminPassword)
	me, err := admin.Me(ctx(t))
	require.NoError(t, err)
	_, err = client.Create[client.Resource](ctx(t), c, "/"+slug+"/v1/line-of-business-approvals", client.TypeLineOfBusinessApprovals, client.Write{
		Relationships: map[string]client.Link{"approval-level": client.To(client.TypeApprovalLevels, level.ID), "approvers": client.ToMany(client.TypeUsers, me.ID)}})
	require.NoError(t, err)
	submitted, err := c.SubmitProject(ctx(t), p.ID)
	require.NoError(t, err)
	assert.Equal(t, "pending_approval", submitted.Status)
	steps := collect(t, c.ListApprovalSteps(ctx(t), p.ID, "pending"))
	require.Len(t, steps, 1)
	_, err = c.ActOnStep(ctx(t), steps[0].ID, client.Approve, "")
	var e *client.Error
	require.ErrorAs(t, err, &e, "the bot is no approver")
	assert.Equal(t, http.StatusForbidden, e.StatusCode)
	step, err := admin.ActOnStep(ctx(t), steps[0].ID, client.Approve, "looks right")
	require.NoError(t, err)
	assert.Equal(t, "approved", step.Status)
	p, err = c.GetProject(ctx(t), p.ID)
	require.NoError(t, err)
	assert.Equal(t, "approved", p.Status)
	assert.NotNil(t, p.ApprovedAt)

	// the level stays out of the other tests' way
	require.NoError(t, c.Delete(ctx(t), "/"+slug+"/v1/approval-levels/"+level.ID))
	raw, _ := json.Marshal(p.Resource.Attributes["status"])
	assert.Equal(t, `"approved"`, string(raw))
}

// Ensure a document is queued, followed to finished and downloaded: the
// demo project's SOW from the built-in template (DOCX) and its pricing
// workbook (XLSX).
func TestProjectDocuments(t *testing.T) {
	c := client.NewClientCredentials(serverURL, botID, botSecret)
	var templateID string
	for tpl, err := range client.List[client.Resource](ctx(t), c, "/demo/v1/document-templates", url.Values{"filter[name]": {"Standard SOW"}}) {
		require.NoError(t, err)
		templateID = tpl.ID
	}
	require.NotEmpty(t, templateID, "the built-in template")
	for _, tc := range []struct {
		typ, template, contentType, filename string
	}{
		{client.DocumentSOW, templateID, "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "Globex firewall refresh - SOW.docx"},
		{client.DocumentPricing, "", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "Globex firewall refresh - Pricing.xlsx"},
	} {
		t.Run(tc.typ, func(t *testing.T) {
			d, err := c.CreateProjectDocument(ctx(t), "1", tc.typ, tc.template, false)
			require.NoError(t, err)
			assert.Equal(t, "1", d.ProjectID)
			assert.Contains(t, []string{"queued", "generating", "finished"}, d.Status)
			d, err = c.WaitForDocument(ctx(t), d.ID, 50*time.Millisecond)
			require.NoError(t, err)
			require.Equal(t, "finished", d.Status, d.ErrorText)
			f, err := c.DownloadDocument(ctx(t), d.ID, "")
			require.NoError(t, err)
			assert.Equal(t, tc.contentType, f.ContentType)
			assert.Equal(t, tc.filename, f.Filename)
			assert.Equal(t, "PK", string(f.Data[:2]), "a zip (OOXML) file")
			assert.EqualValues(t, d.Size, len(f.Data))
			listed := collect(t, c.ListProjectDocuments(ctx(t), "1", url.Values{"filter[document-type]": {tc.typ}}))
			assert.NotEmpty(t, listed)
		})
	}
	// a PDF that was not asked for is a typed 404
	var sow string
	for d, err := range c.ListProjectDocuments(ctx(t), "1", url.Values{"filter[document-type]": {client.DocumentSOW}}) {
		require.NoError(t, err)
		sow = d.ID
	}
	_, err := c.DownloadDocument(ctx(t), sow, "pdf")
	var e *client.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, http.StatusNotFound, e.StatusCode)
}
