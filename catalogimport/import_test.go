package catalogimport_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/catalogimport"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Ensure the template imports as it is, a second import changes nothing,
// and the export of the account imports into another account to the same
// catalog (XLSX and a zip of CSV files alike).
func TestTemplateImportExportRoundTrip(t *testing.T) {
	for _, format := range []catalogimport.Format{catalogimport.XLSX, catalogimport.ZipCSV} {
		e := newEnv(t)
		tpl, err := catalogimport.Template(e.svc.Schema(), format)
		require.NoError(t, err)
		f := catalogimport.File{Format: format, Data: tpl}

		dry, err := e.importFile("acme", f, true)
		require.NoError(t, err)
		require.Empty(t, problems(dry))
		assert.False(t, dry.Written)
		assert.Equal(t, 1, dry.Sheets["services"].Created)
		assert.Equal(t, "", e.dump("acme"), "a dry run writes nothing")

		rep, err := e.importFile("acme", f, false)
		require.NoError(t, err)
		assert.True(t, rep.Written)
		for _, key := range []string{"phases", "resources", "services", "subservices", "rate-tables", "rates", "lines-of-business", "service-categories"} {
			assert.Equal(t, catalogimport.Counts{Rows: rowsOf(key), Created: 1}, *rep.Sheets[key], key)
		}
		before := e.dump("acme")
		assert.Contains(t, before, "line-of-business=Network name=Assessment payment-frequency=one_time phase=Plan")

		again, err := e.importFile("acme", f, false)
		require.NoError(t, err)
		for key, c := range again.Sheets {
			assert.Equal(t, catalogimport.Counts{Rows: 1, Unchanged: 1}, *c, key)
		}
		assert.Equal(t, before, e.dump("acme"))

		out, err := e.svc.ExportCatalog(context.Background(), e.actor("acme"), format)
		require.NoError(t, err)
		rep, err = e.importFile("globex", catalogimport.File{Format: format, Data: out}, false)
		require.NoError(t, err, problems(rep))
		assert.Equal(t, before, e.dump("globex"))
		rep, err = e.importFile("acme", catalogimport.File{Format: format, Data: out}, false)
		require.NoError(t, err)
		for key, c := range rep.Sheets {
			assert.Equal(t, c.Rows, c.Unchanged, key)
		}
	}
}

// rowsOf is the rows of the template counted under key (lines of business
// and categories have no sheet).
func rowsOf(key string) int {
	if key == "lines-of-business" || key == "service-categories" {
		return 0
	}
	return 1
}

// Ensure a changed row updates the record of its name, and only it.
func TestChangedRowUpdates(t *testing.T) {
	e := newEnv(t)
	head := []any{"Name", "Hourly rate", "Hourly cost"}
	first := book(t, "Resources", [][]any{head, {"Engineer", 200, 90}, {"Architect", "250", "120"}})
	_, err := e.importFile("acme", xlsx(first), false)
	require.NoError(t, err)
	changed := book(t, "Resources", [][]any{head, {"engineer", 210.5, 90}, {"Architect", "250.00", 120}})
	rep, err := e.importFile("acme", xlsx(changed), false)
	require.NoError(t, err)
	assert.Equal(t, catalogimport.Counts{Rows: 2, Updated: 1, Unchanged: 1}, *rep.Sheets["resources"])
	assert.Contains(t, e.dump("acme"), "resources: active=true hourly-cost=90 hourly-rate=210.5 name=engineer")
}

