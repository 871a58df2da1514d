package webapp_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/internal/docxtest"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
)

// settingsPage is a page of the settings the screenshots and the
// accessibility check show.
type settingsPage struct{ name, path string }

// settingsState sets acme's settings up as the screenshots show them
// (an approval level with its line-of-business approval, a lenient
// template with problems, an identity provider with a verified and a
// pending domain, an invited person and a service account, a webhook
// subscription with a delivered publication, a second currency and a
// general term) and returns every settings page: each menu entry's, the
// pages of records that show more than a form, and the new-record forms.
func (e *env) settingsState(t *testing.T) []settingsPage {
	t.Helper()
	ctx := context.Background()
	e.approvalLevel("amy@acme.test")
	sys, err := e.svc.SystemActor(ctx, e.accts["acme"])
	require.NoError(t, err)
	ada := e.actor("acme", "ada@acme.test")
	id := func(typ, name string) string {
		t.Helper()
		res, err := e.svc.List(ctx, sys, typ, engine.ListParams{PageSize: 100, PageNumber: 1}, engine.Options{})
		require.NoError(t, err)
		for _, r := range res.Records {
			if r.Str("name") == name || name == "" {
				return r.ID
			}
		}
		t.Fatalf("no %s named %q", typ, name)
		return ""
	}
	lenient := e.create(ada, "document-templates", map[string]string{"name": `"Short SOW"`, "lenient": "true"}, nil)
	_, err = e.svc.UploadTemplateFile(ctx, ada, lenient, "Short SOW.docx", "", docxtest.Build("Statement of work",
		"Prepared for {project.client_nme} by our team.", "{#phases}{nme}: {total_hours} hours{/phases}"))
	require.NoError(t, err)
	require.NoError(t, e.svc.Setup(ctx, func(a *scoping.Admin) error {
		_, err := a.VerifyDomain(e.accts["acme"], "corp.acme.test")
		return err
	}))
	idp := e.create(sys, "identity-providers", map[string]string{"name": `"Corp SSO"`, "issuer-url": `"https://idp.corp.test"`,
		"client-id": `"scopekit"`, "client-secret": `"secret"`, "email-domains": `["corp.acme.test", "labs.acme.test"]`}, nil)
	pending := e.create(sys, "verified-domains", map[string]string{"domain": `"labs.acme.test"`}, nil)
	sales := id("roles", "Sales")
	invited := e.create(sys, "users", map[string]string{"name": `"Pat Invited"`, "email": `"pat@acme.test"`, "title": `"Presales engineer"`},
		map[string]engine.Ref{"roles": {Type: "roles", ID: sales}})
	robot := e.create(sys, "users", map[string]string{"name": `"CRM sync"`, "email": `"crm@acme.test"`, "user-type": `"service"`},
		map[string]engine.Ref{"roles": {Type: "roles", ID: sales}})
	e.create(sys, "currencies", map[string]string{"code": `"EUR"`, "name": `"Euro"`, "conversion-rate": `"0.92"`}, nil)
	e.create(sys, "general-terms", map[string]string{"name": `"Payment"`, "position": "1",
		"body": `"Invoices are due 30 days after their date. Work outside the scope is quoted apart."`}, nil)

	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(receiver.Close)
	hook := e.create(sys, "webhook-subscriptions", map[string]string{"event-type": `"project_status_changed"`,
		"destination-url": `"` + receiver.URL + `/scopekit"`, "description": `"The CRM's opportunity sync"`}, nil)
	pid := e.seeded["acme"].ProjectID
	_, err = e.svc.Submit(ctx, ada, pid)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		res, err := e.svc.Related(ctx, sys, "webhook-subscriptions", hook, "webhook-publications", engine.ListParams{PageSize: 1, PageNumber: 1}, engine.Options{})
		return err == nil && res.Total > 0
	}, 30*time.Second, 100*time.Millisecond)

	assessment := id("services", "Assessment")
	var sub string
	subs, err := e.svc.List(ctx, sys, "subservices", engine.ListParams{PageSize: 1, PageNumber: 1, Filters: map[string]string{"service": assessment}}, engine.Options{})
	require.NoError(t, err)
	sub = subs.Records[0].ID
	rateTable := id("rate-tables", "")
	rates, err := e.svc.List(ctx, sys, "resource-rates", engine.ListParams{PageSize: 1, PageNumber: 1, Filters: map[string]string{"rate-table": rateTable}}, engine.Options{})
	require.NoError(t, err)
	level := id("approval-levels", "Business")
	lob, err := e.svc.List(ctx, sys, "line-of-business-approvals", engine.ListParams{PageSize: 1, PageNumber: 1}, engine.Options{})
	require.NoError(t, err)

	out := []settingsPage{}
	for _, s := range []string{"services", "phases", "resources", "rate-tables", "products", "governance", "blueprints",
		"lines-of-business", "service-categories", "expense-categories", "import", "templates", "users", "roles",
		"identity-providers", "domains", "sign-in", "account", "currencies", "payment-terms", "general-terms",
		"approval-levels", "webhooks", "preferences"} {
		out = append(out, settingsPage{s, "/app/acme/settings/" + s})
	}
	for _, r := range []settingsPage{
		{"service", "services/" + assessment}, {"subservice", "subservices/" + sub}, {"new-service", "services/new"},
		{"rate-table", "rate-tables/" + rateTable}, {"rate", "rates/" + rates.Records[0].ID},
		{"blueprint", "blueprints/" + e.seeded["acme"].BlueprintID}, {"governance-item", "governance/" + id("governances", "")},
		{"template", "templates/" + lenient}, {"template-preview", "templates/" + e.standardSOW(ada) + "?project=" + pid},
		{"new-template", "templates/new"},
		{"user", "users/" + invited}, {"service-account", "users/" + robot}, {"new-user", "users/new"},
		{"role", "roles/" + id("roles", "Engineer")}, {"new-role", "roles/new"},
		{"identity-provider", "identity-providers/" + idp}, {"domain", "domains/" + pending},
		{"approval-level", "approval-levels/" + level}, {"level-approval", "level-approvals/" + lob.Records[0].ID},
		{"webhook", "webhooks/" + hook}, {"new-webhook", "webhooks/new"},
	} {
		out = append(out, settingsPage{r.name, "/app/acme/settings/" + r.path})
	}
	return out
}
