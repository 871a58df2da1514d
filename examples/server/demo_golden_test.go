package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
)

// update rewrites the golden files instead of comparing with them:
//
//	go test -run Golden ./examples/server/ -update
var update = flag.Bool("update", false, "rewrite the golden files in testdata")

const demoGoldenFile = "testdata/demo-answers.golden"

// Ensure the server's answers for the demo account stay byte-identical
// (after normalizing what differs between runs): every served type's list,
// show with every include and related routes on v1 and v2, the project's
// figures, the references, some errors and the README tour's writes. A
// refactor that must not change behaviour keeps this test green; a change
// meant to alter answers rewrites the golden file with -update and shows
// the difference in review.
func TestDemoAnswersGolden(t *testing.T) {
	s := startServer(t, "", nil)
	recordDemoAnswers(t, s.URL).compare(demoGoldenFile)
}

// recordDemoReads sends the golden reads and refused requests to the
// server at base (on the demo as created at first start) and returns
// their answers.
func recordDemoReads(t *testing.T, base string) *goldenRecorder {
	g := &goldenRecorder{t: t, base: base}

	g.token = g.tokenAnswer(url.Values{"grant_type": {"client_credentials"},
		"client_id": {demoBotClientID}, "client_secret": {demoBotSecret}})
	g.tokenAnswer(url.Values{"grant_type": {"client_credentials"},
		"client_id": {demoBotClientID}, "client_secret": {"wrong"}})

	g.get("/v1/me")
	g.get("/demo/v1/account")
	schema, err := scoping.NewSchema()
	require.NoError(t, err)
	for _, def := range schema.Types() {
		if !def.Served() {
			continue
		}
		g.typeAnswers("/demo/v1", def)
		if def.V2 {
			g.typeAnswers("/v2", def)
		}
	}

	for _, prefix := range []string{"/demo/v1", "/v2"} {
		for _, read := range []string{"pricing", "delivery-rollup", "estimate-vs-actual", "merge-data", "merge-data?version=2"} {
			g.get(prefix + "/projects/1/" + read)
		}
	}

	g.get("/docs/v1/openapi.json")
	g.get("/docs/v2/openapi.json")

	// Errors.
	g.do(http.MethodGet, "/v2/projects", "", "")            // no token
	g.do(http.MethodGet, "/v2/projects", "not-a-token", "") // a bad token
	g.get("/v2/projects/999")                               // missing id
	g.get("/demo/v1/projects/999/pricing")                  // missing project
	g.get("/v2/no-such-type")                               // unknown type
	g.get("/v2/projects?filter[no-such-filter]=x")          // bad filter
	g.get("/v2/projects?include=no-such-relationship")      // bad include
	g.get("/v2/projects?sort=no-such-attribute")            // bad sort
	g.get("/v2/projects?page[size]=-1")                     // bad page
	g.get("/demo/v1/projects/1/merge-data?version=3")       // bad version
	g.get("/other/v1/projects")                             // another account's slug
	g.write(http.MethodPost, "/v2/projects", `{"data":{"type":"projects","attributes":{}}}`)
	g.write(http.MethodPost, "/v2/clients", `{"data":`) // malformed body
	g.do(http.MethodDelete, "/v1/me", g.token, "")      // method not allowed

	return g
}

