package documents_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/documents"
	"github.com/scopekit/scopekit/internal/demodata"
	"github.com/scopekit/scopekit/mergedata"
	"github.com/scopekit/scopekit/office/officetest"
	"github.com/scopekit/scopekit/pricing"
	"github.com/stretchr/testify/require"
)

// schema returns every path of v2 merge data, from its Go types: list
// items are addressed without an index; open maps (user_defined_fields)
// are marked with a trailing ".*".
func schema() map[string]bool {
	paths := map[string]bool{}
	fixed := reflect.TypeFor[pricing.Fixed]()
	table := reflect.TypeFor[pricing.ResourceTable]()
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		if prefix != "" {
			paths[prefix] = true
		}
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
			t = t.Elem()
		}
		join := func(name string) string {
			if prefix == "" {
				return name
			}
			return prefix + "." + name
		}
		switch {
		case t == fixed:
		case t == table: // encoded as one list: the rows, then the total row
			walk(reflect.TypeFor[pricing.ResourceRow](), prefix)
			walk(reflect.TypeFor[pricing.ResourceTotal](), prefix)
		case t.Kind() == reflect.Map:
			paths[join("*")] = true
		case t.Kind() == reflect.Struct:
			for f := range t.Fields() {
				name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
				if name == "" || name == "-" || !f.IsExported() {
					continue
				}
				walk(f.Type, join(name))
			}
		}
	}
	walk(reflect.TypeFor[mergedata.V2](), "")
	return paths
}

// Ensure every tag of the Standard SOW reads a path v2 merge data has,
// resolved as Render resolves it: in the innermost loop's items first,
// then outward; and that the check finds a path that is not there.
func TestStandardSOWPathsExist(t *testing.T) {
	tags, err := documents.Tags(context.Background(), documents.StandardSOW())
	require.NoError(t, err)
	require.NotEmpty(t, tags)
	require.NoError(t, missingPath(t, documents.StandardSOW()))
	for _, bad := range []string{"{project.nope}", "{#phases}{#services}{hourz}{/services}{/phases}", "{#locations}{subservices}{/locations}"} {
		require.Error(t, missingPath(t, template(t, p("{project.project_name}", "{#phases}{services.length}{/phases}", bad))), bad)
	}
	require.NoError(t, missingPath(t, template(t, p("{#phases}{#services}{currency.unit}{name}{/services}{/phases}{project.user_defined_fields.region}"))))
}

// missingPath returns an error naming the first tag path of tpl that v2
// merge data does not have.
func missingPath(t *testing.T, tpl []byte) error {
	scoped, err := documents.TagScopes(tpl)
	require.NoError(t, err)
	paths := schema()
	has := func(p string) bool {
		if paths[p] {
			return true
		}
		for i := strings.LastIndex(p, "."); i > 0; i = strings.LastIndex(p[:i], ".") {
			if paths[p[:i]+".*"] {
				return true
			}
		}
		return false
	}
	// resolve qualifies p in scopes (already qualified), innermost first.
	resolve := func(p string, scopes []string) (string, bool) {
		for i := len(scopes) - 1; i >= 0; i-- {
			if q := scopes[i] + "." + p; has(q) {
				return q, true
			}
		}
		return p, has(p)
	}
	for _, sp := range scoped {
		var quals []string
		for _, s := range sp.Scopes {
			q, ok := resolve(s, quals)
			if !ok {
				return fmt.Errorf("the loop path %q is not in v2 merge data", s)
			}
			quals = append(quals, q)
		}
		if _, ok := resolve(sp.Path, quals); !ok {
			return fmt.Errorf("the tag path %q (inside %v) is not in v2 merge data", sp.Path, sp.Scopes)
		}
	}
	return nil
}

// Ensure the Standard SOW filled for the worked example of pricing.md
// shows the project, its phases, services and subservices, and every
// figure of the contract the client signs, each the pricing result's and
// each total the sum of the rows above it: the phases' services and
// subservices each with its hours and price, governance and the -250
// adjustment on lines of their own; and, being the
// client's copy, no cost, profit or margin.
func TestStandardSOWDemo(t *testing.T) {
	e := mustEnv(t)
	s := renderSOW(t, e.demo())
	s.check(t)
	text := s.text
	for _, want := range []string{
		demodata.ProjectName, "Globex Corporation", "Acme Consulting", "November 22, 2026",
		"Assess Globex's network and replace its perimeter firewalls.",
		"Plan", "Implement", "Assessment", "Site survey", "Report", "Firewall deployment",
		"Project management", "Kickoff", "Airfare", "Per diem", "Firewall appliance",
		"|Assessment|Engineer|2.00|16.00|$3,200.00", "|Site survey|Engineer|3.00|4.50|$900.00", "|Report|Architect|1.00|4.00|$1,000.00",
		"|Phase total|||24.50|$5,100.00", "|Phase total|||16.25|$3,250.00",
		"|Plan|24.50|$5,100.00", "|Implement|16.25|$3,250.00", "|Project governance|8.11|$1,569.25",
		"|Adjustment||-$250.00", "|Professional services|48.86|$9,669.25", "|Travel and expense||$1,125.00",
		"|Total contract value||$10,794.25", "$3,999.98",
		"Payment term: Fixed fee.", "Travel and expenses are part of the contract value.",
		"Materials are quoted for information", "All amounts are in USD.",
		"|Architect|$250.00", "Confidentiality",
	} {
		require.Contains(t, text, want)
	}
	for _, cost := range []string{"5696.30", "5097.95", "0.4723", "4616.30", "5052.95", "2325.00"} {
		require.NotContains(t, text, cost)
	}
	require.NotContains(t, text, "{")
	// The footer names the project; the first page has none.
	require.Contains(t, plain(entry(t, s.docx, "word/footer1.xml")), demodata.ProjectName+" · Statement of Work")
	// Hardware excluded: no materials row in the pricing summary.
	require.NotContains(t, text, "|Materials||$3,999.98")
}

