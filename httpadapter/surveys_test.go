package httpadapter_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/scopekit/scopekit/internal/demodata"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// surveyEnv is acme with the demo (its intake questionnaire) and an
// empty draft project.
func surveyEnv(t *testing.T) (*testEnv, string, *demodata.Seeded, string) {
	t.Helper()
	e := mustEnv(t)
	sys, err := e.svc.SystemActor(context.Background(), e.accts["acme"])
	require.NoError(t, err)
	seeded, err := demodata.Seed(context.Background(), e.svc, sys, "")
	require.NoError(t, err)
	admin := e.admin()
	pid := e.create("/acme/v1/projects", admin, "projects", `{"project-name":"Initech refresh"}`, "client", "clients", seeded.ClientID)
	return e, admin, seeded, pid
}

const intakeAnswers = `{"users":101,"sites":3,"firewalls":2,"supply_firewalls":true,"wifi":true,"cloud":"azure","maintenance_window":false}`

// Ensure the survey routes over HTTP: a survey created with answers
// shows its computed recommendations, calculate answers them priced and
// writes nothing, apply writes lines that name their survey and rule and
// whose prices are the calculation's; problems are 422 pointing at the
// answer; a project no longer a draft is 409.
func TestSurveyRoutes(t *testing.T) {
	e, admin, demo, pid := surveyEnv(t)
	sid := e.create("/acme/v1/surveys", admin, "surveys", `{"answers":`+intakeAnswers+`}`,
		"project", "projects", pid, "questionnaire", "questionnaires", demo.IntakeID)
	r := e.get("/acme/v1/surveys/"+sid, admin)
	require.Equal(t, http.StatusOK, r.Status)
	assert.Len(t, r.attr("recommendations"), 11)
	assert.Empty(t, r.attr("problems"))
	assert.Equal(t, "draft", r.attr("status"))

	calc := e.req(http.MethodPost, "/acme/v1/surveys/"+sid+"/calculate", admin, "")
	require.Equal(t, http.StatusOK, calc.Status, "%s", calc.Body)
	assert.Equal(t, "survey-outcomes", calc.data()["type"])
	assert.Equal(t, false, calc.attr("applied"))
	assert.Empty(t, e.get("/acme/v1/project-services?filter[project]="+pid, admin).list())

	applied := e.req(http.MethodPost, "/acme/v1/surveys/"+sid+"/apply", admin, "")
	require.Equal(t, http.StatusOK, applied.Status, "%s", applied.Body)
	assert.Equal(t, true, applied.attr("applied"))
	assert.Equal(t, calc.attr("contract-revenue-after"), applied.attr("contract-revenue-after"))
	revenue := map[string]any{}
	for _, rec := range calc.attr("recommendations").([]any) {
		m := rec.(map[string]any)
		revenue[m["rule"].(string)] = m["revenue"]
	}
	lines := e.get("/v2/project-services?filter[project]="+pid, admin).list()
	require.Len(t, lines, 6)
	for _, l := range lines {
		attrs := l["attributes"].(map[string]any)
		rel := l["relationships"].(map[string]any)["survey"].(map[string]any)["data"].(map[string]any)
		assert.Equal(t, sid, rel["id"])
		assert.Equal(t, revenue[attrs["survey-rule"].(string)], attrs["revenue"], "the line's revenue is the calculation's")
	}
	pricing := e.get("/acme/v1/projects/"+pid+"/pricing", admin)
	assert.Equal(t, calc.attr("contract-revenue-after"), pricing.attr("total_contract_value"))
	assert.Len(t, e.get("/acme/v1/project-services?filter[survey]="+sid, admin).list(), 6)

	// a read-only role calculates, does not apply
	viewer := e.token("acme", "viewer@acme.test", "Read Only")
	assert.Equal(t, http.StatusOK, e.req(http.MethodPost, "/acme/v1/surveys/"+sid+"/calculate", viewer, "").Status)
	assertError(t, e.req(http.MethodPost, "/acme/v1/surveys/"+sid+"/apply", viewer, ""), http.StatusForbidden, "")

	// problems: 422 pointing at the answers
	bad := e.patch("/acme/v1/surveys/"+sid, admin, "surveys", sid, `{"answers":{"users":"many","sites":3,"firewalls":0,"wifi":false,"cloud":"oracle","maintenance_window":true}}`)
	require.Equal(t, http.StatusOK, bad.Status, "%s", bad.Body)
	assert.Equal(t, "draft", bad.attr("status"))
	refused := e.req(http.MethodPost, "/acme/v1/surveys/"+sid+"/apply", admin, "")
	assertError(t, refused, http.StatusUnprocessableEntity, "/data/attributes/answers/users")
	assertError(t, refused, http.StatusUnprocessableEntity, "/data/attributes/answers/cloud")
	assertError(t, e.req(http.MethodPatch, "/acme/v1/surveys/"+sid, admin, doc("surveys", sid, `{"answers":{"colour":"red"}}`)),
		http.StatusUnprocessableEntity, "/data/attributes/answers/colour")
	assertError(t, e.req(http.MethodPost, "/acme/v1/surveys/"+sid+"/apply", admin, `not json`), http.StatusBadRequest, "")
	assertError(t, e.req(http.MethodPost, "/acme/v1/surveys/999/calculate", admin, ""), http.StatusNotFound, "")

	// the lines record their survey: written only by apply
	psid := lines[0]["id"].(string)
	up := e.req(http.MethodPatch, "/v2/project-services/"+psid, admin, doc("project-services", psid, "", "survey", "surveys", sid))
	assertError(t, up, http.StatusBadRequest, "/data/relationships/survey")

	// not a draft: read-only
	e.patch("/acme/v1/surveys/"+sid, admin, "surveys", sid, `{"answers":`+intakeAnswers+`}`)
	require.Equal(t, http.StatusOK, e.patch("/acme/v1/projects/"+pid, admin, "projects", pid, `{"status":"approved"}`).Status)
	assertError(t, e.req(http.MethodPost, "/acme/v1/surveys/"+sid+"/apply", admin, ""), http.StatusConflict, "")
	assertError(t, e.req(http.MethodPatch, "/acme/v1/surveys/"+sid, admin, doc("surveys", sid, `{"answers":{}}`)), http.StatusConflict, "")
	assertError(t, e.req(http.MethodDelete, "/acme/v1/surveys/"+sid, admin, ""), http.StatusConflict, "")
	assert.Equal(t, http.StatusOK, e.req(http.MethodPost, "/acme/v1/surveys/"+sid+"/calculate", admin, "").Status)
}

