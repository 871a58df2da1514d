package webapp_test

import (
	"context"
	"encoding/json"
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"

	"github.com/stretchr/testify/require"
)

// Ensure every settings page an administrator opens renders, in both
// designs.
func TestSettingsPagesRender(t *testing.T) {
	e := newEnv(t)
	b := e.browser()
	b.signIn("acme", "ada@acme.test")
	p := b.get("/app/acme/settings")
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	require.True(t, strings.HasSuffix(p.URL, "/app/acme/settings/services"), p.URL)
	for _, design := range []string{"classic", "modern"} {
		form := formOf("csrf", p.csrf(t), "settings-design", design)
		require.Equal(t, http.StatusOK, b.post("/app/acme/settings/preferences", form, false).Status)
		for _, path := range settingsPaths(t, b) {
			p := b.get(path)
			require.Equal(t, http.StatusOK, p.Status, "%s %s: %s", design, path, p.Body)
		}
	}
}

// settingsPaths are the settings' pages the menu links to, and the first
// record page of each list.
func settingsPaths(t *testing.T, b *browser) []string {
	t.Helper()
	p := b.get("/app/acme/settings/preferences")
	var out []string
	for _, m := range settingsLink.FindAllStringSubmatch(p.Body, -1) {
		out = append(out, m[1])
		list := b.get(m[1])
		if r := recordLink.FindStringSubmatch(list.Body); r != nil {
			out = append(out, r[1], r[1]+"/../new")
		}
	}
	return out
}

var (
	settingsLink = regexp.MustCompile(`<a href="(/app/acme/settings/[a-z-]+)"`)
	recordLink   = regexp.MustCompile(`<a href="(/app/acme/settings/[a-z-]+/\d+)"`)
)

// setDesign sets a person's settings design through the use case.
func (e *env) setDesign(t *testing.T, email, design string) {
	t.Helper()
	a := e.actor("acme", email)
	_, err := e.svc.UpdatePreferences(context.Background(), a, &engine.Input{Attrs: map[string]json.RawMessage{"settings-design": json.RawMessage(`"` + design + `"`)}})
	require.NoError(t, err)
}

var recordID = regexp.MustCompile(`/settings/[a-z-]+/(\d+)`)

// createSetting posts a settings form as its page holds it (the once
// token of the page's form) and returns the page it leads to.
func (b *browser) createSetting(t *testing.T, key string, kv ...string) *page {
	t.Helper()
	form := b.get("/app/acme/settings/" + key + "/new").hidden()
	for i := 0; i+1 < len(kv); i += 2 {
		form.Set(kv[i], kv[i+1])
	}
	return b.post("/app/acme/settings/"+key, form, false)
}

// Ensure an administrator lists, searches, creates, edits, archives and
// restores catalog records, adds a child record on its parent's page and
// deletes a record of a type that does not archive, each through the
// same use case as the API (which reads what the pages wrote).
func TestSettingsRecords(t *testing.T) {
	e := newEnv(t)
	b := e.browser()
	b.signIn("acme", "ada@acme.test")

	p := b.get("/app/acme/settings/services?q=fire")
	require.Contains(t, p.Body, "Firewall deployment")
	require.NotContains(t, p.Body, "Assessment")

	p = b.createSetting(t, "services", "name", "Cabling", "sku", "CAB-1", "hours", "4.5", "service-type", "professional_services")
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	require.Contains(t, p.URL, "done=created")
	id := recordID.FindStringSubmatch(p.URL)[1]
	got := e.apiRecord("acme", "services", id)
	require.Equal(t, "Cabling", got["name"])
	require.Equal(t, "4.5", got["hours"])

	form := p.hidden()
	form.Set("hours", "6")
	form.Set("name", "Structured cabling")
	p = b.post("/app/acme/settings/services/"+id, form, false)
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	require.Contains(t, p.Body, "Saved.")
	require.Equal(t, "6", e.apiRecord("acme", "services", id)["hours"])

	// a subservice, on the service's page
	p = b.get("/app/acme/settings/subservices/new?service=" + id)
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	sub := p.hidden()
	sub.Set("name", "Patch panel")
	sub.Set("hours", "1")
	p = b.post("/app/acme/settings/subservices", sub, false)
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	require.True(t, strings.Contains(p.URL, "/settings/services/"+id+"?"), p.URL)
	require.Contains(t, p.Body, "Patch panel")

	csrf := p.csrf(t)
	p = b.post("/app/acme/settings/services/"+id+"/archive", formOf("csrf", csrf), false)
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	require.Equal(t, false, e.apiRecordAny("acme", "services", id)["active"])
	require.NotContains(t, b.get("/app/acme/settings/services").Body, "Structured cabling")
	require.Contains(t, b.get("/app/acme/settings/services?archived=1").Body, "Structured cabling")
	p = b.post("/app/acme/settings/services/"+id+"/restore", formOf("csrf", csrf), false)
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	require.Equal(t, true, e.apiRecord("acme", "services", id)["active"])

	// a rate of a rate table: no archive, a delete
	rt := b.get("/app/acme/settings/rate-tables")
	rtID := recordLink.FindStringSubmatch(rt.Body)[1]
	p = b.get(rtID)
	rate := recordLink.FindAllStringSubmatch(p.Body, -1)
	var rateID string
	for _, m := range rate {
		if strings.Contains(m[1], "/rates/") {
			rateID = recordID.FindStringSubmatch(m[1])[1]
		}
	}
	require.NotEmpty(t, rateID, "the rate table's page lists its rates")
	p = b.post("/app/acme/settings/rates/"+rateID+"/delete", formOf("csrf", csrf), false)
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	require.Contains(t, p.Body, "Deleted.")
	require.Equal(t, http.StatusNotFound, b.get("/app/acme/settings/rates/"+rateID).Status)
}

