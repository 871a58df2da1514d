package scoping_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
)

// Ensure a created user is invited with the Read Only role unless given
// one, has one role per account and an email address, joins the identity
// of an email known in another account, and that an email already in the
// account is a uniqueness error.
func TestAccountsUsers(t *testing.T) {
	ctx := context.Background()
	svc, _ := acctService(t)
	_, acmeSys := acctAccount(t, svc, "acme")
	_, globexSys := acctAccount(t, svc, "globex")
	roles := acctRoles(t, svc, acmeSys)

	created, err := svc.Create(ctx, acmeSys, "users", &engine.Input{Attrs: attrs("name", `"Ann"`, "email", `"ann@acme.test"`, "title", `"CTO"`)}, engine.Options{})
	require.NoError(t, err)
	ann, annToken := created.Records[0], created.Meta[scoping.InvitationMeta].(string)
	require.Equal(t, "invited", ann.Str("status"))
	require.Equal(t, roles["Read Only"].ID, ann.Rel("roles"))

	_, err = svc.Create(ctx, acmeSys, "users", &engine.Input{Attrs: attrs("name", `"Bob"`, "email", `"bob"`),
		Rels: map[string]engine.RelInput{"roles": {ToMany: true, Refs: []engine.Ref{{Type: "roles", ID: roles["Sales"].ID}, {Type: "roles", ID: roles["Engineer"].ID}}}}}, engine.Options{})
	acctRequireErr(t, err, scopekit.EINVALID, "/data/attributes/email", "one address")
	acctRequireErr(t, err, scopekit.EINVALID, "/data/relationships/roles", "one role per account")

	_, err = svc.Create(ctx, acmeSys, "users", &engine.Input{Attrs: attrs("name", `"Ann 2"`, "email", `"ann@acme.test"`)}, engine.Options{})
	require.Equal(t, scopekit.EINVALID, scopekit.ErrorCode(err), "%v", err)

	// the same email in another account is the same identity, its
	// attributes kept unless given
	joined := acctCreate(t, svc, globexSys, "users", attrs("name", `"Annie"`, "email", `"ann@acme.test"`), nil)
	require.Equal(t, ann.ID, joined.ID)
	require.Equal(t, "Annie", joined.Str("name"))
	require.Equal(t, "CTO", joined.Str("title"), "copied from the identity")

	// a membership's name, phone and status are its own: what one account
	// writes does not reach another (docs/auth.md "Accounts are walls")
	_, err = svc.Update(ctx, globexSys, "users", ann.ID, &engine.Input{Attrs: attrs("phone", `"555"`)}, engine.Options{})
	require.NoError(t, err)
	res, err := svc.Get(ctx, acmeSys, "users", ann.ID, engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	require.Empty(t, res.Records[0].Str("phone"))
	require.Equal(t, "Ann", res.Records[0].Str("name"))
	// the email is the person's: not changed while acme's membership
	// stands, once the person has accepted it (docs/auth.md rule 4: an
	// active membership elsewhere)
	_, err = svc.AcceptInvitation(ctx, annToken)
	require.NoError(t, err)
	_, err = svc.Update(ctx, globexSys, "users", ann.ID, &engine.Input{Attrs: attrs("email", `"ann@globex.test"`)}, engine.Options{})
	acctRequireErr(t, err, scopekit.ECONFLICT, "", "member of 1 other account(s)")
	require.NotContains(t, err.Error(), "acme", "no other account is named")
	_, err = svc.Update(ctx, globexSys, "users", ann.ID, &engine.Input{Attrs: attrs("active", `false`)}, engine.Options{})
	require.NoError(t, err)
	res, err = svc.Get(ctx, acmeSys, "users", ann.ID, engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	require.Equal(t, "active", res.Records[0].Str("status"), "another account's membership is its own")
	// with globex's membership deactivated, acme changes the email: it
	// follows to every membership (one identity), another's is refused
	res, err = svc.Update(ctx, acmeSys, "users", ann.ID, &engine.Input{Attrs: attrs("email", `"ann@acme.example"`)}, engine.Options{})
	require.NoError(t, err)
	res, err = svc.Get(ctx, globexSys, "users", ann.ID, engine.ListParams{Filters: map[string]string{"active": "false"}}, engine.Options{})
	require.NoError(t, err)
	require.Equal(t, "ann@acme.example", res.Records[0].Str("email"))
	gus := acctCreate(t, svc, globexSys, "users", attrs("name", `"Gus"`, "email", `"gus@globex.test"`), nil)
	_, err = svc.Update(ctx, acmeSys, "users", ann.ID, &engine.Input{Attrs: attrs("email", `"gus@globex.test"`)}, engine.Options{})
	acctRequireErr(t, err, scopekit.EINVALID, "/data/attributes/email", "another person's")

	// another account's user id is not found through this account
	_, err = svc.Get(ctx, acmeSys, "users", gus.ID, engine.ListParams{}, engine.Options{})
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))
}