// Ensure a questionnaire is checked on save over HTTP (422 naming the
// rule and pointing at its field), and that hostile expressions are a
// 422 at save or a problem at calculate, answered fast, never a 500.
func TestQuestionnaireRoutes(t *testing.T) {
	e, admin, demo, pid := surveyEnv(t)
	post := func(questions, rules string) *resp {
		return e.req(http.MethodPost, "/acme/v1/questionnaires", admin, doc("questionnaires", "",
			`{"name":"Q`+time.Now().Format("150405.000000")+`","slug":"q`+time.Now().Format("150405000000")+`","questions":`+questions+`,"rules":`+rules+`}`))
	}
	qs := `[{"slug":"n","prompt":"N?","kind":"number"}]`
	r := post(qs, `[{"slug":"x","service":"Nope","quantity":"answers.n"}]`)
	errObj := assertError(t, r, http.StatusUnprocessableEntity, "/data/attributes/rules/0/service")
	assert.Contains(t, errObj["detail"], `rule x: no service is named "Nope" in this account`)

	for _, hostile := range []string{
		strings.Repeat("(", 200) + "1" + strings.Repeat(")", 200),
		strings.Repeat("answers.n*", 500) + "1",
		"1" + strings.Repeat("0", 100),
		strings.Repeat("!", 5000) + "answers.n",
	} {
		start := time.Now()
		r := post(qs, `[{"slug":"x","service":"Assessment","quantity":"`+hostile+`"}]`)
		assertError(t, r, http.StatusUnprocessableEntity, "/data/attributes/rules/0/quantity")
		assert.Less(t, time.Since(start), 2*time.Second)
	}
	// what parses but cannot compute is a problem at calculate
	r = post(qs, `[{"slug":"div","service":"Assessment","quantity":"1 / (answers.n - answers.n)"},`+
		`{"slug":"big","service":"Assessment","quantity":"`+strings.Repeat("answers.n*", 90)+`1"}]`)
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	qid := r.data()["id"].(string)
	sid := e.create("/acme/v1/surveys", admin, "surveys", `{"answers":{"n":"999999999999"}}`,
		"project", "projects", pid, "questionnaire", "questionnaires", qid)
	start := time.Now()
	calc := e.req(http.MethodPost, "/acme/v1/surveys/"+sid+"/calculate", admin, "")
	require.Equal(t, http.StatusOK, calc.Status, "%s", calc.Body)
	assert.Less(t, time.Since(start), 2*time.Second)
	problems, _ := json.Marshal(calc.attr("problems"))
	assert.Contains(t, string(problems), "division by zero")
	assert.Contains(t, string(problems), "too large")
	_ = demo
}

