package scoping_test

import (
	"encoding/json"
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The projects module (review.go): the review of a project's scope.

// Ensure a review finds each kind of defect on the lines they are about,
// walks the approval levels a submission would go through, and reads the
// margin thresholds; an actor without settings view gets the findings but
// not the levels' conditions.
func TestReviewScope(t *testing.T) {
	w := newWfWorld(t)
	c := w.ccCatalog()
	p := w.ccProject("Review", c.table)
	// a required governance item added to the catalog after the project
	// was created: not on it
	w.create(w.sys, "governances", attrs("name", `"Kickoff"`, "calculation-type", `"fixed_hours"`, "fixed-hours", `"2"`,
		"required", `true`), nil)
	design := w.create(w.sys, "project-services", nil, map[string]engine.RelInput{
		"project": rel("projects", p), "service": rel("services", c.design)})
	_, err := w.update(w.sys, "project-services", design.ID, attrs("unit-hours", `"6"`), nil)
	require.NoError(t, err)
	cabling := w.create(w.sys, "project-services", attrs("name", `"Cabling"`, "unit-hours", `"0"`),
		map[string]engine.RelInput{"project": rel("projects", p)})
	closing := w.create(w.sys, "project-phases", attrs("name", `"Close"`), map[string]engine.RelInput{"project": rel("projects", p)})
	engineer := w.list("project-resources", map[string]string{"project": p})[0]
	_, err = w.update(w.sys, "project-resources", engineer.ID, attrs("hourly-rate", `"260"`), nil)
	require.NoError(t, err)

	below, _ := w.level("Margin check", "technical", 1, `[{"field":"contract_margin","operator":"lt","value":"0.9"}]`, "", 0, w.adminID)
	w.level("Large deals", "business", 2, `[{"field":"contract_revenue","operator":"gt","value":"1000000"}]`, "", 0, w.adminID)
	thin, _ := w.level("Thin margin", "sales", 3, `[{"field":"contract_margin","operator":"lte","value":"0.01"}]`, "", 0, w.adminID)
	w.level("Everyone", "business", 4, `[]`, "", 0, w.adminID)

	rv, err := w.svc.ReviewScope(w.ctx, w.admin, p)
	require.NoError(t, err)
	assert.Equal(t, p, rv.Snapshot.Project.ID)
	assert.Equal(t, "1560.00", rv.Snapshot.Pricing.TotalContractValue.String(), "6 h at 260/h")
	assert.False(t, rv.SettingsHidden)
	type line struct{ kind, typ, id, name string }
	var got []line
	for _, f := range rv.Findings {
		assert.NotEmpty(t, f.Message, f.Kind)
		got = append(got, line{f.Kind, f.Type, f.ID, f.Name})
	}
	kickoff := w.list("governances", map[string]string{})[0]
	assert.Equal(t, []line{
		{scoping.FindingZeroHours, "project-services", cabling.ID, "Cabling"},
		{scoping.FindingNoResource, "project-services", cabling.ID, "Cabling"},
		{scoping.FindingEmptyPhase, "project-phases", closing.ID, "Close"},
		{scoping.FindingMissingGovernance, "", "", ""},
		{scoping.FindingMissingGovernance, "governances", kickoff.ID, "Kickoff"},
		{scoping.FindingMarginBelow, "", "", ""},
		{scoping.FindingDiffersFromCatalog, "project-services", design.ID, "Design"},
		{scoping.FindingDiffersFromCatalog, "project-resources", engineer.ID, "Engineer"},
	}, got)
	msgs := map[string]string{}
	for _, f := range rv.Findings {
		msgs[f.Kind+f.Type+f.ID] = f.Message
	}
	assert.Equal(t, "the contract margin (61.54%) is below the threshold 0.9 of the technical approval level at position 1",
		msgs[scoping.FindingMarginBelow])
	assert.Equal(t, `"Design" has 6 unit hours; the catalog's "Design" has 4`, msgs[scoping.FindingDiffersFromCatalog+"project-services"+design.ID])
	assert.Equal(t, `resource "Engineer" has an hourly rate of 260; the catalog gives this project 250`,
		msgs[scoping.FindingDiffersFromCatalog+"project-resources"+engineer.ID])

	var levels []string
	for _, a := range rv.Approvals {
		levels = append(levels, a.Kind)
		assert.Equal(t, []string{w.adminID}, a.Approvers)
	}
	assert.Equal(t, []string{"technical", "business"}, levels, "the margin check and the level without conditions")
	assert.Equal(t, []scoping.MarginThreshold{
		{LevelID: below, Kind: "technical", Position: 1, Operator: "lt", Value: "0.9", Below: true},
		{LevelID: thin, Kind: "sales", Position: 3, Operator: "lte", Value: "0.01", Below: false},
	}, rv.MarginThresholds)

	t.Run("without settings view", func(t *testing.T) {
		w.role("Projects only", map[string]string{"projects": "view"}, "all")
		_, a := w.member("po@acme.test", "Projects only")
		rv, err := w.svc.ReviewScope(w.ctx, a, p)
		require.NoError(t, err)
		assert.True(t, rv.SettingsHidden)
		assert.Nil(t, rv.MarginThresholds)
		assert.Len(t, rv.Approvals, 2, "the steps a submission makes are the project's to see")
		for _, f := range rv.Findings {
			if f.Kind == scoping.FindingMarginBelow {
				assert.NotContains(t, f.Message, "0.9", "the threshold is a setting")
			}
		}
	})

	t.Run("a project with its governance", func(t *testing.T) {
		rv, err := w.svc.ReviewScope(w.ctx, w.admin, w.ccProject("Later", ""))
		require.NoError(t, err)
		for _, f := range rv.Findings {
			assert.NotEqual(t, scoping.FindingMissingGovernance, f.Kind, "the required item came with the project")
		}
	})

	t.Run("guard and visibility", func(t *testing.T) {
		w.role("Nothing", nil, "all")
		_, nothing := w.member("no@acme.test", "Nothing")
		_, err := w.svc.ReviewScope(w.ctx, nothing, p)
		assert.Equal(t, scopekit.EFORBIDDEN, scopekit.ErrorCode(err))
		other, theirs := w.otherProject()
		_, err = w.svc.ReviewScope(w.ctx, w.admin, theirs)
		assert.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))
		_, err = w.svc.ReviewScope(w.ctx, other, p)
		assert.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))
	})
}

