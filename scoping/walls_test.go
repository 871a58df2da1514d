package scoping_test

import (
	"context"
	"strings"
	"testing"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/stretchr/testify/require"
)

// The rules of docs/auth.md "Accounts are walls" that are the domain's:
// no one grants more than they hold, what belongs to the person changes
// from one account only, and emails are one address.

// wallsRole creates a role with the permissions (and visibility) given,
// as the account's system actor.
func wallsRole(t *testing.T, svc *scoping.Service, sys *engine.Actor, name, perms, visibility string) *engine.Record {
	t.Helper()
	return acctCreate(t, svc, sys, "roles", attrs("name", `"`+name+`"`, "permissions", perms, "project-visibility", `"`+visibility+`"`), nil)
}

func roleRel(id string) map[string]engine.RelInput {
	return map[string]engine.RelInput{"roles": {ToMany: true, Refs: []engine.Ref{{Type: "roles", ID: id}}}}
}

// Ensure a role written, the role given to a user (create and update)
// and an identity provider's default role are refused with EFORBIDDEN
// when they exceed the writer's own permissions or visibility, that
// identity providers need users manage besides settings manage, and that
// what stays within the writer's permissions is accepted.
func TestWallsGrantCeiling(t *testing.T) {
	ctx := context.Background()
	svc, _, acme, _, sys := ssoService(t)
	roles := acctRoles(t, svc, sys)
	wallsRole(t, svc, sys, "HR", `{"users":"manage"}`, "all")
	wallsRole(t, svc, sys, "Assigned HR", `{"users":"manage"}`, "assigned")
	wallsRole(t, svc, sys, "Settings", `{"settings":"manage"}`, "all")
	wallsRole(t, svc, sys, "Keeper", `{"settings":"manage","users":"manage"}`, "all")
	clerk := wallsRole(t, svc, sys, "Clerk", `{"users":"view"}`, "assigned")
	hr := acctMember(t, svc, acme.ID, "hr@acme.test", "HR")
	assigned := acctMember(t, svc, acme.ID, "ahr@acme.test", "Assigned HR")
	settings := acctMember(t, svc, acme.ID, "set@acme.test", "Settings")
	keeper := acctMember(t, svc, acme.ID, "keep@acme.test", "Keeper")
	admin := acctMember(t, svc, acme.ID, "admin@acme.test", "Account Admin")
	forbidden := func(err error, text string) {
		t.Helper()
		acctRequireErr(t, err, scopekit.EFORBIDDEN, "", text)
	}

	// roles
	_, err := svc.Create(ctx, hr, "roles", &engine.Input{Attrs: attrs("name", `"Boss"`, "permissions", `{"users":"manage","projects":"view"}`)}, engine.Options{})
	forbidden(err, "projects view, more than your own (none)")
	_, err = svc.Create(ctx, assigned, "roles", &engine.Input{Attrs: attrs("name", `"Wide"`, "permissions", `{"users":"view"}`, "project-visibility", `"all"`)}, engine.Options{})
	forbidden(err, "sees every project")
	_, err = svc.Update(ctx, hr, "roles", clerk.ID, &engine.Input{Attrs: attrs("permissions", `{"users":"manage","settings":"view"}`)}, engine.Options{})
	forbidden(err, "settings view")
	_, err = svc.Update(ctx, hr, "roles", roles["Account Admin"].ID, &engine.Input{Attrs: attrs("name", `"Admins"`)}, engine.Options{})
	forbidden(err, "more than your own")
	peer := acctCreate(t, svc, hr, "roles", attrs("name", `"Peer"`, "permissions", `{"users":"manage"}`), nil)
	acctCreate(t, svc, assigned, "roles", attrs("name", `"Narrow"`, "permissions", `{"users":"view"}`, "project-visibility", `"assigned"`), nil)

	// a user's role, on create (the Read Only default included) and update
	_, err = svc.Create(ctx, hr, "users", &engine.Input{Attrs: attrs("name", `"Mal"`, "email", `"mal@acme.test"`), Rels: roleRel(roles["Account Admin"].ID)}, engine.Options{})
	forbidden(err, `role "Account Admin"`)
	_, err = svc.Create(ctx, hr, "users", &engine.Input{Attrs: attrs("name", `"Mal"`, "email", `"mal@acme.test"`)}, engine.Options{})
	forbidden(err, `role "Read Only"`)
	mal := acctCreate(t, svc, hr, "users", attrs("name", `"Mal"`, "email", `"mal@acme.test"`), roleRel(peer.ID))
	_, err = svc.Update(ctx, hr, "users", mal.ID, &engine.Input{Rels: roleRel(roles["Account Admin"].ID)}, engine.Options{})
	forbidden(err, `role "Account Admin"`)
	_, err = svc.Update(ctx, hr, "users", hr.UserID, &engine.Input{Rels: roleRel(roles["Account Admin"].ID)}, engine.Options{})
	forbidden(err, "no one grants more than they hold")
	_, err = svc.Update(ctx, hr, "users", mal.ID, &engine.Input{Attrs: attrs("title", `"Clerk"`), Rels: roleRel(clerk.ID)}, engine.Options{})
	require.NoError(t, err, "a lesser role, and an edit that gives no role")

	// identity providers: settings manage alone cannot write them; with
	// users manage too they still cannot (a provider signs in any member
	// of its domains, so its writer holds what no member can exceed); the
	// Account Admin can, with any default role
	_, err = svc.Create(ctx, settings, "identity-providers", &engine.Input{Attrs: idpAttrs(), Rels: map[string]engine.RelInput{"default-role": rel("roles", roles["Account Admin"].ID)}}, engine.Options{})
	forbidden(err, "users permission at manage level")
	_, err = svc.Create(ctx, keeper, "identity-providers", &engine.Input{Attrs: idpAttrs(), Rels: map[string]engine.RelInput{"default-role": rel("roles", clerk.ID)}}, engine.Options{})
	forbidden(err, "writing one needs as much as every role of the account")
	idp := acctCreate(t, svc, admin, "identity-providers", idpAttrs(), map[string]engine.RelInput{"default-role": rel("roles", clerk.ID)})
	forbidden(idpUpdate(svc, keeper, idp.ID, nil, map[string]engine.RelInput{"default-role": rel("roles", roles["Sales"].ID)}), "writing one needs as much as every role")
	forbidden(idpUpdate(svc, keeper, idp.ID, attrs("active", "false"), nil), "writing one needs as much as every role")
	forbidden(svc.Delete(ctx, keeper, "identity-providers", idp.ID, engine.Options{}), "writing one needs as much as every role")
	require.NoError(t, idpUpdate(svc, admin, idp.ID, nil, map[string]engine.RelInput{"default-role": rel("roles", roles["Account Admin"].ID)}),
		"the Account Admin holds every permission")
	_, err = svc.Get(ctx, settings, "identity-providers", idp.ID, engine.ListParams{}, engine.Options{})
	require.NoError(t, err, "reading them needs settings view only")
}