// Ensure a questionnaire exports as a JSON file and imports into another
// account (201, then 200 updating it); an import naming records the
// account lacks is 422 listing each, writing nothing.
func TestQuestionnaireImportExportRoutes(t *testing.T) {
	e, admin, demo, _ := surveyEnv(t)
	r := e.req(http.MethodGet, "/acme/v1/questionnaires/"+demo.IntakeID+"/export", admin, "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
	assert.Contains(t, r.Header.Get("Content-Disposition"), "network_refresh.questionnaire.json")
	file := string(r.Body)

	globex := e.token("globex", "admin@globex.test", "Account Admin")
	imp := func(body, ct string) *resp {
		return e.req(http.MethodPost, "/v1/questionnaire-import", globex, body, "Content-Type", ct)
	}
	refused := imp(file, "application/json")
	assertError(t, refused, http.StatusUnprocessableEntity, "/rules/0/service")
	assert.Len(t, refused.errors(), 11, "every missing name: %s", refused.Body)
	assert.Empty(t, e.get("/globex/v1/questionnaires", globex).list(), "nothing is written")

	sys, err := e.svc.SystemActor(context.Background(), e.accts["globex"])
	require.NoError(t, err)
	seeded, err := demodata.Seed(context.Background(), e.svc, sys, "")
	require.NoError(t, err)
	require.Equal(t, http.StatusNoContent, e.req(http.MethodDelete, "/globex/v1/questionnaires/"+seeded.IntakeID, globex, "").Status)
	created := imp(file, "application/json")
	require.Equal(t, http.StatusCreated, created.Status, "%s", created.Body)
	assert.NotEmpty(t, created.Header.Get("Location"))
	assert.Equal(t, "Network refresh intake", created.attr("name"))
	again := imp(file, "application/json")
	require.Equal(t, http.StatusOK, again.Status, "%s", again.Body)
	assert.Equal(t, created.data()["id"], again.data()["id"])

	assertError(t, imp(file, "text/plain"), http.StatusUnsupportedMediaType, "")
	assertError(t, imp("[1]", "application/json"), http.StatusBadRequest, "")
	assertError(t, imp(`{"colour":"red"}`, "application/json"), http.StatusBadRequest, "/colour")
	assertError(t, imp(strings.Repeat(" ", 2<<20)+"{}", "application/json"), http.StatusRequestEntityTooLarge, "")
	viewer := e.token("globex", "viewer@globex.test", "Read Only")
	assertError(t, e.req(http.MethodPost, "/v1/questionnaire-import", viewer, file, "Content-Type", "application/json"), http.StatusForbidden, "")
	assertError(t, e.get("/acme/v1/questionnaires/999/export", admin), http.StatusNotFound, "")
}

// Ensure concurrent applies of one survey, and concurrent first surveys
// of one project and questionnaire, end as one would: each rule has one
// line, and the project one survey.
func TestSurveyConcurrentApply(t *testing.T) {
	e, admin, demo, pid := surveyEnv(t)
	const n = 8
	statuses := make(chan int, n)
	body := doc("surveys", "", `{"answers":`+intakeAnswers+`}`, "project", "projects", pid, "questionnaire", "questionnaires", demo.IntakeID)
	for range n {
		go func() { statuses <- e.req(http.MethodPost, "/acme/v1/surveys", admin, body).Status }()
	}
	created := 0
	for range n {
		switch st := <-statuses; st {
		case http.StatusCreated:
			created++
		default:
			assert.Equal(t, http.StatusUnprocessableEntity, st)
		}
	}
	require.Equal(t, 1, created, "one survey per project and questionnaire")
	surveys := e.get("/acme/v1/surveys?filter[project]="+pid, admin).list()
	require.Len(t, surveys, 1)
	sid := surveys[0]["id"].(string)
	for range n {
		go func() { statuses <- e.req(http.MethodPost, "/acme/v1/surveys/"+sid+"/apply", admin, "").Status }()
	}
	for range n {
		assert.Equal(t, http.StatusOK, <-statuses)
	}
	rules := map[string]int{}
	for _, typ := range []string{"project-services", "project-governances", "project-products", "project-expenses"} {
		for _, l := range e.get("/acme/v1/"+typ+"?filter[survey]="+sid, admin).list() {
			rules[l["attributes"].(map[string]any)["survey-rule"].(string)]++
		}
	}
	require.Len(t, rules, 11)
	for rule, count := range rules {
		assert.Equal(t, 1, count, rule)
	}
}