// Ensure converting a user to a service account needs meta confirm,
// makes the membership active without an invitation, and that a service
// account created as such is active at once.
func TestAccountsServiceAccounts(t *testing.T) {
	ctx := context.Background()
	svc, _ := acctService(t)
	_, sys := acctAccount(t, svc, "acme")
	res, err := svc.Create(ctx, sys, "users", &engine.Input{Attrs: attrs("name", `"Bot"`, "email", `"bot@acme.test"`, "user-type", `"service"`)}, engine.Options{})
	require.NoError(t, err)
	require.Equal(t, "active", res.Records[0].Str("status"))
	require.NotContains(t, res.Meta, scoping.InvitationMeta, "a service account is never invited")

	res, err = svc.Create(ctx, sys, "users", &engine.Input{Attrs: attrs("name", `"Ann"`, "email", `"ann@acme.test"`)}, engine.Options{})
	require.NoError(t, err)
	ann := res.Records[0]
	token, _ := res.Meta[scoping.InvitationMeta].(string)
	require.NotEmpty(t, token)
	_, err = svc.Update(ctx, sys, "users", ann.ID, &engine.Input{Attrs: attrs("user-type", `"service"`)}, engine.Options{})
	acctRequireErr(t, err, scopekit.ECONFLICT, "", `"confirm": true`)
	res, err = svc.Update(ctx, sys, "users", ann.ID, &engine.Input{Attrs: attrs("user-type", `"service"`), Meta: map[string]any{"confirm": true}}, engine.Options{})
	require.NoError(t, err)
	require.Equal(t, "active", res.Records[0].Str("status"))
	_, err = svc.Invitation(ctx, token)
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err), "the invitation is dropped")
}

// Ensure archiving a membership deactivates it and stamps when, restoring
// it makes it invited again when the invitation was never accepted and
// active when it was, and that deleting a user deactivates it too.
func TestAccountsDeactivateAndRestore(t *testing.T) {
	ctx := context.Background()
	svc, db := acctService(t)
	acct, sys := acctAccount(t, svc, "acme")
	dir := scoping.Directory(db)
	status := func(id string) (string, *engine.Record) {
		res, err := svc.Get(ctx, sys, "users", id, engine.ListParams{Filters: map[string]string{"active": "true,false"}}, engine.Options{})
		require.NoError(t, err)
		return res.Records[0].Str("status"), res.Records[0]
	}
	archive := func(id string, active bool) {
		_, err := svc.Update(ctx, sys, "users", id, &engine.Input{Attrs: attrs("active", strconv.FormatBool(active))}, engine.Options{})
		require.NoError(t, err)
	}
	invited := acctCreate(t, svc, sys, "users", attrs("name", `"Ivy"`, "email", `"ivy@acme.test"`), nil)
	_, rec := status(invited.ID)
	require.True(t, scoping.SignInsRevokedAt(rec).IsZero())
	archive(invited.ID, false)
	st, rec := status(invited.ID)
	require.Equal(t, "deactivated", st)
	revoked := scoping.SignInsRevokedAt(rec)
	require.False(t, revoked.IsZero())
	archive(invited.ID, true)
	st, rec = status(invited.ID)
	require.Equal(t, "invited", st)
	require.Equal(t, revoked, scoping.SignInsRevokedAt(rec), "tokens issued before stay void")

	member := acctMember(t, svc, acct.ID, "max@acme.test", "Sales")
	archive(member.UserID, false)
	m, err := dir.Membership(ctx, member.UserID, acct.ID)
	require.NoError(t, err)
	require.Equal(t, "deactivated", m.Status)
	require.False(t, m.RevokedAt.IsZero())
	archive(member.UserID, true)
	st, _ = status(member.UserID)
	require.Equal(t, "active", st, "an accepted membership comes back active")

	require.NoError(t, svc.Delete(ctx, sys, "users", member.UserID, engine.Options{}))
	st, rec = status(member.UserID)
	require.Equal(t, "deactivated", st)
	require.False(t, rec.Active())
	require.NoError(t, svc.Delete(ctx, sys, "users", member.UserID, engine.Options{}), "deleting twice is fine")
}

