package httpadapter_test

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/office/officetest"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Ensure change orders over HTTP: a won project's line edit is 409 (the
// detail points at change orders), a change order's copy is listed with
// filter[change-order] and edited with the same routes, its deltas read
// and its figures agree, and submit, accept, the 409 for a change order
// on an older base, and rebase; a Read Only user reads but cannot act.
func TestChangeOrdersHTTP(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	pid := e.demoProject()
	for _, st := range []string{"approved", "won"} {
		e.patch("/acme/v1/projects/"+pid, tok, "projects", pid, `{"status":"`+st+`"}`)
	}
	own := e.get("/acme/v1/project-services?filter[project]="+pid, tok).list()
	r := e.req(http.MethodPatch, "/acme/v1/project-services/"+own[0]["id"].(string), tok, doc("project-services", own[0]["id"].(string), `{"quantity":"9"}`))
	require.Equal(t, http.StatusConflict, r.Status)
	require.Contains(t, r.firstError()["detail"], "change order")

	// a title refused is one error: too long, not also blank
	r = e.req(http.MethodPost, "/acme/v1/change-orders", tok, doc("change-orders", "", `{"title":"`+strings.Repeat("t", 201)+`"}`, "project", "projects", pid))
	assertError(t, r, http.StatusUnprocessableEntity, "/data/attributes/title")
	require.Len(t, r.errors(), 1, "%s", r.Body)
	require.Contains(t, r.firstError()["detail"], "too long")
	r = e.req(http.MethodPost, "/acme/v1/change-orders", tok, doc("change-orders", "", `{"title":"Wrong type"}`, "project", "services", pid))
	assertError(t, r, http.StatusUnprocessableEntity, "/data/relationships/project")
	require.Contains(t, r.firstError()["detail"], "must name a projects resource, not services")
	r = e.req(http.MethodPost, "/acme/v1/change-orders", tok, doc("change-orders", "", `{"title":" "}`, "project", "projects", pid))
	assertError(t, r, http.StatusUnprocessableEntity, "/data/attributes/title")
	require.Contains(t, r.firstError()["detail"], "can't be blank")

	r = e.req(http.MethodPost, "/acme/v1/change-orders", tok, doc("change-orders", "", `{"title":"Second site","reason":"The client adds a site."}`, "project", "projects", pid))
	require.Equal(t, http.StatusCreated, r.Status, "%s", r.Body)
	co := r.data()["id"].(string)
	other := e.create("/acme/v1/change-orders", tok, "change-orders", `{"title":"Parallel"}`, "project", "projects", pid)
	lines := e.get("/acme/v1/project-services?filter[change-order]="+co, tok).list()
	require.Len(t, lines, len(own))
	line := lines[0]["id"].(string)
	r = e.patch("/acme/v1/project-services/"+line, tok, "project-services", line, `{"quantity":"4"}`)
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Len(t, e.get("/acme/v1/change-orders/"+co+"/project-services", tok).list(), len(own))

	d := e.get("/acme/v1/change-orders/"+co+"/deltas", tok)
	require.Equal(t, http.StatusOK, d.Status, "%s", d.Body)
	require.Equal(t, "change-order-deltas", d.data()["type"])
	cor := e.get("/acme/v1/change-orders/"+co, tok)
	delta := d.attr("total").(map[string]any)["delta"].(map[string]any)
	require.Equal(t, cor.attr("delta-revenue"), delta["revenue"])
	require.Equal(t, cor.attr("delta-cost"), delta["cost"])

	readOnly := e.token("acme", "ro@acme.test", "Read Only")
	require.Equal(t, http.StatusOK, e.get("/acme/v1/change-orders/"+co+"/deltas", readOnly).Status)
	require.Equal(t, http.StatusForbidden, e.req(http.MethodPost, "/acme/v1/change-orders/"+co+"/submit", readOnly, "").Status)

	for _, id := range []string{co, other} {
		r = e.req(http.MethodPost, "/acme/v1/change-orders/"+id+"/submit", tok, "")
		require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
		require.Equal(t, "approved", r.attr("status"))
	}
	r = e.req(http.MethodPost, "/acme/v1/change-orders/"+co+"/accept", tok, "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, "accepted", r.attr("status"))
	require.NotEmpty(t, r.rel("accepted-version"))
	require.Equal(t, cor.attr("contract-revenue"), e.get("/acme/v1/projects/"+pid, tok).attr("contract-revenue"))

	r = e.req(http.MethodPost, "/acme/v1/change-orders/"+other+"/accept", tok, "")
	require.Equal(t, http.StatusConflict, r.Status)
	require.Contains(t, r.firstError()["detail"], "rebase")
	r = e.req(http.MethodPost, "/acme/v1/change-orders/"+other+"/rebase", tok, "")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.Equal(t, "draft", r.attr("status"))
	require.Equal(t, http.StatusConflict, e.req(http.MethodDelete, "/acme/v1/change-orders/"+co, tok, "").Status, "an accepted change order stays")
	require.Equal(t, http.StatusNoContent, e.req(http.MethodDelete, "/acme/v1/change-orders/"+other, tok, "").Status)
	require.Empty(t, e.get("/acme/v1/project-services?filter[change-order]="+other, tok).list(), "its copy goes with it")
}

// pdfText is the text of a PDF (poppler's pdftotext, layout kept).
func pdfText(t *testing.T, pdf []byte) string {
	t.Helper()
	dir := t.TempDir()
	in := filepath.Join(dir, "doc.pdf")
	require.NoError(t, os.WriteFile(in, pdf, 0o600))
	out, err := exec.Command("pdftotext", "-layout", in, "-").Output()
	require.NoError(t, err)
	return string(out)
}

// keepFile writes a generated file into $SCOPEKIT_KEEP_DOCS, when set, to
// be looked at.
func keepFile(t *testing.T, name string, b []byte) {
	if dir := os.Getenv("SCOPEKIT_KEEP_DOCS"); dir != "" {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o644))
	}
}

