package webapp

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
)

// People: what a users manager does beyond a user's form, each the use
// case of the API's route (docs/resources.md "users"): deactivate (the
// DELETE of a user), reset a second factor (POST .../reset-mfa), convert
// to a service account (a PATCH with meta confirm), issue a service
// account's credentials (POST .../credentials, shown once); and the
// invitation's link a new person opens (invitation.go).

// userButtons are the actions of a user's page.
func userButtons(rec *engine.Record) []recordButton {
	u := views.User{Record: rec}
	if !rec.Active() {
		return []recordButton{{Act: "restore", Label: "Restore"}}
	}
	out := []recordButton{{Act: "deactivate", Label: "Deactivate", Class: "danger",
		Confirm: "Deactivate " + u.Name() + "? Their sessions and tokens in this account end."}}
	if u.UserType() == "service" {
		return append(out, recordButton{Act: "credentials", Label: "Issue credentials", Class: "secondary",
			Confirm: "Issue new credentials? The current ones stop working."})
	}
	return append(out, recordButton{Act: "reset-mfa", Label: "Reset second factor", Class: "secondary",
		Confirm: "Remove " + u.Name() + "'s second factor? Their next sign-in sets one up again where it is required."},
		recordButton{Act: "convert", Label: "Convert to a service account", Class: "secondary",
			Confirm: "Convert " + u.Name() + " to a service account? They can no longer sign in with a password."})
}

// deactivateUser deactivates the membership (the API's DELETE of a user).
func deactivateUser(w *Workspace, c *call, s *section, _ *engine.TypeDef) error {
	if err := w.svc.Delete(c.ctx(), c.actor, s.Type, c.r.PathValue("id"), engine.Options{}); err != nil {
		return err
	}
	return c.redirect(c.url("/settings/"+s.Key+"/"+c.r.PathValue("id")) + "?done=deactivated")
}

// resetMFA removes the person's second factor.
func resetMFA(w *Workspace, c *call, s *section, _ *engine.TypeDef) error {
	id := c.r.PathValue("id")
	if err := w.svc.CheckPersonChange(c.ctx(), c.actor, id); err != nil {
		return err
	}
	if err := w.auth.ResetMFA(c.ctx(), c.actor.AccountID(), id); err != nil {
		return err
	}
	w.log.Info("second factor reset", "user", id, "by", c.actor.UserID)
	return c.redirect(c.url("/settings/"+s.Key+"/"+id) + "?done=mfa-reset")
}

// convertUser makes the user a service account, the form's button being
// the confirmation the API asks in meta.
func convertUser(w *Workspace, c *call, s *section, _ *engine.TypeDef) error {
	id := c.r.PathValue("id")
	in := &engine.Input{Attrs: map[string]json.RawMessage{views.NameUserType: json.RawMessage(`"service"`)},
		Meta: map[string]any{"confirm": true}}
	if _, err := w.svc.Update(c.ctx(), c.actor, s.Type, id, in, engine.Options{}); err != nil {
		return err
	}
	return c.redirect(c.url("/settings/"+s.Key+"/"+id) + "?done=converted")
}

// shownOncePage shows what the server keeps only as a digest or sealed:
// a service account's secret, a subscription's signing secret, an
// invitation. The answer is not stored anywhere (no-store).
type shownOncePage struct {
	frame
	Title, Lead string
	Items       []shownField
	Link        string
	Back        string
}

// issueCredentials issues a service account's client id and secret.
func issueCredentials(w *Workspace, c *call, s *section, _ *engine.TypeDef) error {
	id := c.r.PathValue("id")
	if err := w.svc.CheckPersonChange(c.ctx(), c.actor, id); err != nil {
		return err
	}
	cred, secret, err := w.auth.IssueServiceCredential(c.ctx(), c.actor.AccountID(), id)
	if err != nil {
		return err
	}
	pg := &shownOncePage{frame: w.frameOf(c, s, "Credentials"), Title: "Credentials issued",
		Lead:  "The program signs in with these (the client credentials grant of /oauth/token). The secret is shown this once: copy it now. The previous credentials no longer work.",
		Items: []shownField{{Label: "Client ID", Value: cred.ClientID}, {Label: "Client secret", Value: secret}}, Back: c.url("/settings/" + s.Key + "/" + id)}
	w.render(c.rw, http.StatusCreated, "once", "layout", pg)
	return nil
}

