package app

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
// project of docs/pricing.md, so that the first request shows real data.

// DemoSlug is the demo account's slug.
const DemoSlug = "demo"

// DemoIdentity is who the demo account's people and clients are: what a
// start banner shows to try the service with.
type DemoIdentity struct {
	Slug, Name, Currency, Domain string
	AdminEmail, AdminPassword    string
	BotEmail                     string
	BotClientID, BotSecret       string
	AppName                      string
	AppClientID, AppSecret       string
	AppRedirect                  string
	ProjectName                  string
}

// demo is the demo account's identity. Its secrets are public: the demo
// is for trying the service, never for real data.
var demo = DemoIdentity{
	Slug: DemoSlug, Name: "Demo IT Services", Currency: "USD", Domain: "demo.test",
	AdminEmail: "admin@demo.test", AdminPassword: "demo-admin-password",
	BotEmail: "bot@demo.test", BotClientID: "demo-bot", BotSecret: "demo-bot-secret",
	AppName: "Demo Portal", AppClientID: "demo-portal", AppSecret: "demo-portal-secret", AppRedirect: "http://127.0.0.1:9999/callback",
	ProjectName: demodata.ProjectName,
}

// DemoAccount returns the demo account's identity.
func DemoAccount() DemoIdentity { return demo }

// DemoState is what a start banner needs to know of the demo account.
type DemoState struct {
	// Exists is true when the account "demo" is the demo: it holds the
	// demo's service account.
	Exists bool
	// NotTheDemo is true when an account "demo" exists that is not the
	// demo (a bootstrap made it): no demo credentials work there.
	NotTheDemo bool
	// CredsWork is true when the service account's client id and secret
	// are still the demo's (nobody replaced them through the API).
	CredsWork bool
	// ProjectID is the worked example project's id ("" when it is gone).
	ProjectID string
	// Created is true when this start created the demo (or completed a
	// first start's that had failed).
	Created bool
}

// demo creates the demo when the configuration asks for it, and reads
// its state.
func (a *App) demo(ctx context.Context) error {
	st, err := findDemo(ctx, a.db, a.db.AuthStore())
	if err != nil {
		return err
	}
	want := a.cfg.Demo == DemoOn || (a.cfg.Demo == DemoAuto && a.started.First && a.cfg.Bootstrap == nil)
	// the demo is made when wanted and missing, or completed when this
	// is a first start again after one that failed while making it
	if want && (!st.Exists || a.started.First) {
		if st.NotTheDemo {
			return fmt.Errorf("the account %q exists and is not the demo (a bootstrap made it): not creating the demo", DemoSlug)
		}
		if err := createDemo(ctx, a.svc, a.db, a.tokens, st); err != nil {
			// another instance may have made it meanwhile
			if again, ferr := findDemo(ctx, a.db, a.db.AuthStore()); ferr != nil || !again.Exists || !again.CredsWork {
				return err
			}
		}
		if st, err = findDemo(ctx, a.db, a.db.AuthStore()); err != nil {
			return err
		}
		st.Created = true
	}
	a.started.Demo = *st
	return nil
}

// findDemo reports whether the demo account exists and what of it a
// banner can show.
func findDemo(ctx context.Context, db engine.Store, as auth.Store) (*DemoState, error) {
	st := &DemoState{}
	var acctID string
	err := db.View(ctx, func(tx engine.Tx) error {
		recs, _, err := tx.List(&engine.Query{Type: views.TypeAccounts, Where: []engine.Cond{engine.Eq(views.NameSlug, DemoSlug)}, Limit: 1})
		if err != nil || len(recs) == 0 {
			return err
		}
		acctID = recs[0].ID
		bots, _, err := tx.List(&engine.Query{Type: views.TypeUsers, AccountID: acctID, Where: []engine.Cond{engine.Eq(views.NameEmail, demo.BotEmail)}, Limit: 1})
		if err != nil {
			return err
		}
		if len(bots) == 0 {
			st.NotTheDemo = true
			return nil
		}
		st.Exists = true
		projects, _, err := tx.List(&engine.Query{Type: views.TypeProjects, AccountID: acctID,
			Where: []engine.Cond{engine.Eq(views.NameProjectName, demo.ProjectName), engine.Eq(views.NameActive, "true")}, Limit: 1})
		if err != nil {
			return err
		}
		if len(projects) > 0 {
			st.ProjectID = projects[0].ID
		}
		return nil
	})
	if err != nil || !st.Exists {
		return st, err
	}
	cred, err := as.ServiceCredentialByClientID(ctx, demo.BotClientID)
	switch {
	case err == nil:
		st.CredsWork = cred.AccountID == acctID && auth.SecretMatches(cred.SecretDigest, demo.BotSecret)
	case !isNotFound(err):
		return nil, err
	}
	return st, nil
}

