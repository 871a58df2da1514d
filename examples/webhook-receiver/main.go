// Command webhook-receiver is a minimal receiver of ScopeKit webhooks: it
// verifies each delivery's Standard Webhooks signature, ignores
// redeliveries of an event it has already handled (by webhook-id), and
// prints the status change. See docs/webhooks.md.
//
//	WEBHOOK_SECRET=whsec_... go run ./examples/webhook-receiver -addr 127.0.0.1:9000
package main

import (
	"encoding/json"
	"flag"
	"io"
	"log"
	"net/http"
	"os"
	"sync"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:9000", "listen `host:port`")
	flag.Parse()
	wh, err := standardwebhooks.NewWebhook(os.Getenv("WEBHOOK_SECRET")) // the secret of the create response
	if err != nil || os.Getenv("WEBHOOK_SECRET") == "" {
		log.Fatal("set WEBHOOK_SECRET to the subscription's secret (whsec_...)")
	}
	var mu sync.Mutex
	seen := map[string]bool{} // a real receiver keeps this in its database

	http.HandleFunc("POST /hooks", func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, "cannot read body", http.StatusBadRequest)
			return
		}
		// Verify checks the HMAC of id.timestamp.body and that the
		// timestamp is within five minutes; verify the raw bytes, before
		// any parsing.
		if err := wh.Verify(body, r.Header); err != nil {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		id := r.Header.Get("webhook-id") // the event id: the same on every retry
		mu.Lock()
		dup := seen[id]
		seen[id] = true
		mu.Unlock()
		if dup {
			w.WriteHeader(http.StatusNoContent) // already handled: acknowledge, do nothing
			return
		}
		var ev struct {
			Data struct {
				ID         string `json:"id"`
				Attributes struct {
					EventType string `json:"event-type"`
					OldStatus string `json:"old-status"`
					NewStatus string `json:"new-status"`
				} `json:"attributes"`
				Relationships map[string]struct {
					Data *struct{ Type, ID string } `json:"data"`
				} `json:"relationships"`
			} `json:"data"`
		}
		if err := json.Unmarshal(body, &ev); err != nil {
			http.Error(w, "bad body", http.StatusBadRequest)
			return
		}
		a := ev.Data.Attributes
		subject := ev.Data.Relationships["subject"].Data
		log.Printf("event %s: %s %s/%s %s -> %s", id, a.EventType, subject.Type, subject.ID, a.OldStatus, a.NewStatus)
		// Answer quickly (within 15 s); do slow work after answering.
		w.WriteHeader(http.StatusNoContent)
	})
	log.Printf("listening on http://%s/hooks", *addr)
	log.Fatal(http.ListenAndServe(*addr, nil))
}