// userCreated shows a new person's invitation, or a service account's
// page.
func userCreated(w *Workspace, c *call, s *section, rec *engine.Record, res *engine.Result) error {
	token, _ := res.Meta[scoping.InvitationMeta].(string)
	if token == "" {
		return c.redirect(w.afterChange(c, s, rec, "created"))
	}
	pg := &shownOncePage{frame: w.frameOf(c, s, "Invitation"), Title: "Invitation created",
		Lead: "Give " + views.User{Record: rec}.Name() + " this link: it opens a page where they choose their password, " +
			"and then they sign in. It is shown this once and works once.",
		Items: []shownField{{Label: "Invitation link", Value: w.invitationURL(token)}}, Back: c.url("/settings/" + s.Key + "/" + rec.ID)}
	w.render(c.rw, http.StatusCreated, "once", "layout", pg)
	return nil
}

// subscriptionCreated shows a new subscription's signing secret.
func subscriptionCreated(w *Workspace, c *call, s *section, rec *engine.Record, _ *engine.Result) error {
	pg := &shownOncePage{frame: w.frameOf(c, s, "Subscription created"), Title: "Subscription created",
		Lead: "Deliveries are signed with this secret (Standard Webhooks): the receiver checks the signature with it. " +
			"It is shown this once: copy it now.",
		Items: []shownField{{Label: "Signing secret", Value: rec.Str(views.NameSecret)}}, Back: c.url("/settings/" + s.Key + "/" + rec.ID)}
	w.render(c.rw, http.StatusCreated, "once", "layout", pg)
	return nil
}

// verifyDomain looks the domain's TXT record up (the API's verify).
func verifyDomain(w *Workspace, c *call, s *section, def *engine.TypeDef) error {
	id := c.r.PathValue("id")
	_, err := w.svc.VerifyDomain(c.ctx(), c.actor, id)
	if scopekit.ErrorCode(err) == scopekit.EINVALID { // not found in DNS: said on the domain's page
		rec, gerr := w.record(c, s, def)
		if gerr != nil {
			return gerr
		}
		status, errs := w.describe(err)
		pg, perr := w.recordPageOf(c, s, def, rec, nil, nil)
		if perr != nil {
			return perr
		}
		pg.L.Errors = errs
		w.render(c.rw, status, "record", "layout", pg)
		return nil
	}
	if err != nil {
		return err
	}
	return c.redirect(c.url("/settings/"+s.Key+"/"+id) + "?done=verified")
}

// domainPanel is a claimed domain's proof: the TXT record to publish.
type domainPanel struct {
	Domain, Record string
	Verified       bool
}

// providerPanel is an identity provider's domains and whether each is
// verified (only verified domains are routed to it).
type providerPanel struct {
	Domains []providerDomain
	NewHref string
}

type providerDomain struct {
	Domain, Status, Href string
	Class                string // the status as stored, for its colour
}

func (w *Workspace) providerPanel(c *call, rec *engine.Record) (*providerPanel, error) {
	domains := views.IdentityProvider{Record: rec}.EmailDomains()
	pp := &providerPanel{NewHref: c.url("/settings/domains/new")}
	if len(domains) == 0 {
		return pp, nil
	}
	res, err := w.svc.List(c.ctx(), c.actor, views.TypeVerifiedDomains, engine.ListParams{PageSize: 1000, PageNumber: 1,
		Filters: map[string]string{views.NameDomain: strings.Join(domains, ",")}}, engine.Options{})
	if err != nil {
		return nil, err
	}
	claims := map[string]*engine.Record{}
	for _, r := range res.Records {
		claims[strings.ToLower(views.VerifiedDomain{Record: r}.Domain())] = r
	}
	for _, d := range domains {
		pd := providerDomain{Domain: d, Status: "Not claimed"}
		if r := claims[strings.ToLower(d)]; r != nil {
			st := views.VerifiedDomain{Record: r}.Status()
			pd.Status, pd.Class, pd.Href = label(st), st, c.url("/settings/domains/"+r.ID)
		}
		pp.Domains = append(pp.Domains, pd)
	}
	return pp, nil
}
