package catalogimport

import (
	"strings"

	"github.com/scopekit/scopekit/scoping/views"
)

// The sheets of a catalog file (docs/import.md, "Columns"): one per kind,
// in the order they are applied, so that a row names only records of
// earlier sheets or of the account.

// column is one column of a sheet: it sets an attribute, or names a record
// of another type (by its name) for a relationship.
type column struct {
	title string   // the header the template writes
	alias []string // other accepted headers (normalized)
	attr  string   // the attribute set, or
	ref   string   // the type of the record named, and
	rel   string   // the relationship set to it
	// required columns must be in the header and filled on every row;
	// key columns identify the row's record.
	required, key bool
	// accountCurrency: a blank cell is the account's default currency.
	accountCurrency bool
	upper           bool // the value is kept in upper case (currency codes)
	example         string
}

// kind is one sheet: the records of one type.
type kind struct {
	key   string // the report's key, the CSV file's name
	title string // the sheet's name in the template
	alias []string
	typ   string
	cols  []column
}

// autoTypes are the types a services row may name that the file has no
// sheet of: a name the account lacks is created with the import (the
// report counts them under the type's name).
var autoTypes = map[string]bool{views.TypeLinesOfBusiness: true, views.TypeServiceCategories: true}

func name(example string) column {
	return column{title: "Name", attr: views.NameName, required: true, key: true, example: example}
}

// kinds are the sheets, in order.
var kinds = []*kind{
	{key: "phases", title: "Phases", typ: views.TypePhases, cols: []column{
		name("Plan"),
		{title: "Position", attr: views.NamePosition, example: "1"},
		{title: "SOW language", attr: views.NameSowLanguage, example: "We agree the scope and the plan with your team."},
	}},
	{key: "resources", title: "Resources", typ: views.TypeResources, cols: []column{
		name("Engineer"),
		{title: "External name", attr: views.NameExternalName, example: "Network Engineer"},
		{title: "Hourly rate", attr: views.NameHourlyRate, example: "200"},
		{title: "Hourly cost", attr: views.NameHourlyCost, example: "90"},
		{title: "Description", attr: views.NameDescription, example: "Designs and deploys networks."},
	}},
	{key: "services", title: "Services", typ: views.TypeServices, cols: []column{
		name("Assessment"),
		{title: "Phase", ref: views.TypePhases, rel: views.NamePhase, example: "Plan"},
		{title: "Resource", ref: views.TypeResources, rel: views.NameResource, example: "Engineer"},
		{title: "Hours", attr: views.NameHours, example: "8"},
		{title: "Service type", attr: views.NameServiceType, example: "professional_services"},
		{title: "Payment frequency", attr: views.NamePaymentFrequency, example: "one_time"},
		{title: "SKU", attr: views.NameSku, example: "PS-ASSESS"},
		{title: "Position", attr: views.NamePosition, example: "1"},
		{title: "Line of business", ref: views.TypeLinesOfBusiness, rel: views.NameLineOfBusiness, example: "Network"},
		{title: "Category", alias: []string{"service category"}, ref: views.TypeServiceCategories, rel: views.NameServiceCategory,
			example: "Assessment"},
		{title: "Description", attr: views.NameDescription, example: "A survey of the sites and a report."},
	}},
	{key: "subservices", title: "Subservices", typ: views.TypeSubservices, cols: []column{
		{title: "Service", ref: views.TypeServices, rel: views.NameService, required: true, key: true, example: "Assessment"},
		name("Site survey"),
		{title: "Hours", attr: views.NameHours, example: "1.5"},
		{title: "Quantity", attr: views.NameQuantity, example: "3"},
		{title: "Resource", ref: views.TypeResources, rel: views.NameResource},
		{title: "Position", attr: views.NamePosition, example: "1"},
	}},
	{key: "rate-tables", title: "Rate tables", typ: views.TypeRateTables, cols: []column{
		name("Standard USD"),
		{title: "Currency", attr: views.NameCurrency, accountCurrency: true, upper: true, example: "USD"},
		{title: "Default", attr: views.NameDefault, example: "true"},
	}},
	{key: "rates", title: "Rates", alias: []string{"resource rates"}, typ: views.TypeResourceRates, cols: []column{
		{title: "Rate table", ref: views.TypeRateTables, rel: views.NameRateTable, required: true, key: true, example: "Standard USD"},
		{title: "Resource", ref: views.TypeResources, rel: views.NameResource, required: true, key: true, example: "Engineer"},
		{title: "Hourly rate", attr: views.NameHourlyRate, example: "200"},
		{title: "Hourly cost", attr: views.NameHourlyCost, example: "90"},
	}},
}

// normalize is how headers and sheet names are compared: case, spaces,
// hyphens and underscores do not matter ("Hourly rate", "hourly-rate").
func normalize(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.NewReplacer("-", " ", "_", " ").Replace(s)
	return strings.Join(strings.Fields(s), " ")
}

// kindNamed returns the kind a sheet (or CSV file, without .csv) names.
func kindNamed(sheet string) *kind {
	n := normalize(strings.TrimSuffix(strings.ToLower(strings.TrimSpace(sheet)), ".csv"))
	for _, k := range kinds {
		if n == normalize(k.title) || n == normalize(k.key) || n == normalize(k.typ) {
			return k
		}
		for _, a := range k.alias {
			if n == a {
				return k
			}
		}
	}
	return nil
}

// columnNamed returns the index of the column a header names, -1 for none.
func (k *kind) columnNamed(header string) int {
	n := normalize(header)
	for i, c := range k.cols {
		if n == "" {
			break
		}
		for _, name := range append([]string{c.title, c.attr, c.rel}, c.alias...) {
			if name != "" && n == normalize(name) {
				return i
			}
		}
	}
	return -1
}

// kindTitles lists the sheet names, for messages.
func kindTitles() string {
	titles := make([]string, len(kinds))
	for i, k := range kinds {
		titles[i] = k.title
	}
	return strings.Join(titles, ", ")
}

// titles lists the column headers of k, for messages.
func (k *kind) titles() string {
	titles := make([]string, len(k.cols))
	for i, c := range k.cols {
		titles[i] = c.title
	}
	return strings.Join(titles, ", ")
}

// SheetTitles are the titles of the sheets an import reads, in order (a
// lone CSV file names one of them).
func SheetTitles() []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = k.title
	}
	return out
}
