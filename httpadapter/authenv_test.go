package httpadapter_test

import (
	"context"
	"errors"
	"html"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/httpadapter"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
	"golang.org/x/oauth2"
)

// The auth host end to end: testEnv's accounts served by a Server whose
// configuration a test may edit, with acme's OAuth application and an
// active admin who has a password.

const (
	aePortalID     = "acme-portal"
	aePortalSecret = "portal-secret-value"
	aeCallback     = "http://127.0.0.1:9999/callback"
	aeAdaEmail     = "ada@acme.test"
	aePassword     = "ada's password, long enough"
)

type authEnv struct {
	*testEnv
	adaID string
}

// mustAuthEnv starts the auth host and API on one address; edit, when not
// nil, configures the Server (throttling) before it serves.
func mustAuthEnv(t *testing.T, edit func(*httpadapter.Server)) *authEnv {
	t.Helper()
	e := mustEnv(t)
	e.srv.Close()
	s := &httpadapter.Server{Svc: e.svc, Auth: e.auth, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	if edit != nil {
		edit(s)
	}
	e.srv = httptest.NewServer(s.Handler())
	ae := &authEnv{testEnv: e}
	ctx := context.Background()
	require.NoError(t, e.auth.RegisterApplication(ctx, e.accts["acme"], "Acme Portal", aePortalID, aePortalSecret, []string{aeCallback}))
	ae.adaID = ae.member("acme", aeAdaEmail, "Account Admin", "active", "standard")
	require.NoError(t, e.auth.SetPassword(ctx, ae.adaID, aePassword))
	return ae
}

// member creates or updates a membership without the API and returns the
// user's id.
func (ae *authEnv) member(slug, email, role, status, userType string) string {
	ae.t.Helper()
	var id string
	require.NoError(ae.t, ae.svc.Setup(context.Background(), func(a *scoping.Admin) error {
		u, err := a.EnsureMember(ae.accts[slug], scoping.Member{Email: email, Name: email, Role: role, Status: status, UserType: userType})
		if u != nil {
			id = u.ID
		}
		return err
	}))
	return id
}

// verifyDomain marks domain verified for the account slug, as the
// server's operator would.
func (ae *authEnv) verifyDomain(slug, domain string) {
	ae.t.Helper()
	require.NoError(ae.t, ae.svc.Setup(context.Background(), func(a *scoping.Admin) error {
		_, err := a.VerifyDomain(ae.accts[slug], domain)
		return err
	}))
}

// ctx carries the test server's HTTP client for x/oauth2.
func (ae *authEnv) ctx() context.Context {
	return context.WithValue(context.Background(), oauth2.HTTPClient, ae.srv.Client())
}

// portal is x/oauth2's configuration of acme's application.
func (ae *authEnv) portal(style oauth2.AuthStyle) *oauth2.Config {
	return &oauth2.Config{ClientID: aePortalID, ClientSecret: aePortalSecret, RedirectURL: aeCallback,
		Endpoint: oauth2.Endpoint{AuthURL: ae.srv.URL + "/oauth/authorize", TokenURL: ae.srv.URL + "/oauth/token", AuthStyle: style}}
}

// passwordToken signs in with the password grant through the portal.
func (ae *authEnv) passwordToken(email, password string) (*oauth2.Token, error) {
	return ae.portal(oauth2.AuthStyleInParams).PasswordCredentialsToken(ae.ctx(), email, password)
}

// page is an answer of the auth host's HTML pages.
type page struct {
	Status   int
	Header   http.Header
	Body     string
	Location string
}

// hidden returns the hidden fields of the page's form.
func (p *page) hidden() url.Values {
	v := url.Values{}
	for _, m := range hiddenInput.FindAllStringSubmatch(p.Body, -1) {
		v.Add(html.UnescapeString(m[1]), html.UnescapeString(m[2]))
	}
	return v
}

var hiddenInput = regexp.MustCompile(`<input type="hidden" name="([^"]*)" value="([^"]*)">`)

// errorText returns the text of the page's error paragraph ("" if none).
func (p *page) errorText() string {
	m := regexp.MustCompile(`(?s)<p class="error" id="error" role="alert">(.*?)</p>`).FindStringSubmatch(p.Body)
	if m == nil {
		return ""
	}
	return html.UnescapeString(m[1])
}

// browser is an HTTP client that keeps cookies and does not follow
// redirects, as a browser's first hop would.
func (ae *authEnv) browser() *http.Client {
	jar, err := cookiejar.New(nil)
	require.NoError(ae.t, err)
	return &http.Client{Jar: jar, Transport: ae.srv.Client().Transport,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// fetch sends one request with c and reads the answer.
func (ae *authEnv) fetch(c *http.Client, method, target, contentType, body string) *page {
	ae.t.Helper()
	if !strings.HasPrefix(target, "http") {
		target = ae.srv.URL + target
	}
	req, err := http.NewRequest(method, target, strings.NewReader(body))
	require.NoError(ae.t, err)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := c.Do(req)
	require.NoError(ae.t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(ae.t, err)
	return &page{Status: res.StatusCode, Header: res.Header, Body: string(b), Location: res.Header.Get("Location")}
}

// signIn walks the login page as a browser without JavaScript does: it
// opens authURL, fills in the form and posts it. It returns the form page
// and the answer to the post (a 302 on success, not followed).
func (ae *authEnv) signIn(authURL, email, password string) (form, answer *page) {
	ae.t.Helper()
	c := ae.browser()
	form = ae.fetch(c, http.MethodGet, authURL, "", "")
	require.Equal(ae.t, http.StatusOK, form.Status, form.Body)
	v := form.hidden()
	v.Set("email", email)
	v.Set("password", password)
	return form, ae.fetch(c, http.MethodPost, "/oauth/authorize", "application/x-www-form-urlencoded", v.Encode())
}

// codeFrom returns the code and state of a successful redirect to the
// callback.
func codeFrom(t *testing.T, p *page) (code, state string) {
	t.Helper()
	require.Equal(t, http.StatusFound, p.Status, p.Body)
	u, err := url.Parse(p.Location)
	require.NoError(t, err)
	require.Equal(t, aeCallback, u.Scheme+"://"+u.Host+u.Path)
	q := u.Query()
	require.Empty(t, q.Get("error"), q.Get("error_description"))
	require.NotEmpty(t, q.Get("code"))
	return q.Get("code"), q.Get("state")
}

// requireRetrieveError asserts err is x/oauth2's *RetrieveError with the
// code and status.
func requireRetrieveError(t *testing.T, err error, code string, status int) *oauth2.RetrieveError {
	t.Helper()
	var re *oauth2.RetrieveError
	require.Truef(t, errors.As(err, &re), "want *oauth2.RetrieveError, got %v", err)
	require.Equal(t, code, re.ErrorCode, re.ErrorDescription)
	require.Equal(t, status, re.Response.StatusCode)
	return re
}

// grantErr is requireRetrieveError for the 400/401 of docs/auth.md's table.
func grantErr(t *testing.T, err error, code string) *oauth2.RetrieveError {
	t.Helper()
	status := http.StatusBadRequest
	if code == auth.InvalidClient {
		status = http.StatusUnauthorized
	}
	return requireRetrieveError(t, err, code, status)
}
