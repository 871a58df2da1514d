package httpadapter_test

import (
	"bufio"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/scopekit/scopekit/httpadapter"
	"github.com/scopekit/scopekit/internal/jsonapitest"
	"github.com/scopekit/scopekit/mcpadapter"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Short limits, so that the slow-client tests take a second or two.
var testLimits = httpadapter.Limits{ReadHeaderTimeout: 300 * time.Millisecond, BodyTimeout: 500 * time.Millisecond,
	IdleTimeout: 2 * time.Second, MaxHeaderBytes: 4 << 10}

// limitedServer serves e's API on a real listener the way the example
// server does: HTTPServer with testLimits on a WrapListener.
func limitedServer(t *testing.T, e *testEnv) string {
	m := &mcpadapter.Server{Svc: e.svc, Auth: e.auth, Logger: slog.New(slog.DiscardHandler)}
	s := &httpadapter.Server{Svc: e.svc, Auth: e.auth, Logger: slog.New(slog.DiscardHandler), Limits: testLimits,
		Mounts: map[string]http.Handler{mcpadapter.Path: m.HTTPHandler()}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := s.HTTPServer(s.Handler())
	go func() { _ = srv.Serve(httpadapter.WrapListener(ln)) }()
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// rawResponse reads what the server sends until it closes the connection
// (or the deadline), and how long that took.
func rawResponse(t *testing.T, c net.Conn, start time.Time) (*http.Response, []byte, time.Duration) {
	t.Helper()
	require.NoError(t, c.SetReadDeadline(time.Now().Add(5*time.Second)))
	all, err := io.ReadAll(c)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("the server kept the connection open for 5 s (read %q)", all)
	}
	took := time.Since(start)
	if len(all) == 0 {
		return nil, nil, took
	}
	res, err := http.ReadResponse(bufio.NewReader(strings.NewReader(string(all))), nil)
	require.NoError(t, err, "%q", all)
	body, _ := io.ReadAll(res.Body)
	return res, body, took
}

// Ensure a client that sends its headers or its body too slowly is
// answered (or dropped) and its connection freed within the configured
// limits: the probe held connections past 150 s with one byte every 2 s.
func TestSlowClientsAreCutOff(t *testing.T) {
	e := mustEnv(t)
	tok := e.admin()
	addr := limitedServer(t, e)

	t.Run("slow headers", func(t *testing.T) {
		c, err := net.Dial("tcp", addr)
		require.NoError(t, err)
		defer c.Close()
		start := time.Now()
		_, err = io.WriteString(c, "POST /oauth/token HTTP/1.1\r\nHost: x\r\n")
		require.NoError(t, err)
		go func() { // one header byte every 100 ms, forever
			for range 100 {
				time.Sleep(100 * time.Millisecond)
				if _, err := io.WriteString(c, "X"); err != nil {
					return
				}
			}
		}()
		res, body, took := rawResponse(t, c, start)
		if res != nil { // net/http either hangs up or refuses the partial line
			assert.Equal(t, http.StatusBadRequest, res.StatusCode)
			jsonapitest.Check(t, body)
		}
		assert.Less(t, took, testLimits.ReadHeaderTimeout+time.Second, "connection held %s", took)
	})

	tpl := e.create("/acme/v1/document-templates", tok, "document-templates", `{"name":"Slow"}`)
	for _, tc := range []struct{ name, head string }{
		{"slow MCP request", "POST /mcp HTTP/1.1\r\nHost: " + addr + "\r\nAuthorization: Bearer " + tok +
			"\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 100000\r\n\r\n"},
		{"slow template upload", "PUT /acme/v1/document-templates/" + tpl + "/file HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + tok +
			"\r\nContent-Type: " + scoping.ContentTypeDOCX + "\r\nContent-Length: 100000\r\n\r\n"},
		{"slow JSON:API body", "POST /v2/clients HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + tok +
			"\r\nContent-Type: application/vnd.api+json\r\nContent-Length: 100000\r\n\r\n"},
		{"slow token form", "POST /oauth/token HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100000\r\n\r\n"},
		{"slow chunked body", "POST /v2/clients HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + tok +
			"\r\nContent-Type: application/vnd.api+json\r\nTransfer-Encoding: chunked\r\n\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := net.Dial("tcp", addr)
			require.NoError(t, err)
			defer c.Close()
			start := time.Now()
			_, err = io.WriteString(c, tc.head)
			require.NoError(t, err)
			go func() {
				for range 100 {
					time.Sleep(100 * time.Millisecond)
					chunk := "{"
					if strings.Contains(tc.head, "chunked") {
						chunk = "1\r\n{\r\n"
					}
					if _, err := io.WriteString(c, chunk); err != nil {
						return
					}
				}
			}()
			res, body, took := rawResponse(t, c, start)
			require.NotNil(t, res, "no answer")
			assert.Equal(t, http.StatusRequestTimeout, res.StatusCode, "%s", body)
			assert.Less(t, took, testLimits.BodyTimeout+time.Second, "connection held %s", took)
			if strings.HasPrefix(res.Header.Get("Content-Type"), "application/vnd.api+json") {
				jsonapitest.Check(t, body)
				assert.Contains(t, string(body), `"status":"408"`)
				assert.Contains(t, string(body), `"code":"request_timeout"`)
			} else if strings.Contains(tc.head, "/mcp") {
				assert.Equal(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"the request body was not received in time"}}`,
					string(body), "the MCP endpoint answers a JSON-RPC error")
			} else {
				assert.Contains(t, string(body), `"invalid_request"`, "the token endpoint answers in OAuth's format")
			}
		})
	}

	t.Run("a fast request on the same server is unaffected", func(t *testing.T) {
		req, err := http.NewRequest(http.MethodPost, "http://"+addr+"/v2/clients", strings.NewReader(doc("clients", "", `{"name":"Fast"}`)))
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Content-Type", "application/vnd.api+json")
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		res.Body.Close()
		assert.Equal(t, http.StatusCreated, res.StatusCode)
	})
}

// Ensure net/http's own refusals are JSON:API error documents: headers
// over the limit (431) and a malformed request (400) used to be
// text/plain.
func TestNetHTTPRefusalsAreJSONAPI(t *testing.T) {
	e := mustEnv(t)
	addr := limitedServer(t, e)
	for _, tc := range []struct {
		name, request string
		status        int
		code          string
	}{
		{"headers over the limit", "GET /v2/clients HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("b", 3*testLimits.MaxHeaderBytes) + "\r\n\r\n", 431, "headers_too_large"},
		{"malformed header line", "GET /v2/clients HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n", 400, "bad_request"},
		{"missing Host", "GET /v2/clients HTTP/1.1\r\n\r\n", 400, "bad_request"},
		{"bad request line", "GET\r\n\r\n", 400, "bad_request"},
		{"unknown transfer encoding", "POST /v2/clients HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: rot13\r\n\r\n", 501, "bad_request"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := net.Dial("tcp", addr)
			require.NoError(t, err)
			defer c.Close()
			start := time.Now()
			_, _ = io.WriteString(c, tc.request)
			res, body, _ := rawResponse(t, c, start)
			require.NotNil(t, res)
			assert.Equal(t, tc.status, res.StatusCode)
			assert.Equal(t, "application/vnd.api+json", res.Header.Get("Content-Type"), "%s", body)
			jsonapitest.Check(t, body)
			var doc struct {
				Errors []struct{ Status, Title, Detail, Code string }
			}
			require.NoError(t, json.Unmarshal(body, &doc), "%s", body)
			require.Len(t, doc.Errors, 1)
			assert.Equal(t, http.StatusText(tc.status), doc.Errors[0].Title)
			assert.NotEmpty(t, doc.Errors[0].Detail)
			assert.Equal(t, tc.code, doc.Errors[0].Code)
		})
	}
}