// Ensure an invitation token names its membership until accepted, that
// malformed, unknown or wrong tokens are ENOTFOUND, and that of two
// concurrent acceptances exactly one wins.
func TestAccountsInvitations(t *testing.T) {
	ctx := context.Background()
	svc, _ := acctService(t)
	acct, sys := acctAccount(t, svc, "acme")
	res, err := svc.Create(ctx, sys, "users", &engine.Input{Attrs: attrs("name", `"Ivy"`, "email", `"ivy@acme.test"`)}, engine.Options{})
	require.NoError(t, err)
	ivy := res.Records[0]
	token := res.Meta[scoping.InvitationMeta].(string)
	require.True(t, strings.HasPrefix(token, acct.ID+"."+ivy.ID+"."), token)

	inv, err := svc.Invitation(ctx, token)
	require.NoError(t, err)
	require.Equal(t, scoping.Invitee{UserID: ivy.ID, AccountID: acct.ID, Email: "ivy@acme.test", AccountName: "Acme", AccountSlug: "acme"}, *inv)

	parts := strings.Split(token, ".")
	for _, bad := range []string{
		"", "x", strings.Repeat("a", 300), parts[0] + "." + parts[1], parts[0] + "." + parts[1] + ".", "." + parts[1] + "." + parts[2],
		parts[0] + "." + parts[1] + "." + parts[2] + ".x", "999." + parts[1] + "." + parts[2], parts[0] + ".999." + parts[2],
		parts[0] + "." + parts[1] + "." + strings.ToUpper(parts[2]),
	} {
		_, err := svc.Invitation(ctx, bad)
		require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err), "%q", bad)
		_, err = svc.AcceptInvitation(ctx, bad)
		require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err), "%q", bad)
	}

	// a deactivated membership's invitation does not work
	_, err = svc.Update(ctx, sys, "users", ivy.ID, &engine.Input{Attrs: attrs("active", `false`)}, engine.Options{})
	require.NoError(t, err)
	_, err = svc.Invitation(ctx, token)
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))
	_, err = svc.Update(ctx, sys, "users", ivy.ID, &engine.Input{Attrs: attrs("active", `true`)}, engine.Options{})
	require.NoError(t, err)

	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = svc.AcceptInvitation(ctx, token)
		}()
	}
	wg.Wait()
	won := 0
	for _, err := range errs {
		if err == nil {
			won++
		} else {
			require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))
		}
	}
	require.Equal(t, 1, won)
	got, err := svc.Get(ctx, sys, "users", ivy.ID, engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	require.Equal(t, "active", got.Records[0].Str("status"))
	_, err = svc.Invitation(ctx, token)
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err), "an accepted token stops working")
	actor, err := svc.ActorForAccount(ctx, ivy.ID, acct.ID)
	require.NoError(t, err)
	require.Equal(t, "view", actor.Level("projects"), "Read Only by default")

	// archiving an accepted member and restoring it does not invite again
	_, err = svc.Update(ctx, sys, "users", ivy.ID, &engine.Input{Attrs: attrs("active", `false`)}, engine.Options{})
	require.NoError(t, err)
	res, err = svc.Update(ctx, sys, "users", ivy.ID, &engine.Input{Attrs: attrs("active", `true`)}, engine.Options{})
	require.NoError(t, err)
	require.Equal(t, "active", res.Records[0].Str("status"))
}

