package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/scopekit/scopekit/internal/ooxml"
	"github.com/stretchr/testify/require"
)

// TestDocumentGenerationSurvivesSIGKILL runs the server binary (built with
// a pause before each rendering), kills it with SIGKILL while the demo
// project's SOW is generating, restarts it on the same file and sees the
// document finish once the killed worker's lease (a short -document-lease)
// has run out; a webhook receiver gets one delivery per status change, the
// re-queue included.
func TestDocumentGenerationSurvivesSIGKILL(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the server binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "scopekit-server")
	out, err := exec.Command("go", "build", "-tags", "scopekit_docdelay", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "%s", out)

	var mu sync.Mutex
	changes := map[string]string{} // webhook-id -> old>new
	rc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var doc struct {
			Data struct {
				Attributes map[string]string
			}
		}
		_ = json.Unmarshal(b, &doc)
		mu.Lock()
		changes[r.Header.Get("webhook-id")] = doc.Data.Attributes["old-status"] + ">" + doc.Data.Attributes["new-status"]
		mu.Unlock()
	}))
	defer rc.Close()

	data := filepath.Join(dir, "scopekit.db")
	addr := freeAddr(t)
	base := "http://" + addr
	start := func() *exec.Cmd {
		return startBinary(t, bin, addr, data, "-webhook-allow-private", "-log-level", "warn", "-document-lease", "2s",
			"-webhook-retry-schedule", "0s"+strings.Repeat(",250ms", 20))
	}
	srv := start()
	tok := passwordToken(t, base)
	_, projects := call(t, http.MethodGet, base+"/v2/projects", tok, "")
	pid := projects["data"].([]any)[0].(map[string]any)["id"].(string)
	_, tmpls := call(t, http.MethodGet, base+"/demo/v1/document-templates?filter[name]=Standard%20SOW", tok, "")
	tid := tmpls["data"].([]any)[0].(map[string]any)["id"].(string)
	st, sub := call(t, http.MethodPost, base+"/v2/webhook-subscriptions", tok,
		`{"data":{"type":"webhook-subscriptions","attributes":{"event-type":"document_status_changed","destination-url":"`+rc.URL+`/hooks"}}}`)
	require.Equal(t, http.StatusCreated, st, "%v", sub)

	st, created := call(t, http.MethodPost, base+"/v2/project-documents", tok, `{"data":{"type":"project-documents",`+
		`"attributes":{"document-type":"sow"},"relationships":{"project":{"data":{"type":"projects","id":"`+pid+`"}},`+
		`"document-template":{"data":{"type":"document-templates","id":"`+tid+`"}}}}}`)
	require.Equal(t, http.StatusAccepted, st, "%v", created)
	id := created["data"].(map[string]any)["id"].(string)
	status := func() string {
		_, d := call(t, http.MethodGet, base+"/v2/project-documents/"+id, tok, "")
		s, _ := d["data"].(map[string]any)["attributes"].(map[string]any)["status"].(string)
		return s
	}
	require.Eventually(t, func() bool { return status() == "generating" }, 10*time.Second, 20*time.Millisecond)
	require.NoError(t, srv.Process.Kill()) // SIGKILL mid-generation
	_ = srv.Wait()

	start()
	require.Eventually(t, func() bool { return status() == "finished" }, 20*time.Second, 50*time.Millisecond,
		"the document left generating by the killed server finishes after the restart")
	req, _ := http.NewRequest(http.MethodGet, base+"/v2/project-documents/"+id+"/download", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode, "%s", body)
	text, _, err := ooxml.Markdown(body)
	require.NoError(t, err)
	require.Contains(t, text, demoProjectName)

	want := []string{">queued", "queued>generating", "generating>queued", "queued>generating", "generating>finished"}
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(changes) == len(want) },
		10*time.Second, 50*time.Millisecond, "one delivery per status change")
	mu.Lock()
	defer mu.Unlock()
	var got []string
	for _, c := range changes {
		got = append(got, c)
	}
	require.ElementsMatch(t, want, got)
}
