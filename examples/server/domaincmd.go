package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/scopekit/scopekit/scoping/views"
)

// The verify-domain command (docs/auth.md "Single sign-on"): `server
// verify-domain -account demo -domain demo.test` marks an email domain
// verified for an account, as its DNS TXT record would, for a deployment
// whose domains no public DNS answers for. It claims the domain for the
// account first when the account has not. The bbolt file must not be in
// use by a server (it is locked); on PostgreSQL (-database) the servers
// may keep serving.

// runVerifyDomain is the verify-domain command.
func runVerifyDomain(ctx context.Context, args []string, getenv func(string) string, stdout, _ io.Writer) error {
	fset := flag.NewFlagSet("verify-domain", flag.ContinueOnError)
	fset.SetOutput(io.Discard)
	dbf := addDBFlags(fset)
	account := fset.String("account", "", "the `slug` of the account that holds the domain")
	domain := fset.String("domain", "", "the email `domain` to mark verified, such as example.com")
	if err := fset.Parse(args); errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, "Usage: server verify-domain -account SLUG -domain DOMAIN [flags]\n\n"+
			"Marks an email domain verified for the account, as its DNS TXT record would\n"+
			"(docs/auth.md \"Single sign-on\"); -data and -database also from SCOPEKIT_DATA\nand SCOPEKIT_DATABASE.\n\n")
		fset.SetOutput(stdout)
		fset.PrintDefaults()
		return nil
	} else if err != nil {
		return fmt.Errorf("verify-domain: %w", err)
	}
	if fset.NArg() > 0 {
		return fmt.Errorf("verify-domain: unexpected argument %q (flags only; see verify-domain -h)", fset.Arg(0))
	}
	if *account == "" || *domain == "" {
		return errors.New("verify-domain: -account and -domain are required (see verify-domain -h)")
	}
	db, svc, err := dbf.open(ctx, "verify-domain", fset, getenv)
	if err != nil {
		return err
	}
	defer db.Close()
	var held *engine.Record
	err = svc.Setup(ctx, func(a *scoping.Admin) error {
		acct, err := a.AccountBySlug(*account)
		if scopekit.ErrorCode(err) == scopekit.ENOTFOUND {
			return fmt.Errorf("no account with the slug %q", *account)
		}
		if err != nil {
			return err
		}
		held, err = a.VerifyDomain(acct.ID, *domain)
		return err
	})
	var se *scopekit.Error
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("verify-domain: %s", se.Message)
	case err != nil:
		return fmt.Errorf("verify-domain: %w", err)
	}
	fmt.Fprintf(stdout, "%s is verified for the account %s\n", views.VerifiedDomain{Record: held}.Domain(), *account)
	return nil
}
