package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/scopekit/scopekit/app"
	"github.com/scopekit/scopekit/client"
)

// Serve the whole service (the API and its reference, the login pages,
// document templates and generation, webhooks, MCP for AI assistants, the
// workspace) over a bbolt file, with the demo account on the first
// start: New, Run and Close are all an embedding program needs (the
// README's "Using the library" shows the block from New to Serving). The
// rest uses the service as the demo's service account would.
func Example() {
	dir, err := os.MkdirTemp("", "scopekit")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	events := webhookReceiver() // where the webhooks go, below
	defer events.Close()
	ctx, stop := context.WithCancel(context.Background())
	defer stop()

	a, err := app.New(ctx, app.Config{
		DataFile:            filepath.Join(dir, "scopekit.db"), // its secret key is made beside it: scopekit.db.key
		Addr:                "127.0.0.1:0",                     // any free port: a.BaseURL() names it
		WebhookAllowPrivate: true,                              // webhooks to loopback (the example's receiver)
	})
	if err != nil {
		log.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }() // serves until ctx ends, then shuts down in order
	<-a.Serving()

	use(ctx, a.BaseURL(), events.URL, events.Seen)

	stop() // as SIGTERM would: Run stops accepting, finishes what is in flight
	if err := <-done; err != nil {
		log.Fatal(err)
	}
	if err := a.Close(); err != nil { // the store, the PDF converter's processes
		log.Fatal(err)
	}
	// Output:
	// projects: Globex firewall refresh, 10794.25 USD
	// document: finished, Globex firewall refresh - SOW.docx
	// webhook: document_status_changed to finished
	// MCP: scopekit
	// workspace: 200 OK
	// API reference: 200 OK
}

// use reads the demo's project, generates its statement of work from the
// built-in template with a webhook subscription told of it, and opens MCP,
// the workspace and the API reference.
func use(ctx context.Context, base, receiver string, seen <-chan string) {
	c := client.NewClientCredentials(base, app.DemoAccount().BotClientID, app.DemoAccount().BotSecret)
	for p, err := range c.ListProjects(ctx, nil) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("projects: %s, %s %s\n", p.ProjectName, p.ContractRevenue, p.Currency)
	}
	if _, err := c.CreateWebhookSubscription(ctx, "document_status_changed", receiver, "the example's receiver"); err != nil {
		log.Fatal(err)
	}
	var template string
	for t, err := range client.List[client.Resource](ctx, c, "/demo/v1/document-templates", url.Values{"filter[name]": {"Standard SOW"}}) {
		if err != nil {
			log.Fatal(err)
		}
		template = t.ID
	}
	doc, err := c.CreateProjectDocument(ctx, "1", client.DocumentSOW, template, false)
	if err == nil {
		doc, err = c.WaitForDocument(ctx, doc.ID, 0)
	}
	if err != nil {
		log.Fatal(err)
	}
	file, err := c.DownloadDocument(ctx, doc.ID, "")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("document: %s, %s\n", doc.Status, file.Filename)
	for e := range seen {
		if strings.HasSuffix(e, " to finished") {
			fmt.Println("webhook:", e)
			break
		}
	}

	token := accessToken(base)
	rpc := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},` +
		`"clientInfo":{"name":"example","version":"1"}}}`
	req, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(rpc))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	var answer struct {
		Result struct {
			ServerInfo struct{ Name string } `json:"serverInfo"`
		} `json:"result"`
	}
	decode(req, &answer)
	fmt.Println("MCP:", answer.Result.ServerInfo.Name)
	for _, page := range []struct{ name, path string }{{"workspace", "/app/"}, {"API reference", "/"}} {
		res, err := http.Get(base + page.path)
		if err != nil {
			log.Fatal(err)
		}
		res.Body.Close()
		fmt.Printf("%s: %s\n", page.name, res.Status)
	}
}

// receiver is a webhook destination: what it was told, as "event-type to
// new-status".
type receiver struct {
	*httptest.Server
	URL  string
	Seen chan string
}

func webhookReceiver() *receiver {
	r := &receiver{Seen: make(chan string, 16)}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var event struct {
			Data struct {
				Attributes map[string]any `json:"attributes"`
			} `json:"data"`
		}
		if json.NewDecoder(req.Body).Decode(&event) == nil {
			at := event.Data.Attributes
			select {
			case r.Seen <- fmt.Sprintf("%v to %v", at["event-type"], at["new-status"]):
			default:
			}
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	r.Server, r.URL = srv, srv.URL+"/hooks"
	return r
}

// accessToken is a token of the demo's service account.
func accessToken(base string) string {
	demo := app.DemoAccount()
	res, err := http.PostForm(base+"/oauth/token", url.Values{"grant_type": {"client_credentials"},
		"client_id": {demo.BotClientID}, "client_secret": {demo.BotSecret}})
	if err != nil {
		log.Fatal(err)
	}
	defer res.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(res.Body).Decode(&tok); err != nil {
		log.Fatal(err)
	}
	return tok.AccessToken
}

func decode(req *http.Request, v any) {
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		log.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if err := json.Unmarshal(b, v); err != nil {
		log.Fatalf("%s: %s", err, b)
	}
}