// Ensure a service line that repeats another (the same catalog service,
// or name, in the same phase and location) is a finding, whatever its
// quantity, so that the review is not ready; and that the approvers of
// the steps are named for an actor who may view users, not for others.
func TestReviewDuplicatesAndApprovers(t *testing.T) {
	w := newWfWorld(t)
	c := w.ccCatalog()
	p := w.ccProject("Doubled", c.table)
	line := func(attrs map[string]json.RawMessage, rels map[string]engine.RelInput) string {
		rels["project"] = rel("projects", p)
		return w.create(w.sys, "project-services", attrs, rels).ID
	}
	first := line(nil, map[string]engine.RelInput{"service": rel("services", c.design)})
	again := line(attrs("quantity", `"3"`), map[string]engine.RelInput{"service": rel("services", c.design)})
	third := line(nil, map[string]engine.RelInput{"service": rel("services", c.design)})
	site := w.create(w.sys, "project-locations", attrs("name", `"Site"`), map[string]engine.RelInput{"project": rel("projects", p)})
	atSite := line(nil, map[string]engine.RelInput{"service": rel("services", c.design), "project-location": rel("project-locations", site.ID)}) // elsewhere: not the same
	siteAgain := line(nil, map[string]engine.RelInput{"service": rel("services", c.design), "project-location": rel("project-locations", site.ID)})
	named := line(attrs("name", `"Cabling"`, "unit-hours", `"2"`), map[string]engine.RelInput{})
	copyOf := line(attrs("name", `" cabling"`, "unit-hours", `"3"`), map[string]engine.RelInput{})
	w.level("Everyone", "business", 1, `[]`, "", 0, w.adminID)

	rv, err := w.svc.ReviewScope(w.ctx, w.admin, p)
	require.NoError(t, err)
	var dups [][2]string
	for _, f := range rv.Findings {
		if f.Kind == scoping.FindingDuplicate {
			dups = append(dups, [2]string{f.ID, f.Message})
		}
	}
	where := `without a phase`
	assert.Equal(t, [][2]string{
		{again, `service line ` + again + ` ("Design") repeats line ` + first + ` in phase "Plan": if one line was meant, change line ` + first + `'s quantity and remove line ` + again},
		{third, `service line ` + third + ` ("Design") repeats line ` + first + ` in phase "Plan": if one line was meant, change line ` + first + `'s quantity and remove line ` + third},
		{siteAgain, `service line ` + siteAgain + ` ("Design") repeats line ` + atSite + ` in phase "Plan" at "Site": if one line was meant, change line ` + atSite + `'s quantity and remove line ` + siteAgain},
		{copyOf, `service line ` + copyOf + ` (" cabling") repeats line ` + named + ` ` + where + `: if one line was meant, change line ` + named + `'s quantity and remove line ` + copyOf},
	}, dups)

	require.Len(t, rv.Approvals, 1)
	assert.Equal(t, map[string]string{w.adminID: "admin@acme.test"}, rv.ApproverNames)
	assert.False(t, rv.UsersHidden)

	w.role("No users", map[string]string{"projects": "view"}, "all")
	_, a := w.member("nu@acme.test", "No users")
	rv, err = w.svc.ReviewScope(w.ctx, a, p)
	require.NoError(t, err)
	assert.True(t, rv.UsersHidden)
	assert.Nil(t, rv.ApproverNames)
	assert.Equal(t, []string{w.adminID}, rv.Approvals[0].Approvers, "known by id")
}