// Ensure each bad file is refused with every problem named by sheet, row
// and column, and writes nothing.
func TestRefusedRowsWriteNothing(t *testing.T) {
	e := newEnv(t)
	tpl, err := catalogimport.Template(e.svc.Schema(), catalogimport.XLSX)
	require.NoError(t, err)
	_, err = e.importFile("acme", xlsx(tpl), false)
	require.NoError(t, err)
	before := e.dump("acme")

	cases := map[string]struct {
		file []byte
		want []string
	}{
		"unknown column": {book(t, "Services", [][]any{{"Name", "Hours", "Colour"}, {"X", 1, "red"}}),
			[]string{`Services row 1, Colour (C1): unknown column "Colour": the columns of Services are Name, Phase`}},
		"missing column": {book(t, "Rates", [][]any{{"Rate table", "Hourly rate"}, {"Standard USD", 1}}),
			[]string{"Rates row 1, Resource: the column Resource is missing (it is required)"}},
		"unknown sheet": {book(t, "Servicez", [][]any{{"Name"}, {"X"}}), []string{"Servicez: unknown sheet: the sheets are Phases, Resources"}},
		"bad numbers": {book(t, "Resources", [][]any{{"Name", "Hourly rate", "Hourly cost"}, {"A", "1,200", "-5"}, {"B", "12e3x", 3}}),
			[]string{`Resources row 2, Hourly rate (B2): "1,200" is not a number`, "Resources row 2, Hourly cost (C2): hourly-cost must be zero or positive",
				`Resources row 3, Hourly rate (B3): "12e3x" is not a number`}},
		"duplicates": {book(t, "Phases", [][]any{{"Name", "Position"}, {"Plan", 1}, {" plan ", 2}}),
			[]string{"Phases row 3: a duplicate of row 2 (the same Name)"}},
		"bad references": {book(t, "Services", [][]any{{"Name", "Phase", "Resource"}, {"New", "Nowhere", "Engineer"}},
			"Subservices", [][]any{{"Service", "Name"}, {"Ghost", "Step"}}),
			[]string{`Services row 2, Phase (B2): no phase named "Nowhere" in this file or in the account`,
				`Subservices row 2, Service (A2): no service named "Ghost" in this file or in the account`}},
		"refused parent": {book(t, "Services", [][]any{{"Name", "Hours"}, {"Parent", "x"}},
			"Subservices", [][]any{{"Service", "Name"}, {"Parent", "Step"}}),
			[]string{`Services row 2, Hours (B2): "x" is not a number`, `Subservices row 2, Service (A2): the service "Parent" is refused (Services row 2)`}},
		"required and enum": {book(t, "Services", [][]any{{"Name", "Service type"}, {"", "managed"}, {"S", "weekly"}}),
			[]string{"Services row 2, Name (A2): Name is required", "Services row 2, Service type (B2): service-type must be one of",
				"Services row 3, Service type (B3): service-type must be one of"}},
		"two defaults": {book(t, "Rate tables", [][]any{{"Name", "Default"}, {"A", "yes"}, {"B", true}}),
			[]string{"Rate tables row 3, Default (B3): only one row may be Default (row 2 is)"}},
		"hook refuses": {book(t, "Rate tables", [][]any{{"Name", "Currency"}, {"Euro table", "eur"}}),
			[]string{"Rate tables row 2, Currency (B2): currency EUR is not set up in this account"}},
		"no header": {book(t, "Phases", [][]any{{"Name"}, {"Plan", nil, "stray"}}), []string{"Phases row 2 (C2): a value in a column without a header"}},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			for _, dry := range []bool{true, false} {
				rep, err := e.importFile("acme", xlsx(tc.file), dry)
				if dry {
					require.NoError(t, err)
				} else {
					require.Equal(t, scopekit.EINVALID, scopekit.ErrorCode(err))
					assert.Contains(t, err.Error(), "nothing was written")
				}
				require.NotNil(t, rep)
				assert.False(t, rep.Written)
				got := problems(rep)
				for _, w := range tc.want {
					assert.Contains(t, got, w)
				}
				if name == "bad numbers" {
					assert.Equal(t, catalogimport.Counts{Rows: 2, Refused: 2}, *rep.Sheets["resources"])
				}
				assert.Equal(t, before, e.dump("acme"))
			}
		})
	}
}

// Ensure a row naming an archived record restores it, a name two active
// records share is refused, and another account's records are never
// found.
func TestNamesAndArchivedRecords(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	seed := func(slug, typ, attrs string) string {
		in := &engine.Input{}
		require.NoError(t, json.Unmarshal([]byte(attrs), &in.Attrs))
		res, err := e.svc.Create(ctx, e.actor(slug), typ, in, engine.Options{})
		require.NoError(t, err)
		return res.Records[0].ID
	}
	old := seed("acme", views.TypePhases, `{"name":"Plan","position":1}`)
	_, err := e.svc.Update(ctx, e.actor("acme"), views.TypePhases, old, &engine.Input{Attrs: map[string]json.RawMessage{"active": []byte("false")}}, engine.Options{})
	require.NoError(t, err)
	seed("acme", views.TypeRateTables, `{"name":"Twice"}`)
	seed("acme", views.TypeRateTables, `{"name":"twice"}`)
	seed("globex", views.TypeResources, `{"name":"Globex only"}`)

	rep, err := e.importFile("acme", xlsx(book(t, "Phases", [][]any{{"Name", "Position"}, {"plan", 1}})), false)
	require.NoError(t, err, problems(rep))
	assert.Equal(t, catalogimport.Counts{Rows: 1, Updated: 1}, *rep.Sheets["phases"])
	assert.Contains(t, e.dump("acme"), "phases: active=true name=plan position=1")

	rep, err = e.importFile("acme", xlsx(book(t, "Rates", [][]any{{"Rate table", "Resource"}, {"TWICE", "Globex only"}})), true)
	require.NoError(t, err)
	assert.Equal(t, "Rates row 2, Rate table (A2): 2 records of the account are named \"TWICE\": rename all but one\n"+
		"Rates row 2, Resource (B2): no resource named \"Globex only\" in this file or in the account\n", problems(rep))
	assert.Equal(t, catalogimport.Counts{Rows: 1, Refused: 1}, *rep.Sheets["rates"])
}

// Ensure an import needs manage access to the kinds of its sheets, and
// the export view access.
func TestImportPermissions(t *testing.T) {
	e := newEnv(t)
	a := e.actor("acme")
	a.Role = &engine.Record{Attrs: map[string]any{"permissions": map[string]any{"catalog": "manage", "rate_tables": "view"}}}
	phases := xlsx(book(t, "Phases", [][]any{{"Name"}, {"Plan"}}))
	rep, err := e.svc.ImportCatalog(context.Background(), a, phases, false)
	require.NoError(t, err, problems(rep))
	rates := xlsx(book(t, "Rates", [][]any{{"Rate table", "Resource"}, {"T", "R"}}))
	_, err = e.svc.ImportCatalog(context.Background(), a, rates, true)
	assert.Equal(t, scopekit.EFORBIDDEN, scopekit.ErrorCode(err))
	_, err = e.svc.ExportCatalog(context.Background(), a, catalogimport.XLSX)
	require.NoError(t, err)
	a.Role = &engine.Record{Attrs: map[string]any{"permissions": map[string]any{"catalog": "view"}}}
	_, err = e.svc.ExportCatalog(context.Background(), a, catalogimport.XLSX)
	assert.Equal(t, scopekit.EFORBIDDEN, scopekit.ErrorCode(err))
}
