package scoping_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/internal/snapshottest"
	"github.com/scopekit/scopekit/scoping/views"
)

// BenchmarkSurveyCalculate calculates the demo intake's survey (eleven
// recommendations, priced on a scratch transaction) on an empty project
// and on the large project of docs/pricing.md (1,000 services, 3,000
// subservices), which it prices once with the new lines (the contract
// revenue before is the stored one).
func BenchmarkSurveyCalculate(b *testing.B) {
	for _, size := range []string{"empty", "large"} {
		b.Run(size, func(b *testing.B) {
			e := snapshottest.New(b)
			demo := e.SeedDemo()
			pid := e.Create(views.TypeProjects, map[string]any{"project-name": "Bench"}, "client", "clients", demo.ClientID)
			if size == "large" {
				pid = e.SeedLarge() // written straight to the store: its prices stored as a write would
				if err := e.Svc.RefreshPrices(context.Background(), e.Acct); err != nil {
					b.Fatal(err)
				}
			}
			sid := e.Create(views.TypeSurveys, map[string]any{"answers": answers()}, "project", "projects", pid,
				"questionnaire", "questionnaires", demo.IntakeID)
			ctx := context.Background()
			for b.Loop() {
				if _, err := e.Svc.CalculateSurvey(ctx, e.Actor, sid); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkQuestionnaireSaveHostile saves the largest questionnaire the
// bounds admit with the costliest expressions: 200 rules whose quantity
// is a 1,000-character chain of products, each parsed and checked.
func BenchmarkQuestionnaireSaveHostile(b *testing.B) {
	e := snapshottest.New(b)
	e.SeedDemo()
	chain := strings.Repeat("answers.n*", 99) + "1"
	rules := make([]string, 200)
	for i := range rules {
		rules[i] = fmt.Sprintf(`{"slug":"r%d","service":"Assessment","quantity":"%s"}`, i, chain)
	}
	in := questionnaireInput("Hostile", `[{"slug":"n","prompt":"N?","kind":"number"}]`, "["+strings.Join(rules, ",")+"]")
	ctx := context.Background()
	res, err := e.Svc.Create(ctx, e.Actor, views.TypeQuestionnaires, in, engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	id := res.Records[0].ID
	up := &engine.Input{Attrs: map[string]json.RawMessage{views.NameRules: in.Attrs[views.NameRules]}}
	for b.Loop() {
		if _, err := e.Svc.Update(ctx, e.Actor, views.TypeQuestionnaires, id, up, engine.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