// Ensure no one manages what holds more than they do: a role with users
// manage cannot change an Account Admin's email, name or role, deactivate
// them, reset their second factor or issue their credentials, nor change
// or delete a role that holds more than its own (EFORBIDDEN naming the
// rule, and the records unchanged), while it still
// manages its equals and lessers, themselves included, and the Account
// Admin manages everyone.
func TestWallsMemberCeiling(t *testing.T) {
	ctx := context.Background()
	svc, _, acme, _, sys := ssoService(t)
	wallsRole(t, svc, sys, "HR", `{"users":"manage"}`, "all")
	hr := acctMember(t, svc, acme.ID, "hr@acme.test", "HR")
	hr2 := acctMember(t, svc, acme.ID, "hr2@acme.test", "HR")
	admin := acctMember(t, svc, acme.ID, "admin@acme.test", "Account Admin")
	wallsRole(t, svc, sys, "Clerk", `{"users":"view"}`, "assigned")
	reader := acctMember(t, svc, acme.ID, "reader@acme.test", "Clerk")
	roles := acctRoles(t, svc, sys)
	before, err := svc.Get(ctx, sys, "users", admin.UserID, engine.ListParams{}, engine.Options{})
	require.NoError(t, err)

	for name, write := range map[string]func(id string) error{
		"email": func(id string) error {
			_, err := svc.Update(ctx, hr, "users", id, &engine.Input{Attrs: attrs("email", `"mal@evil.test"`)}, engine.Options{})
			return err
		},
		"name": func(id string) error {
			_, err := svc.Update(ctx, hr, "users", id, &engine.Input{Attrs: attrs("name", `"Renamed"`)}, engine.Options{})
			return err
		},
		"role": func(id string) error {
			_, err := svc.Update(ctx, hr, "users", id, &engine.Input{Rels: roleRel(roles["HR"].ID)}, engine.Options{})
			return err
		},
		"deactivate": func(id string) error {
			return svc.Delete(ctx, hr, "users", id, engine.Options{})
		},
		"second factor and credentials": func(id string) error {
			return svc.CheckPersonChange(ctx, hr, id)
		},
	} {
		t.Run(name, func(t *testing.T) {
			acctRequireErr(t, write(admin.UserID), scopekit.EFORBIDDEN, "",
				`this user's role "Account Admin" has`)
			require.ErrorContains(t, write(admin.UserID), "no one manages what holds more than they do")
		})
	}
	after, err := svc.Get(ctx, sys, "users", admin.UserID, engine.ListParams{}, engine.Options{})
	require.NoError(t, err)
	require.Equal(t, before.Records[0].Attrs, after.Records[0].Attrs, "the Account Admin is unchanged")
	require.Equal(t, before.Records[0].Rels, after.Records[0].Rels)

	// nor the role they hold: emptying it would demote every Account
	// Admin at once; nor any role that holds more, nor delete one
	unheld := wallsRole(t, svc, sys, "Unheld", `{"projects":"manage"}`, "all")
	roles = acctRoles(t, svc, sys)
	for _, role := range []string{"Account Admin", "Sales"} {
		_, err = svc.Update(ctx, hr, "roles", roles[role].ID, &engine.Input{Attrs: attrs("permissions", `{}`, "project-visibility", `"assigned"`)}, engine.Options{})
		acctRequireErr(t, err, scopekit.EFORBIDDEN, "", `role "`+role+`" has`)
		require.ErrorContains(t, err, "no one manages what holds more than they do")
	}
	acctRequireErr(t, svc.Delete(ctx, hr, "roles", unheld.ID, engine.Options{}), scopekit.EFORBIDDEN, "", `role "Unheld" has projects manage`)
	now := acctRoles(t, svc, sys)
	for _, role := range []string{"Account Admin", "Sales", "Unheld"} {
		require.Equal(t, roles[role].Attrs, now[role].Attrs, "%s unchanged", role)
	}
	_, err = svc.Update(ctx, hr, "roles", roles["Clerk"].ID, &engine.Input{Attrs: attrs("permissions", `{}`)}, engine.Options{})
	require.NoError(t, err, "a lesser role")
	_, err = svc.Update(ctx, hr, "roles", roles["Clerk"].ID, &engine.Input{Attrs: attrs("permissions", `{"users":"view"}`)}, engine.Options{})
	require.NoError(t, err)

	// equals, lessers and oneself
	_, err = svc.Update(ctx, hr, "users", hr2.UserID, &engine.Input{Attrs: attrs("title", `"Peer"`)}, engine.Options{})
	require.NoError(t, err, "an equal")
	_, err = svc.Update(ctx, hr, "users", reader.UserID, &engine.Input{Attrs: attrs("email", `"reader2@acme.test"`)}, engine.Options{})
	require.NoError(t, err, "a lesser")
	require.NoError(t, svc.CheckPersonChange(ctx, hr, reader.UserID))
	_, err = svc.Update(ctx, hr, "users", hr.UserID, &engine.Input{Attrs: attrs("title", `"Me"`)}, engine.Options{})
	require.NoError(t, err, "oneself")
	require.NoError(t, svc.Delete(ctx, hr, "users", reader.UserID, engine.Options{}))
	// the Account Admin holds every permission
	_, err = svc.Update(ctx, admin, "users", hr.UserID, &engine.Input{Rels: roleRel(roles["Clerk"].ID)}, engine.Options{})
	require.NoError(t, err)
	// hr, now a Clerk, manages no one
	hr, err = svc.ActorForAccount(ctx, hr.UserID, acme.ID)
	require.NoError(t, err)
	_, err = svc.Update(ctx, hr, "users", hr2.UserID, &engine.Input{Attrs: attrs("title", `"Again"`)}, engine.Options{})
	require.Error(t, err)
}