// Ensure the directory finds users by email across accounts, answers a
// membership's status, and reports the users version of a versioned store
// only.
func TestAccountsDirectory(t *testing.T) {
	ctx := context.Background()
	svc, db := acctService(t)
	acct, sys := acctAccount(t, svc, "acme")
	dir := scoping.Directory(db)
	v0, ok := dir.(interface{ Version() (uint64, bool) }).Version()
	require.True(t, ok)

	_, err := dir.UserByEmail(ctx, "ann@acme.test")
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))
	ann := acctMember(t, svc, acct.ID, "ann@acme.test", "Sales")
	bot := acctCreate(t, svc, sys, "users", attrs("name", `"Bot"`, "email", `"bot@acme.test"`, "user-type", `"service"`), nil)
	v1, _ := dir.(interface{ Version() (uint64, bool) }).Version()
	require.NotEqual(t, v0, v1, "a new membership changes the version")

	subj, err := dir.UserByEmail(ctx, "ann@acme.test")
	require.NoError(t, err)
	require.Equal(t, ann.UserID, subj.UserID)
	require.Equal(t, "ann@acme.test", subj.Email)
	require.False(t, subj.Service)
	subj, err = dir.UserByEmail(ctx, "bot@acme.test")
	require.NoError(t, err)
	require.True(t, subj.Service)
	require.Equal(t, bot.ID, subj.UserID)

	m, err := dir.Membership(ctx, bot.ID, acct.ID)
	require.NoError(t, err)
	require.Equal(t, "active", m.Status)
	require.True(t, m.Service)
	require.True(t, m.RevokedAt.IsZero())
	require.Equal(t, acct.ID, m.AccountID)
	globex, _ := acctAccount(t, svc, "globex")
	_, err = dir.Membership(ctx, bot.ID, globex.ID)
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err), "no membership in another account")

	_, ok = scoping.Directory(unversioned{db}).(interface{ Version() (uint64, bool) }).Version()
	require.False(t, ok)
}

// Ensure an account administrator (settings manage) turns mfa-required
// on and off, nothing else of the account, and that the directory
// reports it to auth (auth.MFAPolicy).
func TestAccountsMFARequired(t *testing.T) {
	ctx := context.Background()
	svc, db := acctService(t)
	acct, admin := acctAccount(t, svc, "acme")
	other, _ := acctAccount(t, svc, "globex")
	policy := scoping.Directory(db).(auth.MFAPolicy)
	required := func(id string) bool {
		t.Helper()
		r, err := policy.MFARequired(ctx, id)
		require.NoError(t, err)
		return r
	}
	require.False(t, required(acct.ID), "off by default")
	for _, c := range []struct {
		in          *engine.Input
		code, field string
	}{
		{&engine.Input{Attrs: attrs("name", `"Acme 2"`)}, scopekit.EBADREQUEST, "/data/attributes/name"},
		{&engine.Input{Rels: map[string]engine.RelInput{"roles": {ToMany: true}}}, scopekit.EBADREQUEST, "/data/relationships"},
		{&engine.Input{Attrs: attrs("mfa-required", `null`)}, scopekit.EINVALID, "/data/attributes/mfa-required"},
		{&engine.Input{Attrs: attrs("mfa-required", `"yes"`)}, scopekit.EBADREQUEST, "/data/attributes/mfa-required"},
	} {
		_, err := svc.UpdateAccount(ctx, admin, c.in)
		require.Equal(t, c.code, scopekit.ErrorCode(err), "%v", err)
		require.Equal(t, c.field, scopekit.List(err)[0].Field)
	}
	res, err := svc.UpdateAccount(ctx, admin, &engine.Input{Attrs: attrs("mfa-required", `true`)})
	require.NoError(t, err)
	require.Equal(t, true, res.Records[0].Attrs["mfa-required"])
	require.Equal(t, "acme", res.Records[0].Str("slug"))
	require.True(t, required(acct.ID))
	require.False(t, required(other.ID))

	sales := acctMember(t, svc, acct.ID, "sid@acme.test", "Sales") // settings view
	_, err = svc.UpdateAccount(ctx, sales, &engine.Input{Attrs: attrs("mfa-required", `false`)})
	require.Equal(t, scopekit.EFORBIDDEN, scopekit.ErrorCode(err))
	_, err = svc.UpdateAccount(ctx, admin, &engine.Input{Attrs: attrs("mfa-required", `false`)})
	require.NoError(t, err)
	require.False(t, required(acct.ID))
	_, err = policy.MFARequired(ctx, "999")
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))
}