// Ensure a refused form shows the API's own words, next to the field
// they name, and keeps what was typed.
func TestSettingsSameErrorsAsTheAPI(t *testing.T) {
	e := newEnv(t)
	b := e.browser()
	b.signIn("acme", "ada@acme.test")
	detail := e.apiError(t, "governances", `{"data":{"type":"governances","attributes":{"name":"PM","rate":"10"}}}`)
	require.Contains(t, detail["pointer"], "rate")
	p := b.createSetting(t, "governance", "name", "PM", "rate", "10")
	require.Equal(t, http.StatusUnprocessableEntity, p.Status, p.Body)
	require.Contains(t, p.Body, `<p class="field-error" id="f-rate-error">`+html.EscapeString(detail["detail"])+" </p>")
	require.Contains(t, p.Body, `value="PM"`, "the form comes back as it was sent")
	require.Equal(t, 0, e.count("acme", "governances", "name", "PM"))
}

// apiError posts a JSON:API document to the v1 API as acme's admin and
// returns the first error's detail and pointer.
func (e *env) apiError(t *testing.T, typ, body string) map[string]string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/acme/v1/"+typ, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+e.apiToken("acme"))
	req.Header.Set("Content-Type", "application/vnd.api+json")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode)
	var doc struct {
		Errors []struct {
			Detail string `json:"detail"`
			Source struct {
				Pointer string `json:"pointer"`
			} `json:"source"`
		} `json:"errors"`
	}
	require.NoError(t, json.NewDecoder(res.Body).Decode(&doc))
	return map[string]string{"detail": doc.Errors[0].Detail, "pointer": doc.Errors[0].Source.Pointer}
}

// apiRecordAny reads a record, archived or not, through the v1 API.
func (e *env) apiRecordAny(slug, typ, id string) map[string]any {
	e.t.Helper()
	return e.apiRecordPath(slug, "/"+slug+"/v1/"+typ+"/"+id+"?filter%5Bactive%5D=true,false")
}

// roleMember makes a role with the permissions (every other one none)
// and a member of acme who has it.
func (e *env) roleMember(t *testing.T, role string, perms map[string]string, email string) {
	t.Helper()
	sys, err := e.svc.SystemActor(context.Background(), e.accts["acme"])
	require.NoError(t, err)
	b, _ := json.Marshal(perms)
	e.create(sys, "roles", map[string]string{"name": `"` + role + `"`, "permissions": string(b)}, nil)
	e.member("acme", email, strings.ToUpper(email[:1])+email[1:3], role)
	require.NoError(t, e.auth.SetPassword(context.Background(), e.users[email], password))
}

// everything is every permission at one level.
func everything(level string) map[string]string {
	m := map[string]string{}
	for _, p := range scoping.Permissions {
		m[p] = level
	}
	return m
}

// Ensure a role that views everything reads every settings page and is
// offered no change (every change it sends is refused, 403), and a role
// without a permission finds no menu entry for its pages, which answer
// 403.
func TestSettingsRoles(t *testing.T) {
	e := newEnv(t)
	admin := e.browser()
	admin.signIn("acme", "ada@acme.test")
	paths := settingsPaths(t, admin)
	e.roleMember(t, "Auditor", everything("view"), "vic@acme.test")
	v := e.browser()
	v.signIn("acme", "vic@acme.test")
	for _, path := range paths {
		if strings.HasSuffix(path, "/new") {
			require.Equal(t, http.StatusForbidden, v.get(path).Status, path)
			continue
		}
		p := v.get(path)
		require.Equal(t, http.StatusOK, p.Status, "%s: %s", path, p.Body)
		require.Equal(t, []string{"/app/acme/signout"}, postForms(p.Body), path)
		require.NotContains(t, p.Body, "hx-post", path)
	}
	csrf := v.get("/app/acme/settings/services").csrf(t)
	svc := recordLink.FindStringSubmatch(v.get("/app/acme/settings/services").Body)[1]
	role := recordLink.FindStringSubmatch(v.get("/app/acme/settings/roles").Body)[1]
	for _, post := range []string{"/app/acme/settings/services", svc, svc + "/archive", role, "/app/acme/settings/account",
		"/app/acme/settings/sign-in", "/app/acme/settings/preferences"} {
		p := v.post(post, formOf("csrf", csrf, "once", strings.Repeat("v", 22), "name", "Mine now", "locale", "de-CH",
			"mfa-required", "true", "settings-design", "modern"), false)
		require.Equal(t, http.StatusForbidden, p.Status, "%s: %s", post, p.Body)
	}
	require.Equal(t, 0, e.count("acme", "services", "name", "Mine now"))

	// an engineer: no users, settings or webhooks
	g := e.browser()
	e.member("acme", "eve@acme.test", "Eve", "Engineer")
	require.NoError(t, e.auth.SetPassword(context.Background(), e.users["eve@acme.test"], password))
	g.signIn("acme", "eve@acme.test")
	menu := g.get("/app/acme/settings/services").Body
	for _, absent := range []string{"/settings/users", "/settings/roles", "/settings/account", "/settings/webhooks", "/settings/identity-providers"} {
		require.NotContains(t, menu, absent)
		require.Equal(t, http.StatusForbidden, g.get("/app/acme"+absent).Status, absent)
	}
	require.Equal(t, http.StatusForbidden, g.get("/app/acme/settings/users/"+e.users["ada@acme.test"]).Status)
}

var postForm = regexp.MustCompile(`<form method="post" action="([^"]+)"`)

// postForms are the actions of a page's forms that change something.
func postForms(body string) []string {
	var out []string
	for _, m := range postForm.FindAllStringSubmatch(body, -1) {
		out = append(out, html.UnescapeString(m[1]))
	}
	return out
}