// Ensure what belongs to the person changes from one account only while
// the person is a member of no other (ECONFLICT naming how many, not
// which): converting to a service account, the checks before a second
// factor's reset and service credentials; and that a service account is
// a user of one account (neither joined nor restored beside another
// membership).
func TestWallsPersonRule(t *testing.T) {
	ctx := context.Background()
	svc, _ := acctService(t)
	acme, acmeSys := acctAccount(t, svc, "acme")
	globex, globexSys := acctAccount(t, svc, "globex")
	ann := acctMember(t, svc, acme.ID, "ann@shared.test", "Sales")
	acctMember(t, svc, globex.ID, "ann@shared.test", "Sales")
	acmeAdmin := acctMember(t, svc, acme.ID, "admin@acme.test", "Account Admin")
	conflict := func(err error) {
		t.Helper()
		acctRequireErr(t, err, scopekit.ECONFLICT, "", "member of 1 other account(s)")
		require.NotContains(t, err.Error(), "globex")
		require.NotContains(t, err.Error(), "acme")
	}

	convert := &engine.Input{Attrs: attrs("user-type", `"service"`), Meta: map[string]any{"confirm": true}}
	_, err := svc.Update(ctx, acmeSys, "users", ann.UserID, convert, engine.Options{})
	conflict(err)
	conflict(svc.CheckPersonChange(ctx, acmeAdmin, ann.UserID))
	acctRequireErr(t, svc.CheckPersonChange(ctx, ann, ann.UserID), scopekit.EFORBIDDEN, "", "users")
	acctRequireErr(t, svc.CheckPersonChange(ctx, acmeAdmin, "999999"), scopekit.ENOTFOUND, "", "")

	// globex lets the person go: acme alone may change them now
	_, err = svc.Update(ctx, globexSys, "users", ann.UserID, &engine.Input{Attrs: attrs("active", "false")}, engine.Options{})
	require.NoError(t, err)
	require.NoError(t, svc.CheckPersonChange(ctx, acmeAdmin, ann.UserID))
	_, err = svc.Update(ctx, acmeSys, "users", ann.UserID, convert, engine.Options{})
	require.NoError(t, err)

	// a service account is a user of one account
	_, err = svc.Update(ctx, globexSys, "users", ann.UserID, &engine.Input{Attrs: attrs("active", "true")}, engine.Options{})
	acctRequireErr(t, err, scopekit.ECONFLICT, "", "a user of one account")
	_, err = svc.Create(ctx, globexSys, "users", &engine.Input{Attrs: attrs("name", `"Bot"`, "email", `"bot@acme.test"`, "user-type", `"service"`)}, engine.Options{})
	require.NoError(t, err, "globex's own bot")
	_, err = svc.Create(ctx, acmeSys, "users", &engine.Input{Attrs: attrs("name", `"Bot"`, "email", `"bot@acme.test"`)}, engine.Options{})
	acctRequireErr(t, err, scopekit.ECONFLICT, "", "a user of one account")
	// deactivated, it is still one account's: another account's create
	// is refused, never turned into a service account of its own
	bots, err := svc.List(ctx, globexSys, "users", engine.ListParams{PageSize: 1, PageNumber: 1, Filters: map[string]string{"email": "bot@acme.test"}}, engine.Options{})
	require.NoError(t, err)
	require.NoError(t, svc.Delete(ctx, globexSys, "users", bots.Records[0].ID, engine.Options{}))
	for _, typ := range []string{"standard", "service"} {
		_, err = svc.Create(ctx, acmeSys, "users", &engine.Input{Attrs: attrs("name", `"Bot"`, "email", `"bot@acme.test"`, "user-type", `"`+typ+`"`)}, engine.Options{})
		acctRequireErr(t, err, scopekit.ECONFLICT, "", "a service account's in another account")
	}
	n, err := svc.List(ctx, acmeSys, "users", engine.ListParams{PageSize: 1, PageNumber: 1, Filters: map[string]string{"email": "bot@acme.test"}}, engine.Options{})
	require.NoError(t, err)
	require.Empty(t, n.Records, "nothing created")
}

