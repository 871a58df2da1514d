package main

import (
	"context"
	"fmt"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/internal/demodata"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
)

// The demo account (docs/operations.md, "Demo data"): an admin, a service
// account, an OAuth application, a small catalog and the worked example
// project of docs/pricing.md, so that the first curl shows real data.
const (
	demoSlug          = "demo"
	demoName          = "Demo IT Services"
	demoCurrency      = "USD"
	demoDomain        = "demo.test"
	demoAdminEmail    = "admin@" + demoDomain
	demoAdminPassword = "demo-admin-password"
	demoBotEmail      = "bot@" + demoDomain
	demoBotClientID   = "demo-bot"
	demoBotSecret     = "demo-bot-secret"
	demoAppName       = "Demo Portal"
	demoAppClientID   = "demo-portal"
	demoAppSecret     = "demo-portal-secret"
	demoAppRedirect   = "http://127.0.0.1:9999/callback"
	demoProjectName   = demodata.ProjectName
)

// demoState is what the startup banner needs to know of the demo account.
type demoState struct {
	Exists bool
	// CredsWork is true when the bot's client id and secret are still the
	// demo ones (nobody replaced them through the API).
	CredsWork bool
	ProjectID string // "" when the demo project is gone
}

// findDemo reports whether the demo account exists and what of it the
// banner can show.
func findDemo(ctx context.Context, db engine.Store, as auth.Store) (*demoState, error) {
	st := &demoState{}
	var acctID string
	err := db.View(ctx, func(tx engine.Tx) error {
		recs, _, err := tx.List(&engine.Query{Type: views.TypeAccounts, Where: []engine.Cond{engine.Eq(views.NameSlug, demoSlug)}, Limit: 1})
		if err != nil || len(recs) == 0 {
			return err
		}
		acctID = recs[0].ID
		projects, _, err := tx.List(&engine.Query{Type: views.TypeProjects, AccountID: acctID,
			Where: []engine.Cond{engine.Eq(views.NameProjectName, demoProjectName), engine.Eq(views.NameActive, "true")}, Limit: 1})
		if err != nil {
			return err
		}
		if len(projects) > 0 {
			st.ProjectID = projects[0].ID
		}
		return nil
	})
	if err != nil || acctID == "" {
		return st, err
	}
	st.Exists = true
	cred, err := as.ServiceCredentialByClientID(ctx, demoBotClientID)
	switch {
	case err == nil:
		st.CredsWork = cred.AccountID == acctID && auth.SecretMatches(cred.SecretDigest, demoBotSecret)
	case !isNotFound(err):
		return nil, err
	}
	return st, nil
}

// authStorer is a database with an auth store (createDemo checks there
// that the demo's client ids are free).
type authStorer interface {
	engine.Store
	AuthStore() auth.Store
}

// createDemo creates the demo account and its data. The caller has checked
// that the account does not exist yet; createDemo checks first that its
// emails and client ids are free, so that it never takes over another
// account's identities (nor leaves half a demo behind for that reason).
func createDemo(ctx context.Context, svc *scoping.Service, db authStorer, as *auth.Service) error {
	if err := demoIdentitiesFree(ctx, db, db.AuthStore()); err != nil {
		return err
	}
	var acctID, adminID, botID string
	err := svc.Setup(ctx, func(a *scoping.Admin) error {
		acct, err := a.EnsureAccount(demoSlug, demoName, demoCurrency)
		if err != nil {
			return err
		}
		acctID = acct.ID
		admin, err := a.EnsureMember(acctID, scoping.Member{Email: demoAdminEmail, Name: "Demo Admin", Role: "Account Admin"})
		if err != nil {
			return err
		}
		bot, err := a.EnsureMember(acctID, scoping.Member{Email: demoBotEmail, Name: "Demo Bot", UserType: "service", Role: "Account Admin"})
		if err != nil {
			return err
		}
		adminID, botID = admin.ID, bot.ID
		// the demo's people are of demo.test, a domain no DNS answers
		// for: the demo holds it, so that an identity provider it adds
		// works at once and no other account can claim it
		_, err = a.VerifyDomain(acctID, demoDomain)
		return err
	})
	if err != nil {
		return fmt.Errorf("demo: account: %w", err)
	}
	if err := as.SetPassword(ctx, adminID, demoAdminPassword); err != nil {
		return fmt.Errorf("demo: admin password: %w", err)
	}
	if err := as.SetServiceCredential(ctx, acctID, botID, demoBotClientID, demoBotSecret); err != nil {
		return fmt.Errorf("demo: service credentials: %w", err)
	}
	if err := as.RegisterApplication(ctx, acctID, demoAppName, demoAppClientID, demoAppSecret, []string{demoAppRedirect}); err != nil {
		return fmt.Errorf("demo: OAuth application: %w", err)
	}
	actor, err := svc.SystemActor(ctx, acctID)
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	if _, err := demodata.Seed(ctx, svc, actor, adminID); err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	return nil
}

func demoIdentitiesFree(ctx context.Context, db engine.Store, as auth.Store) error {
	err := db.View(ctx, func(tx engine.Tx) error {
		for _, email := range []string{demoAdminEmail, demoBotEmail} {
			recs, _, err := tx.List(&engine.Query{Type: views.TypeUsers, AllAccounts: true, Where: []engine.Cond{engine.Eq(views.NameEmail, email)}, Limit: 1})
			if err != nil {
				return err
			}
			if len(recs) > 0 {
				return fmt.Errorf("demo: the user %s already exists in another account; not creating the demo account", email)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, id := range []string{demoBotClientID, demoAppClientID} {
		_, appErr := as.ApplicationByClientID(ctx, id)
		_, credErr := as.ServiceCredentialByClientID(ctx, id)
		for _, err := range []error{appErr, credErr} {
			if err == nil {
				return fmt.Errorf("demo: the client id %s is already in use; not creating the demo account", id)
			}
			if !isNotFound(err) {
				return err
			}
		}
	}
	return nil
}

func isNotFound(err error) bool { return scopekit.ErrorCode(err) == scopekit.ENOTFOUND }
