package scoping_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/internal/snapshottest"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/stretchr/testify/require"
)

// questionnaireInput is a questionnaire write of the given questions and
// rules (JSON texts).
func questionnaireInput(name, questions, rules string) *engine.Input {
	return &engine.Input{Attrs: map[string]json.RawMessage{
		"name": json.RawMessage(`"` + name + `"`), "slug": json.RawMessage(`"` + strings.ToLower(strings.ReplaceAll(name, " ", "_")) + `"`),
		"questions": json.RawMessage(questions), "rules": json.RawMessage(rules)}}
}

const okQuestions = `[{"slug": "users", "prompt": "Users?", "kind": "integer", "min": 1},
	{"slug": "cloud", "prompt": "Cloud?", "kind": "single_select", "options": [{"slug": "aws", "label": "AWS"}, {"slug": "none", "label": "None"}]},
	{"slug": "extras", "prompt": "Extras?", "kind": "multi_select", "options": [{"slug": "wifi", "label": "Wi-Fi"}]}]`

// Ensure a questionnaire is checked as a whole on save: each problem is a
// 422 pointing at the question's or rule's field and naming it.
func TestQuestionnaireValidation(t *testing.T) {
	w := newIntake(t)
	ctx := context.Background()
	long := strings.Repeat("1+", 600) + "1"
	deep := strings.Repeat("(", 40) + "1" + strings.Repeat(")", 40)
	for _, tc := range []struct {
		name, questions, rules, field, msg string
	}{
		{"bad slug", `[{"slug": "a-b", "prompt": "?", "kind": "text"}]`, `[]`, "/data/attributes/questions/0/slug", "question a-b: slug must be"},
		{"duplicate slug", `[{"slug": "a", "prompt": "?", "kind": "text"}, {"slug": "a", "prompt": "?", "kind": "text"}]`, `[]`,
			"/data/attributes/questions/1/slug", "question a: slug is taken"},
		{"no prompt", `[{"slug": "a", "kind": "text"}]`, `[]`, "/data/attributes/questions/0/prompt", "question a: prompt can't be blank"},
		{"bad kind", `[{"slug": "a", "prompt": "?", "kind": "money"}]`, `[]`, "/data/attributes/questions/0/kind", "kind must be one of"},
		{"select without options", `[{"slug": "a", "prompt": "?", "kind": "single_select"}]`, `[]`, "/data/attributes/questions/0/options", "needs options"},
		{"options on text", `[{"slug": "a", "prompt": "?", "kind": "text", "options": [{"slug": "x", "label": "X"}]}]`, `[]`,
			"/data/attributes/questions/0/options", "only a select has options"},
		{"min over max", `[{"slug": "a", "prompt": "?", "kind": "number", "min": 5, "max": "2"}]`, `[]`, "/data/attributes/questions/0/max", "max is below min"},
		{"min on text", `[{"slug": "a", "prompt": "?", "kind": "text", "min": 1}]`, `[]`, "/data/attributes/questions/0/min", "only a number or an integer"},
		{"bad default", `[{"slug": "a", "prompt": "?", "kind": "integer", "default": 1.5}]`, `[]`, "/data/attributes/questions/0/default",
			"default: a must be a whole number"},
		{"when reads a later question", `[{"slug": "a", "prompt": "?", "kind": "boolean", "when": "answers.b"}, {"slug": "b", "prompt": "?", "kind": "boolean"}]`, `[]`,
			"/data/attributes/questions/0/when", "reads only earlier questions"},
		{"unknown member", `[{"slug": "a", "prompt": "?", "kind": "text", "colour": "red"}]`, `[]`, "/data/attributes/questions/0", `no member "colour"`},
		{"not a list", `{"slug": "a"}`, `[]`, "/data/attributes/questions", "must be a list of objects"},
		{"unknown question", okQuestions, `[{"slug": "r", "service": "Assessment", "quantity": "answers.sites"}]`,
			"/data/attributes/rules/0/quantity", "rule r: quantity: answers.sites: no question has the slug sites"},
		{"unknown function", okQuestions, `[{"slug": "r", "service": "Assessment", "quantity": "sqrt(answers.users)"}]`,
			"/data/attributes/rules/0/quantity", `unknown function "sqrt"`},
		{"text quantity", okQuestions, `[{"slug": "r", "service": "Assessment", "quantity": "answers.cloud"}]`,
			"/data/attributes/rules/0/quantity", "gives a text, not a number"},
		{"wrong kind in when", okQuestions, `[{"slug": "r", "when": "answers.cloud > 3", "service": "Assessment"}]`,
			"/data/attributes/rules/0/when", "> compares a text with a number"},
		{"not an option", okQuestions, `[{"slug": "r", "when": "contains(answers.extras, 'voip')", "service": "Assessment"}]`,
			"/data/attributes/rules/0/when", `"voip" is not an option of answers.extras`},
		{"deep", okQuestions, `[{"slug": "r", "service": "Assessment", "quantity": "` + deep + `"}]`, "/data/attributes/rules/0/quantity", "nested too deeply"},
		{"long", okQuestions, `[{"slug": "r", "service": "Assessment", "quantity": "` + long + `"}]`, "/data/attributes/rules/0/quantity", "at most 1000 characters"},
		{"huge number", okQuestions, `[{"slug": "r", "service": "Assessment", "quantity": "1` + strings.Repeat("0", 40) + `"}]`,
			"/data/attributes/rules/0/quantity", "more than 30 digits"},
		{"two targets", okQuestions, `[{"slug": "r", "service": "Assessment", "product": "Firewall appliance"}]`, "/data/attributes/rules/0/service", "exactly one of"},
		{"no target", okQuestions, `[{"slug": "r"}]`, "/data/attributes/rules/0/service", "exactly one of"},
		{"phase on a product", okQuestions, `[{"slug": "r", "product": "Firewall appliance", "phase": "Plan"}]`, "/data/attributes/rules/0/phase", "go with a service"},
		{"expense without rate", okQuestions, `[{"slug": "r", "expense": "Travel"}]`, "/data/attributes/rules/0/rate", "needs a rate"},
		{"quantity on governance", okQuestions, `[{"slug": "r", "governance": "Kickoff", "quantity": 2}]`, "/data/attributes/rules/0/quantity", "no quantity"},
		{"duplicate rule", okQuestions, `[{"slug": "r", "service": "Assessment"}, {"slug": "r", "service": "Assessment"}]`, "/data/attributes/rules/1/slug", "taken"},
		{"unknown service", okQuestions, `[{"slug": "r", "service": "Teleportation"}]`, "/data/attributes/rules/0/service",
			`rule r: no service is named "Teleportation" in this account`},
		{"unknown phase", okQuestions, `[{"slug": "r", "service": "Assessment", "phase": "Dream"}]`, "/data/attributes/rules/0/phase", `no phase is named "Dream"`},
		{"unknown category", okQuestions, `[{"slug": "r", "expense": "Travel", "rate": 5, "category": "Yachts"}]`, "/data/attributes/rules/0/category",
			`no expense category is named "Yachts"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := w.Svc.Create(ctx, w.Actor, views.TypeQuestionnaires, questionnaireInput("Q "+tc.name, tc.questions, tc.rules), engine.Options{})
			require.Equal(t, scopekit.EINVALID, scopekit.ErrorCode(err), "%v", err)
			var found bool
			for _, e := range scopekit.List(err) {
				if e.Field == tc.field {
					require.Contains(t, e.Message, tc.msg)
					found = true
				}
			}
			require.True(t, found, "no error at %s in %v", tc.field, err)
		})
	}
}

// Ensure a rule naming an archived record, or a record of another
// account, is refused naming the rule and the field; and that rule
// slugs and canonical forms are filled in on save.
func TestQuestionnaireReferences(t *testing.T) {
	w := newIntake(t)
	ctx := context.Background()
	other := w.otherAccount("globex")
	otherSvc := w.createIn(other, views.TypeServices, map[string]any{"name": "Globex only", "hours": "1"})
	require.NotEmpty(t, otherSvc)
	retired := w.Create(views.TypeProducts, map[string]any{"name": "Old appliance", "unit-price": "1"})
	w.Update(views.TypeProducts, retired, map[string]any{"active": false})

	_, err := w.Svc.Create(ctx, w.Actor, views.TypeQuestionnaires, questionnaireInput("Refs", okQuestions,
		`[{"service": "Globex only"}, {"product": "Old appliance"}, {"service": "Assessment", "resource": "Architect", "quantity": 2}]`), engine.Options{})
	list := scopekit.List(err)
	require.Len(t, list, 2, "%v", err)
	require.Equal(t, "/data/attributes/rules/0/service", list[0].Field)
	require.Contains(t, list[0].Message, `rule rule_1: no service is named "Globex only" in this account`)
	require.Equal(t, "/data/attributes/rules/1/product", list[1].Field)
	require.Contains(t, list[1].Message, `rule rule_2: the product "Old appliance" is archived`)

	res, err := w.Svc.Create(ctx, w.Actor, views.TypeQuestionnaires, questionnaireInput("Refs", okQuestions,
		`[{"service": "Assessment", "resource": "Architect", "quantity": 2, "when": "answers.users > 10"}]`), engine.Options{})
	require.NoError(t, err)
	rules := res.Records[0].Attrs[views.NameRules].([]any)
	require.Equal(t, "rule_1", rules[0].(map[string]any)["slug"])
	require.Equal(t, "2", rules[0].(map[string]any)["quantity"])
}

// otherAccount creates another account and returns its system actor.
func (w *intake) otherAccount(slug string) *engine.Actor {
	w.TB.Helper()
	ctx := context.Background()
	var id string
	require.NoError(w.TB, w.Svc.Setup(ctx, func(a *scoping.Admin) error {
		acct, err := a.EnsureAccount(slug, slug, "USD")
		if acct != nil {
			id = acct.ID
		}
		return err
	}))
	actor, err := w.Svc.SystemActor(ctx, id)
	require.NoError(w.TB, err)
	return actor
}

func (w *intake) createIn(a *engine.Actor, typ string, attrs map[string]any) string {
	w.TB.Helper()
	in := &engine.Input{Attrs: map[string]json.RawMessage{}}
	for k, v := range attrs {
		b, _ := json.Marshal(v)
		in.Attrs[k] = b
	}
	res, err := w.Svc.Create(context.Background(), a, typ, in, engine.Options{})
	require.NoError(w.TB, err)
	return res.Records[0].ID
}

// Ensure a questionnaire exports as a JSON file that another account
// imports as the same questionnaire, that an import into an account
// lacking records lists every missing name and writes nothing, and that
// importing again updates the questionnaire of the same slug.
func TestQuestionnaireImportExport(t *testing.T) {
	w := newIntake(t)
	ctx := context.Background()
	file, slug, err := w.Svc.ExportQuestionnaire(ctx, w.Actor, w.demo.IntakeID)
	require.NoError(t, err)
	require.Equal(t, "network_refresh", slug)

	// an account without the demo catalog: every name is listed
	bare := w.otherAccount("bare")
	_, _, err = w.Svc.ImportQuestionnaire(ctx, bare, file)
	list := scopekit.List(err)
	require.Equal(t, scopekit.EINVALID, scopekit.ErrorCode(err))
	var missing []string
	for _, e := range list {
		require.True(t, strings.HasPrefix(e.Field, "/rules/"), "%s: %s", e.Field, e.Message)
		missing = append(missing, e.Message)
	}
	joined := strings.Join(missing, "\n")
	for _, name := range []string{"Assessment", "Firewall deployment", "Firewall appliance", "Wireless site survey", "Wireless deployment",
		"Wireless access point", "Cloud connectivity", "After-hours cutover", "Cutover coordination", "Airfare", "Per diem"} {
		require.Contains(t, joined, `"`+name+`"`)
	}
	res, err := w.Svc.List(ctx, bare, views.TypeQuestionnaires, engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	require.Zero(t, res.Total, "nothing is written")

	// an account with the catalog imports it as it was
	other := snapshottest.New(t)
	require.NoError(t, other.Svc.Delete(ctx, other.Actor, views.TypeQuestionnaires, other.SeedDemo().IntakeID, engine.Options{}))
	got, created, err := other.Svc.ImportQuestionnaire(ctx, other.Actor, file)
	require.NoError(t, err)
	require.True(t, created)
	again, _, err := other.Svc.ExportQuestionnaire(ctx, other.Actor, got.Records[0].ID)
	require.NoError(t, err)
	require.JSONEq(t, string(file), string(again))
	// importing again updates it
	changed := strings.Replace(string(file), "The first call", "The first meeting", 1)
	upd, created, err := other.Svc.ImportQuestionnaire(ctx, other.Actor, []byte(changed))
	require.NoError(t, err)
	require.False(t, created)
	require.Equal(t, got.Records[0].ID, upd.Records[0].ID)

	for _, bad := range []string{`[]`, `{"name": "x", "colour": "red"}`, `{"name": "x"}`, `not json`} {
		_, _, err := other.Svc.ImportQuestionnaire(ctx, other.Actor, []byte(bad))
		require.Contains(t, []string{scopekit.EBADREQUEST, scopekit.EINVALID}, scopekit.ErrorCode(err), bad)
	}
	_, _, err = w.Svc.ImportQuestionnaire(ctx, acctMember(t, w.Svc, w.Acct, "rita@acme.test", "Read Only"), file)
	require.Equal(t, scopekit.EFORBIDDEN, scopekit.ErrorCode(err))
}
