package httpadapter

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// Ensure the body deadline is lifted once the body is read: a handler
// that works longer than BodyTimeout after reading its body is not cut
// off (its context stays alive and its answer arrives).
func TestBodyDeadlineLiftedAfterBody(t *testing.T) {
	const d = 200 * time.Millisecond
	srv := httptest.NewServer(withBodyDeadline(d, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		select {
		case <-r.Context().Done():
			http.Error(w, "canceled", http.StatusServiceUnavailable)
			return
		case <-time.After(3 * d):
		}
		_, _ = io.WriteString(w, "done")
	})))
	defer srv.Close()
	for _, method := range []string{http.MethodPost, http.MethodGet} {
		var body io.Reader
		if method == http.MethodPost {
			body = strings.NewReader(`{"data":{}}`)
		}
		req, _ := http.NewRequest(method, srv.URL, body)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK || string(b) != "done" {
			t.Fatalf("%s: %d %s", method, res.StatusCode, b)
		}
	}
}