// createDemo makes the demo account and its data, or completes what a
// first start that failed left of it (st: the demo as it is): each step
// is idempotent, and the data (catalog and project) is one transaction,
// made when the worked example project is missing. It first checks that
// the demo's emails and client ids are not another account's, so that
// the demo never takes over someone's identities (nor leaves half a demo
// behind for that reason).
func createDemo(ctx context.Context, svc *scoping.Service, db Store, as *auth.Service, st *DemoState) error {
	var acctID, adminID, botID string
	if err := demoIdentitiesFree(ctx, db, db.AuthStore()); err != nil {
		return err
	}
	err := svc.Setup(ctx, func(ad *scoping.Admin) error {
		acct, err := ad.EnsureAccount(demo.Slug, demo.Name, demo.Currency)
		if err != nil {
			return err
		}
		acctID = acct.ID
		admin, err := ad.EnsureMember(acctID, scoping.Member{Email: demo.AdminEmail, Name: "Demo Admin", Role: "Account Admin"})
		if err != nil {
			return err
		}
		bot, err := ad.EnsureMember(acctID, scoping.Member{Email: demo.BotEmail, Name: "Demo Bot", UserType: "service", Role: "Account Admin"})
		if err != nil {
			return err
		}
		adminID, botID = admin.ID, bot.ID
		// the demo's people are of demo.test, a domain no DNS answers
		// for: the demo holds it, so that an identity provider it adds
		// works at once and no other account can claim it
		_, err = ad.VerifyDomain(acctID, demo.Domain)
		return err
	})
	if err != nil {
		return fmt.Errorf("account: %w", err)
	}
	if err := as.SetPassword(ctx, adminID, demo.AdminPassword); err != nil {
		return fmt.Errorf("admin password: %w", err)
	}
	if err := as.SetServiceCredential(ctx, acctID, botID, demo.BotClientID, demo.BotSecret); err != nil {
		return fmt.Errorf("service credentials: %w", err)
	}
	if err := as.RegisterApplication(ctx, acctID, demo.AppName, demo.AppClientID, demo.AppSecret, []string{demo.AppRedirect}); err != nil {
		return fmt.Errorf("OAuth application: %w", err)
	}
	if st.Exists && st.ProjectID != "" {
		return nil // the data is there
	}
	actor, err := svc.SystemActor(ctx, acctID)
	if err != nil {
		return err
	}
	_, err = demodata.Seed(ctx, svc, actor, adminID)
	return err
}

// demoIdentitiesFree checks that no account but the demo's holds the
// demo's emails and client ids.
func demoIdentitiesFree(ctx context.Context, db engine.Store, as auth.Store) error {
	var demoID string
	err := db.View(ctx, func(tx engine.Tx) error {
		accts, _, err := tx.List(&engine.Query{Type: views.TypeAccounts, Where: []engine.Cond{engine.Eq(views.NameSlug, DemoSlug)}, Limit: 1})
		if err != nil {
			return err
		}
		if len(accts) > 0 {
			demoID = accts[0].ID
		}
		for _, email := range []string{demo.AdminEmail, demo.BotEmail} {
			recs, _, err := tx.List(&engine.Query{Type: views.TypeUsers, AllAccounts: true, Where: []engine.Cond{engine.Eq(views.NameEmail, email)}})
			if err != nil {
				return err
			}
			for _, u := range recs {
				if u.AccountID != demoID {
					return fmt.Errorf("the user %s already exists in another account; not creating the demo account", email)
				}
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, id := range []string{demo.BotClientID, demo.AppClientID} {
		app, appErr := as.ApplicationByClientID(ctx, id)
		cred, credErr := as.ServiceCredentialByClientID(ctx, id)
		for _, c := range []struct {
			err     error
			account func() string
		}{{appErr, func() string { return app.AccountID }}, {credErr, func() string { return cred.AccountID }}} {
			switch {
			case c.err == nil && (demoID == "" || c.account() != demoID):
				return fmt.Errorf("the client id %s is already in use; not creating the demo account", id)
			case c.err != nil && !isNotFound(c.err):
				return c.err
			}
		}
	}
	return nil
}

func isNotFound(err error) bool { return scopekit.ErrorCode(err) == scopekit.ENOTFOUND }