// recordDemoAnswers sends the golden requests to the server at base: the
// reads of recordDemoReads, then the writes of the README tour and reads
// of what they made.
func recordDemoAnswers(t *testing.T, base string) *goldenRecorder {
	g := recordDemoReads(t, base)
	client := idOf(t, g.write(http.MethodPost, "/v2/clients", `{"data":{"type":"clients","attributes":{"name":"Initech"}}}`))
	project := idOf(t, g.write(http.MethodPost, "/v2/projects", `{"data":{"type":"projects","attributes":{"project-name":"Initech SD-WAN"},
		"relationships":{"client":{"data":{"type":"clients","id":"`+client+`"}}}}}`))
	service := idOf(t, g.write(http.MethodPost, "/v2/project-services", `{"data":{"type":"project-services","attributes":{"quantity":2},
		"relationships":{"project":{"data":{"type":"projects","id":"`+project+`"}},"service":{"data":{"type":"services","id":"1"}}}}}`))
	g.write(http.MethodPost, "/demo/v1/projects/"+project+"/apply-blueprint", `{"data":{"type":"blueprints","id":"1"}}`)
	g.write(http.MethodPatch, "/v2/projects/"+project, `{"data":{"type":"projects","id":"`+project+`","attributes":{"project-name":"Initech SD-WAN rollout"}}}`)
	g.get("/v2/projects?filter[name]=initech&sort=-created-at&page[size]=10")
	g.get("/v2/project-services?filter[project]=" + project + "&include=project-subservices")
	g.get("/demo/v1/project-resources?filter[project]=" + project + "&include=resource")
	g.get("/demo/v1/projects/" + project + "/pricing")
	g.get("/demo/v1/projects/" + project + "/merge-data?version=2")
	g.do(http.MethodDelete, "/v2/project-services/"+service, g.token, "")
	g.get("/v2/projects/" + project + "?include=project-services")
	return g
}

// goldenRecorder sends requests to the server and writes each answer,
// normalized, to out.
type goldenRecorder struct {
	t     *testing.T
	base  string // the server's http://127.0.0.1:port
	token string
	out   bytes.Buffer
}

// goldenBase stands for the listener's address, which changes every run.
const goldenBase = "http://scopekit.test"

// rfc3339 matches the times the server stamps (created-at, updated-at,
// token and document times); they change every run.
var rfc3339 = regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})`)

// printedOn matches merge data's printed_on, the date of the day the
// answer is made (a string in v1, an object of formats in v2).
var printedOn = regexp.MustCompile(`"printed_on":("[^"]*"|\{[^}]*\})`)

// accessToken and tokenCreated match the token endpoint's new token and
// its Unix time; verificationToken the random token of a domain claim.
var (
	accessToken       = regexp.MustCompile(`"access_token":"[^"]*"`)
	tokenCreated      = regexp.MustCompile(`"created_at":\d+`)
	verificationToken = regexp.MustCompile(`"verification-token":"[0-9a-f]*"`)
)

// typeAnswers records the list of def under prefix and, for its first
// record, the show with every relationship included and each related
// route.
func (g *goldenRecorder) typeAnswers(prefix string, def *engine.TypeDef) {
	body := g.get(prefix + "/" + def.Name)
	var doc struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if json.Unmarshal(body, &doc) != nil || len(doc.Data) == 0 {
		return
	}
	one := prefix + "/" + def.Name + "/" + url.PathEscape(doc.Data[0].ID)
	rels := make([]string, len(def.Rels))
	for i, r := range def.Rels {
		rels[i] = r.Name
	}
	if len(rels) == 0 {
		g.get(one)
		return
	}
	g.get(one + "?include=" + strings.Join(rels, ","))
	for _, rel := range rels {
		g.get(one + "/" + rel)
	}
}

// get GETs path with the token and records the answer; it returns the
// raw body.
func (g *goldenRecorder) get(path string) []byte {
	return g.do(http.MethodGet, path, g.token, "")
}

// write sends a JSON:API body with the token and records the answer.
func (g *goldenRecorder) write(method, path, body string) []byte {
	return g.do(method, path, g.token, body)
}

// tokenAnswer POSTs form to the token endpoint, records the answer and
// returns the access token (if any).
func (g *goldenRecorder) tokenAnswer(form url.Values) string {
	g.t.Helper()
	res, err := http.PostForm(g.base+"/oauth/token", form)
	require.NoError(g.t, err)
	body := g.record(http.MethodPost, "/oauth/token "+form.Encode(), res)
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	_ = json.Unmarshal(body, &tok)
	return tok.AccessToken
}

// do sends one request (with tok as bearer token unless "") and records
// its answer.
func (g *goldenRecorder) do(method, path, tok, body string) []byte {
	g.t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, g.base+path, rd)
	require.NoError(g.t, err)
	req.Header.Set("Accept", "application/vnd.api+json")
	if body != "" {
		req.Header.Set("Content-Type", "application/vnd.api+json")
	}
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(g.t, err)
	switch tok {
	case g.token:
	case "":
		path += " (no token)"
	default:
		path += " (token " + tok + ")"
	}
	return g.record(method, path, res)
}