// passwordsSeen is an auth stand-in that refuses the password "refused"
// and records the others it stored.
type passwordsSeen struct {
	mu  sync.Mutex
	set map[string]string
}

func (p *passwordsSeen) PreparePassword(_ context.Context, _, password string) (bool, error) {
	if password == "refused" {
		return false, scopekit.FieldErrorf(scopekit.EINVALID, "password", "refused")
	}
	return true, nil
}

func (p *passwordsSeen) SetPassword(_ context.Context, userID, password string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.set[userID] = password
	return nil
}

func (p *passwordsSeen) get(userID string) (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pw, ok := p.set[userID]
	return pw, ok
}

// Ensure accepting with a password checks the token before the password
// is established, leaves the invitation pending when the password is
// refused, and accepts it once.
func TestAcceptInvitationWithPassword(t *testing.T) {
	ctx := context.Background()
	svc, _ := acctService(t)
	_, sys := acctAccount(t, svc, "acme")
	res, err := svc.Create(ctx, sys, "users", &engine.Input{Attrs: attrs("name", `"Ivy"`, "email", `"ivy@acme.test"`)}, engine.Options{})
	require.NoError(t, err)
	ivy, token := res.Records[0].ID, res.Meta[scoping.InvitationMeta].(string)
	seen := &passwordsSeen{set: map[string]string{}}

	_, err = svc.AcceptInvitationWithPassword(ctx, seen, token+"x", "a good password")
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))
	require.Empty(t, seen.set, "no password for a token that names nothing")
	_, err = svc.AcceptInvitationWithPassword(ctx, seen, token, "refused")
	require.Equal(t, scopekit.EINVALID, scopekit.ErrorCode(err))
	_, err = svc.Invitation(ctx, token)
	require.NoError(t, err, "still pending")

	inv, err := svc.AcceptInvitationWithPassword(ctx, seen, token, "a good password")
	require.NoError(t, err)
	require.Equal(t, "acme", inv.AccountSlug)
	pw, _ := seen.get(ivy)
	require.Equal(t, "a good password", pw)
	_, err = svc.AcceptInvitationWithPassword(ctx, seen, token, "another password")
	require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err), "used")
	pw, _ = seen.get(ivy)
	require.Equal(t, "a good password", pw)
}

// Ensure accepts of one invitation at once store one password, the one
// of the accept that was answered as accepted: the others are ENOTFOUND
// and store nothing.
func TestAcceptInvitationRace(t *testing.T) {
	ctx := context.Background()
	svc, _ := acctService(t)
	_, sys := acctAccount(t, svc, "acme")
	res, err := svc.Create(ctx, sys, "users", &engine.Input{Attrs: attrs("name", `"Rae"`, "email", `"rae@acme.test"`)}, engine.Options{})
	require.NoError(t, err)
	rae, token := res.Records[0].ID, res.Meta[scoping.InvitationMeta].(string)
	seen := &passwordsSeen{set: map[string]string{}}
	const n = 8
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = svc.AcceptInvitationWithPassword(ctx, seen, token, fmt.Sprintf("password number %d", i))
		}()
	}
	wg.Wait()
	winners := 0
	for i, err := range errs {
		if err == nil {
			winners++
			pw, ok := seen.get(rae)
			require.True(t, ok)
			require.Equal(t, fmt.Sprintf("password number %d", i), pw, "the stored password is the accepted one's")
			continue
		}
		require.Equal(t, scopekit.ENOTFOUND, scopekit.ErrorCode(err))
	}
	require.Equal(t, 1, winners)
}
