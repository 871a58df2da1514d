package httpadapter_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// Ensure the OpenAPI documents are served compressed to a client that
// accepts gzip (and plain to one that does not, or refuses it with q=0),
// the same document either way, and cacheable: an ETag per
// representation, and 304 with no body on If-None-Match naming it (weak
// or strong, in a list, or "*"), 200 with the document for another tag.
func TestOpenAPIDocumentsCompressedAndCacheable(t *testing.T) {
	e := mustEnv(t)
	// the transport must not ask for gzip itself, nor undo it
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	get := func(path string, header ...string) (*http.Response, []byte) {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, e.srv.URL+path, nil)
		require.NoError(t, err)
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		res, err := client.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		body, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		return res, body
	}
	for _, tc := range []struct{ path, accept string }{
		{"/docs/v1/openapi.json", ""},
		{"/docs/v2/openapi.json", ""},
		{"/docs/v1/openapi-3.0.json", ""},
		{"/docs/v2/openapi-3.0.json", ""},
		{"/", "application/json"},
		{"/docs/v2/swagger", "application/json"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			res, plain := get(tc.path, "Accept", tc.accept)
			require.Equal(t, http.StatusOK, res.StatusCode)
			require.Empty(t, res.Header.Get("Content-Encoding"))
			require.Equal(t, "application/json", res.Header.Get("Content-Type"))
			require.Contains(t, res.Header.Get("Vary"), "Accept-Encoding")
			plainTag := res.Header.Get("ETag")
			require.Equal(t, strconv.Itoa(len(plain)), res.Header.Get("Content-Length"))
			if tc.accept == "" {
				head, err := client.Head(e.srv.URL + tc.path)
				require.NoError(t, err)
				head.Body.Close()
				require.EqualValues(t, len(plain), head.ContentLength, "HEAD says the length too")
			}
			require.Regexp(t, `^"[0-9a-f]{32}"$`, plainTag)
			require.Contains(t, string(plain), `"openapi"`)

			for _, enc := range []string{"gzip", "gzip, deflate, br, zstd", "br;q=1.0, gzip;q=0.8", "*"} {
				res, body := get(tc.path, "Accept", tc.accept, "Accept-Encoding", enc)
				require.Equal(t, http.StatusOK, res.StatusCode, enc)
				require.Equal(t, "gzip", res.Header.Get("Content-Encoding"), enc)
				require.Less(t, len(body)*5, len(plain), "%s: compressed to under a fifth", enc)
				zr, err := gzip.NewReader(bytes.NewReader(body))
				require.NoError(t, err)
				unzipped, err := io.ReadAll(zr)
				require.NoError(t, err)
				require.Equal(t, plain, unzipped, "the same document")
				gzTag := res.Header.Get("ETag")
				require.NotEqual(t, plainTag, gzTag, "a strong tag per representation")
				require.NotEmpty(t, gzTag)
			}
			for _, enc := range []string{"identity", "gzip;q=0", "deflate, gzip;q=0.000", "*;q=0", "gzip;q=0, *"} {
				res, body := get(tc.path, "Accept", tc.accept, "Accept-Encoding", enc)
				require.Empty(t, res.Header.Get("Content-Encoding"), enc)
				require.Equal(t, plain, body, enc)
			}

			res, gz := get(tc.path, "Accept", tc.accept, "Accept-Encoding", "gzip")
			gzTag := res.Header.Get("ETag")
			for _, inm := range []string{plainTag, gzTag, "W/" + gzTag, `"other", ` + plainTag, "*"} {
				for _, enc := range []string{"", "gzip"} {
					res, body := get(tc.path, "Accept", tc.accept, "Accept-Encoding", enc, "If-None-Match", inm)
					require.Equal(t, http.StatusNotModified, res.StatusCode, "%s %s", inm, enc)
					require.Empty(t, body)
					require.NotEmpty(t, res.Header.Get("ETag"))
				}
			}
			res, body := get(tc.path, "Accept", tc.accept, "Accept-Encoding", "gzip", "If-None-Match", `"0123456789abcdef0123456789abcdef"`)
			require.Equal(t, http.StatusOK, res.StatusCode)
			require.Equal(t, gz, body)
		})
	}
	// the four documents differ, and so do their tags: one's tag does not
	// revalidate another
	docs := []string{"/docs/v1/openapi.json", "/docs/v2/openapi.json", "/docs/v1/openapi-3.0.json", "/docs/v2/openapi-3.0.json"}
	for _, a := range docs {
		ra, _ := get(a)
		for _, b := range docs {
			if a == b {
				continue
			}
			res, _ := get(b, "If-None-Match", ra.Header.Get("ETag"))
			require.Equal(t, http.StatusOK, res.StatusCode, "%s's tag does not revalidate %s", a, b)
		}
	}
}
