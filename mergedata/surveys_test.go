package mergedata_test

import (
	"testing"

	"github.com/scopekit/scopekit/mergedata"
	"github.com/stretchr/testify/require"
)

// Ensure v2's survey_responses holds the answers of the project's surveys
// by question slug, select answers as their labels, dates as dates, and
// every unanswered question as a value templates can test ("", [] or
// null), never absent.
func TestSurveyResponses(t *testing.T) {
	e := mustEnv(t)
	demo := e.seedDemo()
	e.Create("surveys", map[string]any{"answers": map[string]any{"users": 101, "sites": 3, "firewalls": 2, "wifi": true,
		"cloud": "azure", "maintenance_window": true, "window_start": "2026-12-05", "notes": "Cutover on a weekend"}},
		"project", "projects", demo.ProjectID, "questionnaire", "questionnaires", demo.IntakeID)
	got := tree(t, mergedata.BuildV2(e.snapshot(demo.ProjectID), now))["survey_responses"].(map[string]any)
	require.Equal(t, "101", got["users"])
	require.Equal(t, "Microsoft Azure", got["cloud"])
	require.Equal(t, true, got["wifi"])
	require.Equal(t, false, got["supply_firewalls"], "a default stands for an answer")
	require.Equal(t, "", got["access_points"], "not answered")
	require.Equal(t, "Cutover on a weekend", got["notes"])
	require.Equal(t, map[string]any{"value": "2026-12-05", "to_short_date": "12/05/2026", "to_long_date": "December 5, 2026"}, got["window_start"])
	require.Len(t, got, 10, "every question of the questionnaire")
}