// sections are the Standard SOW's sections, in order.
var sections = []string{"Executive summary", "Scope of work", "Deliverables", "Locations", "Assumptions",
	"Responsibilities", "Out of scope", "Project governance", "Managed services", "Travel and expense", "Materials",
	"Pricing summary", "Payment terms", "Change control", "General terms", "Acceptance"}

// Ensure a project with something for every section shows every section,
// in order, each with what the project's records hold: the narrative
// fields, the phases' SOW language, the services' descriptions, the
// locations, managed services, the MSA and the account's general terms;
// and that its figures add up as they do for the demo.
func TestStandardSOWEverySection(t *testing.T) {
	e := mustEnv(t)
	seeded := e.SeedDemo()
	pid := seeded.ProjectID
	e.Update("projects", pid, map[string]any{"solution-summary": "Two clustered firewalls.",
		"our-responsibilities": "Acme configures the firewalls.", "client-responsibilities": "Globex grants remote access.",
		"out-of-scope": "Switch replacement.", "msa-date": "2025-03-01"})
	snap := e.snapshot(pid)
	e.Update("project-phases", snap.Phases[0].ID, map[string]any{"sow-language": "Acme surveys the sites."})
	var engineer string
	for _, r := range snap.Resources {
		if r.Name() == "Engineer" {
			engineer = r.ID
		}
	}
	hq := e.Create("project-locations", map[string]any{"name": "HQ", "address": "1 Main St", "city": "Springfield",
		"region": "IL", "country": "US", "postal-code": "62701"}, "project", "projects", pid)
	e.Update("project-services", snap.Services[0].ID, map[string]any{"service-description": "A report on the network."})
	e.Create("project-services", map[string]any{"name": "Monitoring", "quantity": "1", "unit-hours": "2",
		"service-type": "managed_services", "payment-frequency": "monthly"},
		"project", "projects", pid, "project-resource", "project-resources", engineer, "project-location", "project-locations", hq)

	s := renderSOW(t, e.snapshot(pid))
	require.Equal(t, sections, headings(s.body, "Heading1"))
	require.Equal(t, []string{"Solution", "Plan", "Implement", "Services without a phase", "Acme Consulting", "Globex Corporation",
		"Confidentiality", "Acceptance of deliverables", "Warranty"}, headings(s.body, "Heading2"))
	for _, want := range []string{"Two clustered firewalls.", "Acme configures the firewalls.", "Globex grants remote access.",
		"Switch replacement.", "Acme surveys the sites.", "Assessment: A report on the network.", "|HQ|1 Main St|Springfield, IL 62701|US",
		"dated March 1, 2025", "|Monitoring|monthly|12.00|", "|Monitoring|Engineer|1.00||recurring",
		"The services are delivered at the locations listed"} {
		require.Contains(t, s.text, want)
	}
	require.NotContains(t, s.text, "{")
	tables := s.check(t)
	require.Contains(t, tables, "Service|Frequency|Periods|Per period|Amount")
}