// Ensure an email is one RFC 5322 address of at most 254 bytes without
// control characters, and a name at most 200 characters, on the API's
// writes (422 naming the field) and the operator's.
func TestWallsEmails(t *testing.T) {
	ctx := context.Background()
	for _, ok := range []string{"ann@example.com", "a.b+c@sub.example.co", strings.Repeat("a", 64) + "@" + strings.Repeat("b", 180) + ".example"} {
		require.NoError(t, scoping.CheckEmail(ok), ok)
	}
	for _, bad := range []string{"a@b@evil.test", "ann@example.com\r\nBcc: eve@evil.test", "ann\x00@example.com", "ann@exa\tmple.com",
		"Ann <ann@example.com>", "ann@example.com, bob@example.com", "ann@example.com (Ann)", " ann@example.com", "ann", "",
		strings.Repeat("a", 64) + "@" + strings.Repeat("b", 190) + ".example", "ann@example.com\u0085"} {
		err := scoping.CheckEmail(bad)
		acctRequireErr(t, err, scopekit.EINVALID, "/data/attributes/email", "email")
	}

	svc, _ := acctService(t)
	acme, sys := acctAccount(t, svc, "acme")
	_, err := svc.Create(ctx, sys, "users", &engine.Input{Attrs: attrs("name", `"Eve"`, "email", `"eve@a.test\r\nBcc: x@evil.test"`)}, engine.Options{})
	acctRequireErr(t, err, scopekit.EINVALID, "/data/attributes/email", "control character")
	_, err = svc.Create(ctx, sys, "users", &engine.Input{Attrs: attrs("name", `"`+strings.Repeat("n", scoping.MaxNameChars+1)+`"`, "email", `"eve@a.test"`)}, engine.Options{})
	acctRequireErr(t, err, scopekit.EINVALID, "/data/attributes/name", "at most 200")
	acctCreate(t, svc, sys, "users", attrs("name", `"`+strings.Repeat("n", scoping.MaxNameChars)+`"`, "email", `"eve@a.test"`), nil)
	err = svc.Setup(ctx, func(a *scoping.Admin) error {
		_, err := a.EnsureMember(acme.ID, scoping.Member{Email: "a@b@evil.test", Name: "Mal", Role: "Sales"})
		return err
	})
	require.Equal(t, scopekit.EINVALID, scopekit.ErrorCode(err), "%v", err)
}

