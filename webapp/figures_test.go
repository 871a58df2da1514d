package webapp_test

import (
	"encoding/json"
	"html"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"
)

var (
	figureCell = regexp.MustCompile(`data-figure="([^"]+)">([^<]*)<`)
	marginCell = regexp.MustCompile(`data-margin="([^"]+)">([^<]*)<`)
	lineCell   = regexp.MustCompile(`data-line="([a-z-]+)/(\d+)" data-line-figure="([^"]+)">([^<]*)<`)
)

// at returns the value at a dotted path of the pricing attributes
// (array items by index; the resources table's rows then its total).
func at(t *testing.T, v any, path string) string {
	t.Helper()
	for _, k := range strings.Split(path, ".") {
		switch x := v.(type) {
		case map[string]any:
			v = x[k]
		case []any:
			i, err := strconv.Atoi(k)
			require.NoError(t, err, path)
			require.Less(t, i, len(x), path)
			v = x[i]
		default:
			t.Fatalf("%s: no %s", path, k)
		}
	}
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	}
	t.Fatalf("%s is %T", path, v)
	return ""
}

// requireFiguresMatch checks every figure a page shows against the
// pricing endpoint's answer, to the digit, and returns how many it
// checked.
func requireFiguresMatch(t *testing.T, body string, priced map[string]any) int {
	t.Helper()
	n := 0
	for _, m := range figureCell.FindAllStringSubmatch(body, -1) {
		shown := strings.ReplaceAll(strings.TrimSpace(html.UnescapeString(m[2])), ",", "")
		require.Equal(t, at(t, priced, m[1]), shown, "figure %s", m[1])
		n++
	}
	for _, m := range marginCell.FindAllStringSubmatch(body, -1) {
		ratio, err := decimal.NewFromString(at(t, priced, m[1]))
		require.NoError(t, err)
		require.Equal(t, ratio.Shift(2).StringFixed(2)+" %", strings.TrimSpace(m[2]), "margin %s", m[1])
		n++
	}
	return n
}

// Ensure every figure of the project page's header, pricing panel and
// pricing tab, and of the list, is the pricing endpoint's to the cent,
// before and after the scope changes; and each line's figures are those
// the API serves for the line.
func TestFiguresArePricingEndpoints(t *testing.T) {
	e := newEnv(t)
	b := e.browser()
	b.signIn("acme", "ada@acme.test")
	pid := e.seeded["acme"].ProjectID
	check := func() {
		priced := e.pricing("acme", pid)
		checked := 0
		for _, tab := range []string{"", "/pricing", "/review", "/documents"} {
			p := b.get("/app/acme/projects/" + pid + tab)
			require.Equal(t, http.StatusOK, p.Status)
			checked += requireFiguresMatch(t, p.Body, priced)
		}
		require.Greater(t, checked, 40)
		list := b.get("/app/acme/projects")
		require.Contains(t, list.Body, `data-figure="contract-revenue">`+group(at(t, priced, "total_contract_value")))
		scope := b.get("/app/acme/projects/" + pid)
		lines := lineCell.FindAllStringSubmatch(scope.Body, -1)
		require.NotEmpty(t, lines)
		for _, m := range lines {
			attrs := e.apiRecord("acme", m[1], m[2])
			got, err := decimal.NewFromString(strings.ReplaceAll(m[4], ",", ""))
			require.NoError(t, err)
			api, err := decimal.NewFromString(attrs[m[3]].(string))
			require.NoError(t, err, "%s %s %s", m[1], m[2], m[3])
			require.True(t, api.Equal(got), "%s %s %s: page %s, API %s", m[1], m[2], m[3], got, api)
		}
	}
	check()
	// a quantity changed in place: the page's figures follow the endpoint's
	scope := b.get("/app/acme/projects/" + pid)
	svc := lineCell.FindStringSubmatch(scope.Body)[2]
	p := b.post("/app/acme/projects/"+pid+"/lines/services/"+svc, formOf("csrf", scope.csrf(t), "quantity", "7"), true)
	require.Equal(t, http.StatusOK, p.Status, p.Body)
	require.Contains(t, p.Body, `id="line-svc-`+svc+`"`)
	require.Contains(t, p.Body, `hx-swap-oob="innerHTML:#panel-box"`)
	require.Greater(t, requireFiguresMatch(t, p.Body, e.pricing("acme", pid)), 10)
	check()
}

// group inserts thousands separators, as the pages do.
func group(s string) string {
	whole, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String() + "." + frac
}
