package webapp

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
)

// What sections add to the generic pages: their own actions, buttons and
// panels, and the page a creation shows once (a secret).

// sectionAction is an action of a section beyond archive, restore and
// delete (nil when there is none of that name).
func sectionAction(key, act string) func(w *Workspace, c *call, s *section, def *engine.TypeDef) error {
	switch key + "/" + act {
	case "users/deactivate", "users/archive":
		return deactivateUser
	case "users/reset-mfa":
		return resetMFA
	case "users/convert":
		return convertUser
	case "users/credentials":
		return issueCredentials
	case "domains/verify":
		return verifyDomain
	}
	return nil
}

// sectionButtons are a section's own actions on a record's page (nil:
// the generic ones).
func sectionButtons(s *section, rec *engine.Record) []recordButton {
	switch s.Key {
	case "users":
		return userButtons(rec)
	case "domains":
		out := []recordButton{{Act: "delete", Label: "Delete", Class: "danger", Confirm: "Give up the claim of this domain?"}}
		if (views.VerifiedDomain{Record: rec}).Status() != scoping.DomainVerified {
			out = append([]recordButton{{Act: "verify", Label: "Verify now"}}, out...)
		}
		return out
	}
	return nil
}

// createdOnce is the page a creation of the section shows instead of
// going to the record (what is shown once); nil for none.
func createdOnce(key string) func(w *Workspace, c *call, s *section, rec *engine.Record, res *engine.Result) error {
	switch key {
	case "users":
		return userCreated
	case "webhooks":
		return subscriptionCreated
	}
	return nil
}

// panels are the sections' own parts of a record's page.
type panels struct {
	Domain   *domainPanel
	Provider *providerPanel
	Webhook  *webhookPanel
	Template *templatePanel
}

// panel is a section's own part of a record's page.
func (w *Workspace) panel(c *call, s *section, rec *engine.Record) (panels, error) {
	var p panels
	var err error
	switch s.Key {
	case "domains":
		d := views.VerifiedDomain{Record: rec}
		p.Domain = &domainPanel{Domain: d.Domain(), Record: scoping.DomainRecordPrefix + d.VerificationToken(),
			Verified: d.Status() == scoping.DomainVerified}
	case "identity-providers":
		p.Provider, err = w.providerPanel(c, rec)
	case "webhooks":
		p.Webhook, err = w.webhookPanel(c, rec)
	case "templates":
		p.Template, err = w.templatePanel(c, rec)
	}
	return p, err
}

// webhookPanel is a subscription's publications (its delivery attempts),
// newest first.
type webhookPanel struct {
	Pubs       []pubRow
	Total      int
	Prev, Next string
}

type pubRow struct {
	ID, Status, Response, Attempt, Created, Completed, NextAttempt, Error, Source, Payload string
}

// publicationsPage is how many publications the panel shows at once.
const publicationsPage = 20

func (w *Workspace) webhookPanel(c *call, rec *engine.Record) (*webhookPanel, error) {
	page := 1
	if n, err := strconv.Atoi(c.r.URL.Query().Get("page")); err == nil && n > 0 && n < 1_000_000 {
		page = n
	}
	res, err := w.svc.Related(c.ctx(), c.actor, views.TypeWebhookSubscriptions, rec.ID, views.NameWebhookPublications,
		engine.ListParams{PageSize: publicationsPage, PageNumber: page, Sort: []engine.SortSpec{{Field: views.NameCreatedAt, Desc: true}}}, engine.Options{})
	if err != nil {
		return nil, err
	}
	p := &webhookPanel{Total: res.Total}
	for _, r := range res.Records {
		pub := views.WebhookPublication{Record: r}
		row := pubRow{ID: r.ID, Status: pub.Status(), Attempt: strconv.FormatInt(pub.Attempt(), 10), Error: pub.Error(),
			Created: dateTimeOf(r.CreatedAt), Completed: dateTimeOf(pub.CompletedAt()), NextAttempt: dateTimeOf(pub.NextAttemptAt())}
		if v, ok := r.Attrs[views.NameResponseStatus]; ok && v != nil {
			row.Response = displayValue(v)
		}
		if src := pub.Source(); src != nil {
			row.Source = displayValue(src["event-type"]) + " of " + displayValue(src["type"]) + " " + displayValue(src["id"])
		}
		var pretty bytes.Buffer
		if json.Indent(&pretty, []byte(pub.Payload()), "", "  ") == nil {
			row.Payload = pretty.String()
		} else {
			row.Payload = pub.Payload()
		}
		p.Pubs = append(p.Pubs, row)
	}
	base := c.url("/settings/webhooks/" + rec.ID)
	if page > 1 {
		p.Prev = base + "?page=" + strconv.Itoa(page-1)
	}
	if page*publicationsPage < res.Total {
		p.Next = base + "?page=" + strconv.Itoa(page+1)
	}
	return p, nil
}

// dateTimeOf shows a stored time to the minute.
func dateTimeOf(t string) string {
	if t == "" {
		return ""
	}
	s := dateTime(t)
	if len(s) > 10 {
		s = s[:10] + " " + s[11:]
	}
	return s
}