// revocations records what RevokeRefreshTokens was asked.
type revocations struct{ calls []string }

func (r *revocations) RevokeRefreshTokens(_ context.Context, accountID string, userIDs []string, passwordsOff bool) (int, error) {
	r.calls = append(r.calls, strings.Join([]string{accountID, strings.Join(userIDs, ","), map[bool]string{true: "passwords-off", false: "no-mfa"}[passwordsOff]}, "|"))
	return len(userIDs), nil
}

// Ensure tightening an account's sign-in policy revokes, after the
// commit, the refresh tokens it no longer admits: mfa-required turned on
// (those of every user without a second factor), an identity provider
// taking its domains away from passwords (those of the members whose
// email it covers), and that a write that tightens nothing revokes
// nothing.
func TestWallsPolicyRevokes(t *testing.T) {
	ctx := context.Background()
	svc, _, acme, _, sys := ssoService(t)
	rev := &revocations{}
	svc.SignIns = rev
	admin := acctMember(t, svc, acme.ID, "admin@acme.test", "Account Admin")
	ann := acctMember(t, svc, acme.ID, "ann@acme.test", "Sales")
	bob := acctMember(t, svc, acme.ID, "bob@elsewhere.test", "Sales")

	set := func(v string) {
		_, err := svc.UpdateAccount(ctx, admin, &engine.Input{Attrs: attrs("mfa-required", v)})
		require.NoError(t, err)
	}
	set("true")
	set("true")
	require.Equal(t, []string{acme.ID + "||no-mfa"}, rev.calls, "on once; again changes nothing")
	set("false")
	require.Len(t, rev.calls, 1)

	rev.calls = nil
	idp := acctCreate(t, svc, sys, "identity-providers", idpAttrs("passwords-allowed", "true"), nil)
	require.Empty(t, rev.calls)
	require.NoError(t, idpUpdate(svc, sys, idp.ID, attrs("passwords-allowed", "false"), nil))
	require.Equal(t, []string{acme.ID + "|" + admin.UserID + "," + ann.UserID + "|passwords-off"}, rev.calls)
	require.NoError(t, idpUpdate(svc, sys, idp.ID, attrs("name", `"Renamed"`), nil))
	require.NoError(t, idpUpdate(svc, sys, idp.ID, attrs("email-domains", `["acme.test","elsewhere.test"]`), nil))
	require.Len(t, rev.calls, 2, "a new domain: its members only")
	require.Equal(t, acme.ID+"|"+bob.UserID+"|passwords-off", rev.calls[1])
}