// withLibreOffice restarts the test API with LibreOffice as its PDF
// converter, or skips the test without it.
func (e *testEnv) withLibreOffice() {
	e.t.Helper()
	for _, prog := range []string{"soffice", "pdftotext"} {
		if _, err := exec.LookPath(prog); err != nil {
			e.t.Skipf("%s is not installed (.ci/run installs it)", prog)
		}
	}
	e.converter = officetest.Cold(e.t)
	e.restart()
}

// Ensure the built-in Standard change order for the demo: a change order
// that adds a service, changes a quantity and removes an expense renders
// as a DOCX and a PDF whose every figure is the change order's (before,
// after and the change, line by line and for the contract), named after
// the change order.
func TestChangeOrderDocument(t *testing.T) {
	e := mustEnv(t)
	e.withLibreOffice()
	tok := e.admin()
	pid := e.demoProject()
	for _, st := range []string{"approved", "won"} {
		e.patch("/acme/v1/projects/"+pid, tok, "projects", pid, `{"status":"`+st+`"}`)
	}
	co := e.create("/acme/v1/change-orders", tok, "change-orders", `{"title":"Second site","reason":"Globex opens a second office and adds its firewall."}`, "project", "projects", pid)
	lines := e.get("/acme/v1/project-services?filter[change-order]="+co, tok).list()
	for _, l := range lines {
		if l["attributes"].(map[string]any)["name"] == "Firewall deployment" {
			e.patch("/acme/v1/project-services/"+l["id"].(string), tok, "project-services", l["id"].(string), `{"quantity":"2"}`)
		}
	}
	res := e.get("/acme/v1/project-resources?filter[change-order]="+co, tok).list()[0]["id"].(string)
	e.create("/acme/v1/project-services", tok, "project-services", `{"name":"Second site survey","unit-hours":"6"}`,
		"change-order", "change-orders", co, "project-resource", "project-resources", res)
	exp := e.get("/acme/v1/project-expenses?filter[change-order]="+co, tok).list()[0]["id"].(string)
	require.Equal(t, http.StatusNoContent, e.req(http.MethodDelete, "/acme/v1/project-expenses/"+exp, tok, "").Status)
	cor := e.get("/acme/v1/change-orders/"+co, tok)

	tmpl := e.get("/acme/v1/document-templates?filter[name]=Standard%20change%20order", tok).list()
	require.Len(t, tmpl, 1)
	r := e.req(http.MethodPost, "/acme/v1/project-documents", tok, doc("project-documents", "", `{"document-type":"change_order"}`,
		"project", "projects", pid, "document-template", "document-templates", tmpl[0]["id"].(string)))
	assertError(t, r, http.StatusUnprocessableEntity, "/data/relationships/change-order")
	id := e.generate("/acme/v1", tok, `{"document-type":"change_order","generate-pdf":true}`, "project", "projects", pid,
		"document-template", "document-templates", tmpl[0]["id"].(string), "change-order", "change-orders", co)
	d := e.await("/acme/v1", tok, id)
	require.Equal(t, "finished", d.attr("status"), "%s", d.Body)
	require.Equal(t, "Globex firewall refresh - Change order 1.docx", d.attr("filename"))
	require.Equal(t, cor.rel("base-version"), d.rel("project-version"), "a change order's document records its base version")
	pdf := e.download("/acme/v1/project-documents/"+id+"/download?format=pdf", tok)
	require.Equal(t, http.StatusOK, pdf.Status)
	keepFile(t, "change-order.pdf", pdf.Body)
	text := pdfText(t, pdf.Body)
	money := func(s string) string {
		v := decimal.RequireFromString(s)
		f := message.NewPrinter(language.AmericanEnglish).Sprintf("$%.2f", v.Abs().InexactFloat64())
		if v.IsNegative() {
			return "-" + f
		}
		return f
	}
	for _, want := range []string{"Change order 1", "Second site", "Globex opens a second office", "Service: Second site survey",
		"Service: Firewall deployment", "quantity 1 → 2", "Expense: Airfare", "Removed",
		money(cor.attr("contract-revenue").(string)), money(cor.attr("delta-revenue").(string)),
		"New contract value", "Contract value before this change"} {
		require.Contains(t, text, want, "the change order's PDF:\n%s", text)
	}
	require.Regexp(t, `New contract value\s+[\d.,]+\s+`+regexp.QuoteMeta(money(cor.attr("contract-revenue").(string))), text)
}
