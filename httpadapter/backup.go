package httpadapter

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"io"
	"net/http"
	"time"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/auth"
)

// BackupPath is where a program mounts BackupHandler (Server.Mounts).
const BackupPath = "/v1/admin/backup"

// Backuper writes a consistent copy of the whole database to w and returns
// its length (boltstore.DB.Backup).
type Backuper interface {
	Backup(ctx context.Context, w io.Writer) (int64, error)
}

// backupWriteTimeout bounds each write of a backup to the client: a client
// that stops reading would otherwise hold the copy's read transaction, and
// the pages it keeps, for as long as TCP lets it.
const backupWriteTimeout = 30 * time.Second

// BackupHandler serves GET BackupPath: a consistent copy of the whole
// database, streamed as a file, to the holder of the operator token only
// ("Authorization: Bearer <token>"). A backup holds every account's data,
// so no account's token or role may download it; the token belongs to
// whoever runs the server. The handler keeps only the token's SHA-256
// digest and compares digests in constant time. Without a token the answer
// is 401, with another token (an account's OAuth token included) 403.
//
// The copy is not bound by the request timeout: it streams for as long
// as the client reads, each write bounded by backupWriteTimeout. If the
// copy fails midway the connection is closed before the end of the
// chunked body, so that the client sees a cut transfer, never a short
// file that looks whole.
func BackupHandler(b Backuper, token string) http.Handler {
	return &backupHandler{b: b, digest: sha256.Sum256([]byte(token))}
}

type backupHandler struct {
	b      Backuper
	digest [sha256.Size]byte
}

func (h *backupHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	const allow = "GET, HEAD, OPTIONS"
	switch r.Method {
	case http.MethodGet, http.MethodHead:
	case http.MethodOptions:
		w.Header().Set("Allow", allow)
		w.WriteHeader(http.StatusNoContent)
		return
	default:
		w.Header().Set("Allow", allow)
		writeError(w, r, methodNotAllowed(r))
		return
	}
	given, ok := auth.BearerToken(r.Header.Get("Authorization"))
	if !ok {
		w.Header().Set("WWW-Authenticate", `Bearer realm="scopekit-admin"`)
		writeError(w, r, scopekit.Errorf(scopekit.EUNAUTHORIZED, "missing bearer token"))
		return
	}
	if sum := sha256.Sum256([]byte(given)); subtle.ConstantTimeCompare(sum[:], h.digest[:]) != 1 {
		writeError(w, r, scopekit.Errorf(scopekit.EFORBIDDEN,
			"a backup is downloaded with the server's operator token (-admin-token), never with an account's token"))
		return
	}

	hd := w.Header()
	hd.Set("Content-Type", "application/octet-stream")
	hd.Set("Content-Disposition", contentDisposition("scopekit-backup-"+time.Now().UTC().Format("20060102T150405Z")+".db"))
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Content-Type-Options", "nosniff")
	if r.Method == http.MethodHead {
		w.WriteHeader(http.StatusOK)
		return
	}
	rc := http.NewResponseController(w)
	out := &deadlineWriter{w: w, rc: rc}
	start := time.Now()
	// the copy outlives the request timeout; a client that goes away
	// fails its next write
	n, err := h.b.Backup(context.WithoutCancel(r.Context()), out)
	log := logger(r)
	if err != nil {
		log.Error("backup download failed", "request_id", requestID(r), "bytes", n, "err", err)
		if !out.wrote {
			hd.Del("Content-Disposition")
			writeError(w, r, err)
			return
		}
		// a deadline in the past fails the final chunk: net/http closes
		// the connection instead of ending the body
		_ = rc.SetWriteDeadline(time.Unix(1, 0))
		return
	}
	_ = rc.SetWriteDeadline(time.Time{}) // the connection may serve further requests
	log.Info("backup downloaded", "request_id", requestID(r), "bytes", n, "duration_ms", time.Since(start).Milliseconds())
}

// deadlineWriter gives each write backupWriteTimeout to reach the client.
type deadlineWriter struct {
	w     io.Writer
	rc    *http.ResponseController
	wrote bool
}

func (d *deadlineWriter) Write(p []byte) (int, error) {
	_ = d.rc.SetWriteDeadline(time.Now().Add(backupWriteTimeout)) // unsupported: unbounded, as any response
	d.wrote = true
	return d.w.Write(p)
}
