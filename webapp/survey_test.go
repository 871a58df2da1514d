package webapp_test

import (
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// calculate is the API's calculate of a survey, as acme's admin asks it.
func (e *env) calculate(t *testing.T, surveyID string) map[string]any {
	t.Helper()
	var doc struct {
		Data struct {
			Attributes map[string]any `json:"attributes"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal([]byte(e.apiCall(t, http.MethodPost, "/acme/v1/surveys/"+surveyID+"/calculate")), &doc))
	return doc.Data.Attributes
}

var (
	pageRevenues   = regexp.MustCompile(`<td class="num" data-revenue>([^<]*)</td>`)
	pageRevenueAft = regexp.MustCompile(`id="revenue-after">([^<]*)<`)
)

// intakeAnswers are answers of the demo intake for three sites with
// Wi-Fi, as the form sends them.
func intakeAnswers(csrf string, kv ...string) map[string][]string {
	f := formOf("csrf", csrf, "a.users", "120", "a.sites", "3", "a.firewalls", "0", "a.wifi", "true", "a.cloud", "aws",
		"a.maintenance_window", "false", "a.notes", "")
	for i := 0; i+1 < len(kv); i += 2 {
		f.Set(kv[i], kv[i+1])
	}
	return f
}

// Ensure the surveys tab starts a survey of a questionnaire and records
// its answers: the questions asked are the server's (a conditional
// question appears once its condition holds, and goes again), a wrong
// answer is shown beside its question and listed, the recommendations'
// figures are calculate's to the cent, Apply writes the lines through
// the API's use case (the pricing endpoint's total is the one the page
// announced), and re-applying after a change brings the lines along.
func TestSurveyPage(t *testing.T) {
	e := newEnv(t)
	b := e.browser()
	b.signIn("acme", "ada@acme.test")
	pid, intake := e.seeded["acme"].ProjectID, e.seeded["acme"].IntakeID
	base := "/app/acme/projects/" + pid + "/surveys"

	p := b.get("/app/acme/projects/" + pid)
	require.Contains(t, p.Body, `href="`+base+`"`, "the project page links to its surveys")
	p = b.get(base)
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	require.Contains(t, p.Body, `<option value="`+intake+`">Network refresh intake</option>`)
	p = b.get(base + "?questionnaire=" + intake)
	require.Equal(t, http.StatusOK, p.Status)
	require.True(t, strings.HasSuffix(p.URL, base+"/"+intake), p.URL)
	for _, q := range []string{"users", "sites", "firewalls", "wifi", "cloud", "maintenance_window", "notes"} {
		require.Contains(t, p.Body, `id="q-`+q+`"`, q)
	}
	for _, q := range []string{"access_points", "supply_firewalls", "window_start"} {
		require.NotContains(t, p.Body, `id="q-`+q+`"`, "not asked yet: %s", q)
	}
	require.NotContains(t, p.Body, `id="apply"`, "nothing to apply before answers")
	csrf := p.csrf(t)

	// htmx: each change re-renders the questions and recommendations
	p = b.post(base+"/"+intake, intakeAnswers(csrf), true)
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	require.True(t, strings.HasPrefix(p.Body, `<div class="split" id="survey">`), "a fragment")
	require.Contains(t, p.Body, `id="q-access_points"`, "asked once Wi-Fi is in scope")
	require.NotContains(t, p.Body, `id="q-supply_firewalls"`)
	p = b.post(base+"/"+intake, intakeAnswers(csrf, "a.firewalls", "2", "a.wifi", "false"), true)
	require.Contains(t, p.Body, `id="q-supply_firewalls"`, "asked once there are firewalls")
	require.NotContains(t, p.Body, `id="q-access_points"`, "gone with Wi-Fi")

	// a wrong answer: beside its question, listed, and nothing to apply
	p = b.post(base+"/"+intake, intakeAnswers(csrf, "a.users", "many"), true)
	require.Contains(t, p.Body, `<p class="field-error" id="q-users-error">users must be a number, not &#34;many&#34;`)
	require.Contains(t, p.Body, `id="survey-problems"`)
	require.NotContains(t, p.Body, `id="apply"`)

	// without script: saved, then the page again
	p = b.post(base+"/"+intake, intakeAnswers(csrf, "a.access_points", "8"), false)
	require.Equal(t, http.StatusOK, p.Status)
	require.True(t, strings.HasSuffix(p.URL, base+"/"+intake), p.URL)
	require.Contains(t, p.Body, `id="apply"`)
	require.NotContains(t, p.Body, `id="survey-problems"`)
	survey := e.surveyOf(t, pid)

	// the figures are calculate's, to the cent
	calc := e.calculate(t, survey)
	var want []string
	for _, r := range calc["recommendations"].([]any) {
		want = append(want, group(r.(map[string]any)["revenue"].(string)))
	}
	var got []string
	for _, m := range pageRevenues.FindAllStringSubmatch(p.Body, -1) {
		got = append(got, m[1])
	}
	require.NotEmpty(t, want)
	require.Equal(t, want, got)
	after := calc["contract-revenue-after"].(string)
	require.Equal(t, group(after), pageRevenueAft.FindStringSubmatch(p.Body)[1])
	require.NotEqual(t, calc["contract-revenue-before"], after)

	// apply: the pricing endpoint's total is the one announced
	p = b.post(base+"/"+intake+"/apply", formOf("csrf", csrf), false)
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	require.Contains(t, p.Body, "Applied: the project&#39;s lines follow the answers.")
	require.Contains(t, p.Body, "Apply again")
	require.Equal(t, after, e.pricing("acme", pid)["total_contract_value"])
	require.Contains(t, p.Body, `id="h-revenue" data-figure="total_contract_value">`+group(after)+`<`, "the header too")
	require.Contains(t, p.Body, `id="revenue-before">`+group(after)+`<`, "now is what was announced")
	got = nil
	for _, m := range pageRevenues.FindAllStringSubmatch(p.Body, -1) {
		got = append(got, m[1])
	}
	require.Equal(t, want, got, "each line priced as announced")
	require.Contains(t, p.Body, "in the scope")
	scope := b.get("/app/acme/projects/" + pid).Body
	require.Contains(t, scope, "Wireless site survey")

	// re-apply after a change: the survey's lines follow
	p = b.post(base+"/"+intake, intakeAnswers(csrf, "a.access_points", "8", "a.sites", "4"), true)
	require.Contains(t, p.Body, "to update")
	calc = e.calculate(t, survey)
	p = b.post(base+"/"+intake+"/apply", formOf("csrf", csrf), false)
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	require.Equal(t, calc["contract-revenue-after"], e.pricing("acme", pid)["total_contract_value"])
	require.Contains(t, b.get(base).Body, `<td>Applied</td>`)
}

// surveyOf is the id of the project's one survey.
func (e *env) surveyOf(t *testing.T, projectID string) string {
	t.Helper()
	var doc struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal([]byte(e.apiCall(t, http.MethodGet, "/acme/v1/surveys?filter[project]="+projectID)), &doc))
	require.Len(t, doc.Data, 1)
	return doc.Data[0].ID
}

// apiCall is the body of a request of the API without a body as acme's
// admin, which must answer 200.
func (e *env) apiCall(t *testing.T, method, path string) string {
	t.Helper()
	req, _ := http.NewRequest(method, e.srv.URL+path, nil)
	req.Header.Set("Authorization", "Bearer "+e.apiToken("acme"))
	req.Header.Set("Accept", "application/vnd.api+json")
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	var b strings.Builder
	_, err = io.Copy(&b, res.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, res.StatusCode, b.String())
	return b.String()
}

// Ensure the answers follow the role as the API's routes do: a Read Only
// person reads them and is offered no change (a change sent anyway is
// 403 and records nothing), another account's person finds neither the
// project's survey nor its questionnaire (404), a form without its CSRF
// token changes nothing, and a project no longer a draft keeps its
// answers (409).
func TestSurveyPermissions(t *testing.T) {
	e := newEnv(t)
	ada := e.browser()
	ada.signIn("acme", "ada@acme.test")
	pid, intake := e.seeded["acme"].ProjectID, e.seeded["acme"].IntakeID
	path := "/app/acme/projects/" + pid + "/surveys/" + intake
	csrf := ada.get(path).csrf(t)
	require.Equal(t, http.StatusForbidden, ada.post(path, intakeAnswers(""), false).Status, "no CSRF token")
	require.Equal(t, 0, e.count("acme", "surveys", "project", pid), "nothing recorded")
	require.Equal(t, http.StatusOK, ada.post(path, intakeAnswers(csrf), false).Status)
	survey := e.surveyOf(t, pid)

	ron := e.browser()
	ron.signIn("acme", "ron@acme.test")
	p := ron.get(path)
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	require.Contains(t, p.Body, `<fieldset class="answers" disabled>`)
	require.Contains(t, p.Body, `value="120"`, "the answers are shown")
	require.Contains(t, p.Body, "Your role can read the answers but not change them.")
	require.NotContains(t, p.Body, `id="apply"`)
	require.NotContains(t, p.Body, `hx-post`)
	require.NotContains(t, ron.get("/app/acme/projects/"+pid+"/surveys").Body, `id="start-survey"`)
	rcsrf := p.csrf(t)
	require.Equal(t, http.StatusForbidden, ron.post(path, intakeAnswers(rcsrf, "a.users", "7"), false).Status)
	require.Equal(t, http.StatusForbidden, ron.post(path+"/apply", formOf("csrf", rcsrf), false).Status)
	require.Equal(t, "120", e.calculateAnswers(t, survey)["users"])
	require.Equal(t, 0, e.count("acme", "project-services", "survey", survey), "not applied")

	gus := e.browser()
	gus.signIn("globex", "gus@globex.test")
	gcsrf := gus.get("/app/globex/projects").csrf(t)
	for _, other := range []string{
		"/app/globex/projects/" + pid + "/surveys/" + intake,                          // acme's project and questionnaire
		"/app/globex/projects/" + e.seeded["globex"].ProjectID + "/surveys/" + intake, // acme's questionnaire
		"/app/globex/projects/" + pid + "/surveys/" + e.seeded["globex"].IntakeID,     // acme's project
	} {
		require.Equal(t, http.StatusNotFound, gus.get(other).Status, other)
		require.Equal(t, http.StatusNotFound, gus.post(other, intakeAnswers(gcsrf), false).Status, other)
		require.Equal(t, http.StatusNotFound, gus.post(other+"/apply", formOf("csrf", gcsrf), false).Status, other)
	}
	require.Equal(t, http.StatusNotFound, gus.get("/app/globex/projects/"+pid+"/surveys").Status)
	require.Equal(t, "120", e.calculateAnswers(t, survey)["users"])

	// submitted: read-only (409)
	p = ada.post("/app/acme/projects/"+pid+"/submit", formOf("csrf", csrf), false)
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	p = ada.get(path)
	require.Contains(t, p.Body, "its surveys no longer change")
	require.Contains(t, p.Body, `<fieldset class="answers" disabled>`)
	require.Equal(t, http.StatusConflict, ada.post(path, intakeAnswers(csrf, "a.users", "7"), false).Status)
	require.Equal(t, http.StatusConflict, ada.post(path+"/apply", formOf("csrf", csrf), false).Status)
}

// calculateAnswers are the survey's recorded answers, as the API shows
// them.
func (e *env) calculateAnswers(t *testing.T, surveyID string) map[string]any {
	t.Helper()
	var doc struct {
		Data struct {
			Attributes struct {
				Answers map[string]any `json:"answers"`
			} `json:"attributes"`
		} `json:"data"`
	}
	dec := json.NewDecoder(strings.NewReader(e.apiCall(t, http.MethodGet, "/acme/v1/surveys/"+surveyID)))
	dec.UseNumber()
	require.NoError(t, dec.Decode(&doc))
	out := map[string]any{}
	for k, v := range doc.Data.Attributes.Answers {
		if n, ok := v.(json.Number); ok {
			v = n.String()
		}
		out[k] = v
	}
	return out
}

// Ensure a form the survey cannot take is refused with what is wrong,
// and records nothing: an answer to no question of the questionnaire,
// answers over their stored bound (422 saying so), a repeated answer, an unknown questionnaire or project, apply before any
// answer.
func TestSurveyRefusals(t *testing.T) {
	e := newEnv(t)
	b := e.browser()
	b.signIn("acme", "ada@acme.test")
	pid, intake := e.seeded["acme"].ProjectID, e.seeded["acme"].IntakeID
	path := "/app/acme/projects/" + pid + "/surveys/" + intake
	csrf := b.get(path).csrf(t)
	cases := []struct {
		name, path string
		form       map[string][]string
		status     int
		says       string
	}{
		{"no such question", path, intakeAnswers(csrf, "a.nope", "1"), http.StatusUnprocessableEntity, "nope"},
		{"an answer over its bound", path, intakeAnswers(csrf, "a.notes", strings.Repeat("n", 70_000)), http.StatusUnprocessableEntity, "answers is too long (at most 65536 bytes)"},
		{"repeated", path, map[string][]string{"csrf": {csrf}, "a.users": {"1", "2"}}, http.StatusBadRequest, "The form repeats the answer users."},
		{"apply before answers", path + "/apply", formOf("csrf", csrf), http.StatusUnprocessableEntity, "Answer the questions first"},
		{"unknown questionnaire", "/app/acme/projects/" + pid + "/surveys/999", intakeAnswers(csrf), http.StatusNotFound, "It does not exist"},
		{"unknown project", "/app/acme/projects/999/surveys/" + intake, intakeAnswers(csrf), http.StatusNotFound, "It does not exist"},
	}
	for _, c := range cases {
		p := b.post(c.path, c.form, false)
		require.Equal(t, c.status, p.Status, c.name)
		require.Contains(t, p.Body, c.says, c.name)
		p = b.post(c.path, c.form, true)
		require.Equal(t, c.status, p.Status, "htmx: %s", c.name)
		require.Equal(t, "#flash", p.Header.Get("HX-Retarget"), "htmx: %s", c.name)
	}
	require.Equal(t, 0, e.count("acme", "surveys", "project", pid), "nothing recorded")
	require.Equal(t, http.StatusNotFound, b.get("/app/acme/projects/"+pid+"/surveys/999").Status)
}