// record writes "### METHOD PATH", the status line with the Content-Type
// (and Location, Allow when set), and the normalized body: JSON and other
// text verbatim, binary bodies as their size and SHA-256. It returns the
// raw body.
func (g *goldenRecorder) record(method, path string, res *http.Response) []byte {
	g.t.Helper()
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(g.t, err)
	fmt.Fprintf(&g.out, "### %s %s\n%d %s", method, path, res.StatusCode, res.Header.Get("Content-Type"))
	for _, h := range []string{"Location", "Allow", "WWW-Authenticate"} {
		if v := res.Header.Get(h); v != "" {
			fmt.Fprintf(&g.out, " %s: %s", h, g.normalize(v))
		}
	}
	g.out.WriteString("\n")
	ct := res.Header.Get("Content-Type")
	if strings.Contains(ct, "json") || strings.HasPrefix(ct, "text/") || len(raw) == 0 {
		g.out.WriteString(g.normalize(string(raw)))
	} else {
		fmt.Fprintf(&g.out, "(%d bytes, sha256 %x)", len(raw), sha256.Sum256(raw))
	}
	g.out.WriteString("\n\n")
	return raw
}

// normalize replaces what changes between runs: the listener's address,
// the tokens, the time stamps and the date of today.
func (g *goldenRecorder) normalize(s string) string {
	s = strings.ReplaceAll(s, g.base, goldenBase)
	if g.token != "" {
		s = strings.ReplaceAll(s, g.token, "<token>")
	}
	s = accessToken.ReplaceAllString(s, `"access_token":"<token>"`)
	s = tokenCreated.ReplaceAllString(s, `"created_at":0`)
	s = verificationToken.ReplaceAllString(s, `"verification-token":"<token>"`)
	s = printedOn.ReplaceAllString(s, `"printed_on":"<today>"`)
	return rfc3339.ReplaceAllString(s, "<time>")
}

// compare checks the recorded answers against the golden file (or rewrites
// it with -update), naming the first request whose answer differs.
func (g *goldenRecorder) compare(path string) {
	g.t.Helper()
	got := g.out.Bytes()
	if *update {
		require.NoError(g.t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(g.t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(g.t, err, "run with -update to create it")
	if diff := difference(want, got); diff != "" {
		g.t.Fatalf("%s: %s\n(go test -run Golden ./examples/server/ -update rewrites the file when the change is intended)", path, diff)
	}
}

// difference names the first line where two recordings differ, with the
// request it answers ("" when they are equal).
func difference(want, got []byte) string {
	if bytes.Equal(want, got) {
		return ""
	}
	wantLines, gotLines := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	request := ""
	for i := 0; i < max(len(wantLines), len(gotLines)); i++ {
		w, gl := line(wantLines, i), line(gotLines, i)
		if strings.HasPrefix(w, "### ") {
			request = w
		}
		if w != gl {
			w, gl = excerpts(w, gl)
			return fmt.Sprintf("line %d differs (request %q):\nwant: %s\ngot:  %s", i+1, request, w, gl)
		}
	}
	return "the bytes differ" // unreachable: equal lines make equal bytes
}

// idOf returns the id of the record a write answered.
func idOf(t *testing.T, body []byte) string {
	t.Helper()
	var doc struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	require.NoError(t, json.Unmarshal(body, &doc), "%s", body)
	require.NotEmpty(t, doc.Data.ID, "%s", body)
	return doc.Data.ID
}

func line(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "<end of file>"
}

// excerpts returns the parts of want and got around their first
// difference, so that a long line (a JSON body) shows where it changed.
func excerpts(want, got string) (string, string) {
	k := 0
	for k < len(want) && k < len(got) && want[k] == got[k] {
		k++
	}
	cut := func(s string) string {
		from, to := max(0, k-200), min(len(s), k+200)
		out := s[from:to]
		if from > 0 {
			out = "..." + out
		}
		if to < len(s) {
			out += "..."
		}
		return out
	}
	return cut(want), cut(got)
}
