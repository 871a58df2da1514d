package httpadapter

import (
	"net/http"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/jsonapi"
	"github.com/scopekit/scopekit/scoping/views"
)

// issueCredentials serves POST /{slug}/v1/users/{id}/credentials
// (docs/resources.md "users"): it issues a new client id and secret for the
// service account and answers 201 with a service-account-credentials
// document (id = the client id) whose client-secret is shown this once;
// the previous credentials, and the tokens minted with them, stop working.
// Needs users manage (403); a user not in the account is 404, a user that
// is not a service account 409 (the state of the user forbids it: convert
// it first), as is one who is a member of another account too (the
// credentials are the person's). The request body, if any, is not read.
func (s *Server) issueCredentials(c *call) error {
	if err := s.Svc.CheckPersonChange(c.r.Context(), c.actor, c.params.ByName("id")); err != nil {
		return err
	}
	cred, secret, err := s.Auth.IssueServiceCredential(c.r.Context(), c.actor.AccountID(), c.params.ByName("id"))
	if err != nil {
		return err
	}
	c.w.Header().Set("Cache-Control", "no-store")
	writeDoc(c.w, c.r, http.StatusCreated, &jsonapi.Document{Data: &jsonapi.Resource{
		Type: "service-account-credentials",
		ID:   cred.ClientID,
		Attributes: map[string]any{
			"client-id":     cred.ClientID,
			"client-secret": secret,
			"created-at":    engine.FormatTime(cred.CreatedAt),
		},
		Relationships: map[string]*jsonapi.Relationship{
			"user": {HasData: true, One: &jsonapi.Identifier{Type: views.TypeUsers, ID: cred.UserID}},
		},
	}})
	return nil
}

// resetMFA serves POST /{slug}/v1/users/{id}/reset-mfa: it removes the
// user's second factor (docs/auth.md "Two-step verification") and answers
// 204. Needs users manage (403); a user not in the account is 404; a
// person who is a member of another account too is 409 (the second factor
// is the person's, and holds in every account). The request body, if
// any, is not read.
func (s *Server) resetMFA(c *call) error {
	id := c.params.ByName("id")
	if err := s.Svc.CheckPersonChange(c.r.Context(), c.actor, id); err != nil {
		return err
	}
	if err := s.Auth.ResetMFA(c.r.Context(), c.actor.AccountID(), id); err != nil {
		return err
	}
	logger(c.r).Info("second factor reset", "user", id, "by", c.actor.UserID, "request_id", requestID(c.r))
	c.w.WriteHeader(http.StatusNoContent)
	return nil
}