// Ensure a project without services, expenses, products, locations or
// narrative shows none of their sections, no empty table under a blank
// phase heading and no governance row without hours; the governance it
// has is priced and adds up; general terms appear once the account or the
// project's client has some.
func TestStandardSOWLeavesOutEmptySections(t *testing.T) {
	e := mustEnv(t)
	seeded := e.SeedDemo()
	pid := e.Create("projects", map[string]any{"project-name": "Empty"}, "client", "clients", seeded.ClientID)
	for _, term := range e.snapshot(pid).GeneralTerms {
		e.Update("general-terms", term.ID, map[string]any{"active": false})
	}
	s := renderSOW(t, e.snapshot(pid))
	require.Equal(t, []string{"Executive summary", "Assumptions", "Project governance", "Pricing summary", "Payment terms",
		"Change control", "Acceptance"}, headings(s.body, "Heading1"))
	require.Empty(t, headings(s.body, "Heading2"))
	require.Equal(t, []string{"Activity|Resource|Hours|Amount", "Item|Hours|Amount", "Resource|Hourly rate", "Globex Corporation|Acme Consulting"}, s.check(t))
	require.NotContains(t, s.text, "|Project management|")
	require.Contains(t, s.text, "|Kickoff|Architect|2.00|$500.00")
	require.Contains(t, s.text, "No travel or expenses are expected")
	require.Contains(t, s.text, "invoiced at its completion.")
	require.NotContains(t, s.text, "each phase")
	for _, p := range paraRE.FindAllString(string(s.body), -1) {
		if !strings.Contains(p, "<w:pStyle") && !strings.Contains(p, "<w:br") { // spacers and page breaks have them
			require.NotEmpty(t, strings.TrimSpace(cellText(p)), "an empty paragraph: %s", p)
		}
	}

	e.Update("clients", seeded.ClientID, map[string]any{"msa-date": "2025-03-01"})
	s = renderSOW(t, e.snapshot(pid))
	require.Contains(t, headings(s.body, "Heading1"), "General terms")
	require.Contains(t, s.text, "master services agreement between Globex Corporation and Acme Consulting dated March 1, 2025")
}

// Ensure the large project's SOW (25 locations, 1,000 services) adds up
// as the demo's does.
func TestStandardSOWLarge(t *testing.T) {
	e := mustEnv(t)
	s := renderSOW(t, e.large())
	s.check(t)
	require.Equal(t, []string{"Executive summary", "Scope of work", "Deliverables", "Locations", "Assumptions",
		"Project governance", "Travel and expense", "Materials", "Pricing summary", "Payment terms", "Change control",
		"Acceptance"}, headings(s.body, "Heading1"))
	require.NotContains(t, s.text, "Payment term: .")
}

// Ensure the Standard SOW converts to PDF and looks right page by page
// (skipped without LibreOffice's soffice and poppler's pdftoppm and
// pdftotext), by a soffice of its own and by the warm converter alike:
// the same text, the same pages. With -update it rewrites the pages a
// person looks at: testdata/standard-sow-page1.png (the cover) and
// testdata/standard-sow-pricing.png (the pricing summary's page).
func TestStandardSOWPDF(t *testing.T) {
	lo := officetest.Cold(t)
	for _, prog := range []string{"pdftoppm", "pdftotext"} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Skipf("%s not installed (Debian: poppler-utils)", prog)
		}
	}
	e := mustEnv(t)
	docx := renderSOW(t, e.demo()).docx
	pdf, err := lo.ToPDF(t.Context(), docx)
	require.NoError(t, err)
	text, pages := checkSOWPDF(t, pdf)
	if *update {
		for name, png := range pages {
			require.NoError(t, os.WriteFile(filepath.Join("testdata", name), png, 0o644))
		}
	}

	pool := officetest.Warm(t, 1)
	pdf, err = pool.ToPDF(t.Context(), docx)
	require.NoError(t, err)
	warm, _ := pool.Counts()
	require.Equal(t, int64(1), warm)
	warmText, warmPages := checkSOWPDF(t, pdf)
	require.Equal(t, text, warmText, "the warm converter's PDF reads the same")
	require.Equal(t, pages, warmPages, "the warm converter's pages look the same")
}

// checkSOWPDF checks the demo SOW's PDF and returns its text and, as PNG
// by file name, its cover and the page of its pricing summary.
func checkSOWPDF(t *testing.T, pdf []byte) (string, map[string][]byte) {
	t.Helper()
	require.True(t, strings.HasPrefix(string(pdf), "%PDF"))
	dir := t.TempDir()
	pdfPath := filepath.Join(dir, "sow.pdf")
	require.NoError(t, os.WriteFile(pdfPath, pdf, 0o644))
	txt, err := exec.Command("pdftotext", "-layout", pdfPath, "-").Output()
	require.NoError(t, err)
	for _, want := range []string{demodata.ProjectName, "Statement of Work", "$10,794.25", "Page 2 of", "Change control", "Warranty"} {
		require.Contains(t, string(txt), want)
	}
	pricingPage := 0
	for i, page := range strings.Split(string(txt), "\f") { // pdftotext ends each page with a form feed
		if strings.Contains(page, "Pricing summary") {
			pricingPage = i + 1
		}
	}
	require.NotZero(t, pricingPage)
	pages := map[string][]byte{}
	for name, page := range map[string]int{"standard-sow-page1.png": 1, "standard-sow-pricing.png": pricingPage} {
		n := strconv.Itoa(page)
		out := filepath.Join(dir, strings.TrimSuffix(name, ".png"))
		require.NoError(t, exec.Command("pdftoppm", "-r", "60", "-png", "-singlefile", "-f", n, "-l", n, pdfPath, out).Run())
		b, err := os.ReadFile(out + ".png")
		require.NoError(t, err)
		pages[name] = b
	}
	return string(txt), pages
}
