package httpadapter_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/scopekit/scopekit/httpadapter"
	"github.com/scopekit/scopekit/internal/docxtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Ensure the hostile templates an attacker would upload are answered
// quickly, through the real handler: paragraphs nested 100,000 deep and
// 60 MiB of whitespace are ordinary templates, validated in linear time
// and bounded memory (documents' TestWhitespaceMemory measures it); zip
// entries that could write outside a folder and a DOCTYPE are a 422 naming
// them, and nothing is stored.
func TestTemplateUploadSafety(t *testing.T) {
	e := mustEnv(t)
	admin := e.admin()
	first := docxtest.Build("SOW for {project.project_name}")
	id := e.newTemplate(admin, "Probe", first)
	fileURL := "/acme/v1/document-templates/" + id + "/file"
	core := `<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE cp:coreProperties [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]>` +
		`<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties">&b;</cp:coreProperties>`
	for _, tc := range []struct {
		name   string
		file   []byte
		status int
		detail string
	}{
		{"paragraphs nested 100,000 deep", docxtest.NestedParagraphs(100_000, ""), http.StatusOK, ""},
		{"60 MiB of whitespace", docxtest.Whitespace(60<<20, "body"), http.StatusOK, ""},
		{"zip entry ../../x", docxtest.WithEntry("x", "../../x", "x"), http.StatusUnprocessableEntity,
			`the template's zip entry "../../x" has an unsafe name (a .. segment)`},
		{"zip entry /tmp/x", docxtest.WithEntry("x", "/tmp/x", "x"), http.StatusUnprocessableEntity,
			`the template's zip entry "/tmp/x" has an unsafe name (an absolute path)`},
		{`zip entry word\..\x`, docxtest.WithEntry("x", `word\..\x`, "x"), http.StatusUnprocessableEntity,
			`the template's zip entry "word\\..\\x" has an unsafe name (a backslash)`},
		{"a DOCTYPE in docProps/core.xml", docxtest.WithEntry("x", "docProps/core.xml", core), http.StatusUnprocessableEntity,
			"the template's docProps/core.xml has a DOCTYPE declaration; a template may not have one"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := e.get("/acme/v1/document-templates/"+id, admin).attr("sha256")
			start := time.Now()
			r := e.upload(fileURL, admin, tc.file)
			took := time.Since(start)
			t.Logf("%d KiB uploaded, answered %d in %v", len(tc.file)>>10, r.Status, took)
			assert.Less(t, took, 10*time.Second)
			if tc.status == http.StatusOK {
				require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
				sum := sha256.Sum256(tc.file)
				assert.Equal(t, hex.EncodeToString(sum[:]), r.attr("sha256"))
				return
			}
			er := assertError(t, r, tc.status, "")
			assert.Equal(t, tc.detail, er["detail"])
			assert.Equal(t, before, e.get("/acme/v1/document-templates/"+id, admin).attr("sha256"), "nothing stored")
		})
	}
}

// Ensure an upload whose request runs out of time stops validating: the
// 504 goes out at the deadline, and the handler (whose end the access log
// records) returns soon after instead of validating on for seconds.
func TestTemplateUploadStopsAtDeadline(t *testing.T) {
	e := mustEnv(t)
	admin := e.admin()
	id := e.newTemplate(admin, "Slow", docxtest.Build("x"))
	var log oauthSyncBuffer
	s := &httpadapter.Server{Svc: e.svc, Auth: e.auth, Timeout: 50 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(&log, nil))}
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()

	// every level a loop and a value: seconds of validation, uncanceled
	slow := docxtest.NestedParagraphs(99_000, "{#phases}{name}{/phases}")
	r := e.newRequest(srv.URL, http.MethodPut, "/acme/v1/document-templates/"+id+"/file", admin, "")
	r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(slow)), int64(len(slow))
	r.Header.Set("Content-Type", "application/vnd.openxmlformats-officedocument.wordprocessingml.document")
	assertError(t, e.send(r), http.StatusGatewayTimeout, "")
	var ms float64
	require.Eventually(t, func() bool {
		m := regexp.MustCompile(`method=PUT \S+ status=504 duration_ms=([0-9.]+)`).FindStringSubmatch(log.String())
		if m != nil {
			ms, _ = strconv.ParseFloat(m[1], 64)
		}
		return m != nil
	}, 10*time.Second, 10*time.Millisecond, "the upload's handler did not return")
	t.Logf("the handler returned %.0f ms after the request began", ms)
	assert.Less(t, ms, 1000.0, "validation went on after the deadline")
}
