package scoping

import (
	"context"
	"slices"
	"strings"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
)

// What belongs to the person, not the membership (docs/auth.md "Accounts
// are walls", rule 4): the email (the key of the identity across
// accounts), being a service account, and in auth the password, second
// factor, recovery codes and service credentials. One account changes
// them only while the person has no other membership that is not
// deactivated; otherwise it would change them in accounts it has no say
// in. The rest of a users record (name, title, phone, role, status) is
// the membership's own.

// personAttrs are the attributes of a users record that are the
// person's: kept equal in every membership of the identity.
var personAttrs = []string{views.NameEmail, views.NameUserType}

// Which other memberships count, for what (memberships): a membership
// is active (neither deactivated nor revoked), pending (invited, not
// accepted yet) or accepted (the person took it: active, or deactivated
// since and restorable).
var (
	// activeElsewhere are active memberships, accepted or pending: a
	// service account is a user of one account, and a pending invitation
	// would make it a member of two.
	activeElsewhere = func(m *engine.Record) bool { return m.Active() }
	// joinedElsewhere are active memberships the person accepted: what
	// belongs to the person (email, second factor, credentials) changes
	// from one account only while it has none of these elsewhere. A
	// pending invitation from another account does not take that away
	// from the account the person belongs to.
	joinedElsewhere = func(m *engine.Record) bool { return m.Active() && m.Bool(acceptedAttr) }
	// everJoinedElsewhere are memberships the person accepted, deactivated
	// ones included (they may be restored): an invitation gives no new
	// password to a person who has one of these.
	everJoinedElsewhere = func(m *engine.Record) bool { return m.Bool(acceptedAttr) }
)

// otherMemberships counts the person's memberships in accounts other
// than accountID that count (one of the predicates above).
func otherMemberships(tx engine.Tx, userID, accountID string, counts func(*engine.Record) bool) (int, error) {
	all, _, err := tx.List(&engine.Query{Type: views.TypeUsers, AllAccounts: true, Where: []engine.Cond{engine.Eq("id", userID)}})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, m := range all {
		if m.AccountID != accountID && counts(m) {
			n++
		}
	}
	return n, nil
}

// emailDomainOfAnother is ECONFLICT when the email's domain is verified
// by an account other than accountID, saying so and then what follows
// (then): that account's people (their email, their password) are that
// account's to manage. A failure to read is returned as it is.
func emailDomainOfAnother(tx engine.Tx, email, accountID, then string) error {
	at := strings.LastIndexByte(email, '@')
	if at < 0 {
		return nil
	}
	err := domainFree(tx, normalDomain(email[at+1:]), accountID)
	if scopekit.ErrorCode(err) != scopekit.ECONFLICT {
		return err
	}
	return scopekit.Errorf(scopekit.ECONFLICT, "%s: %s", scopekit.List(err)[0].Message, then)
}

// passwordFromHere is nil when an invitation to accountID may give the
// person userID with email a new password, ECONFLICT otherwise: not to a
// person who has joined another account (active or deactivated: whoever
// holds this invitation's link, the inviter included, would sign in there
// as them), nor to an email of a domain another account has verified
// (its people sign in there, by its single sign-on, and would find this
// password waiting).
func (s *Service) passwordFromHere(ctx context.Context, userID, email, accountID string) error {
	return s.eng.Store().View(ctx, func(tx engine.Tx) error {
		n, err := otherMemberships(tx, userID, accountID, everJoinedElsewhere)
		if err != nil {
			return err
		}
		if n > 0 {
			return scopekit.Errorf(scopekit.ECONFLICT,
				"this email belongs to a person of another account who has no password (they sign in there by single sign-on): an invitation cannot give them one; invite another email address")
		}
		return emailDomainOfAnother(tx, email, accountID,
			"its people get no password from another account's invitation; invite another email address")
	})
}

// errSharedPerson is the refusal of a change to the person while it is a
// member of n other accounts: it names how many, never which.
func errSharedPerson(n int, what string) error {
	return scopekit.Errorf(scopekit.ECONFLICT,
		"this person is also a member of %d other account(s): %s can change only while they are a member of this account alone", n, what)
}

// personRule applies the rule to a users write (old is nil on create):
// the email and user-type change only while the person has no other
// membership; a service account is a user of one account, so an active
// membership of one is refused while another exists; and an email that
// is another person's cannot be taken.
func personRule(c *engine.Call, rec, old *engine.Record) error {
	u := views.User{Record: rec}
	others := func(counts func(*engine.Record) bool) (int, error) {
		return otherMemberships(c.Tx, rec.ID, rec.AccountID, counts)
	}
	if old != nil && slices.ContainsFunc(personAttrs, func(a string) bool { return rec.Attrs[a] != old.Attrs[a] }) {
		if n, err := others(joinedElsewhere); err != nil || n > 0 {
			return firstErr(err, errSharedPerson(n, "their email and user-type"))
		}
		if err := emailOfAnother(c, rec); err != nil {
			return err
		}
		if u.Email() != (views.User{Record: old}).Email() {
			// neither into nor out of a domain another account verified
			for _, e := range []string{(views.User{Record: old}).Email(), u.Email()} {
				if err := emailDomainOfAnother(c.Tx, e, rec.AccountID, "the email of its people changes only there"); err != nil {
					return err
				}
			}
		}
	}
	becomesService := u.UserType() == "service" && rec.Active() &&
		(old == nil || !old.Active() || (views.User{Record: old}).UserType() != "service")
	if becomesService && rec.ID != "" {
		if n, err := others(activeElsewhere); err != nil || n > 0 {
			return firstErr(err, errSharedPerson(n, "being a service account (a user of one account)"))
		}
	}
	if becomesService {
		// a service account with an email of another account's domain
		// would take the address from that account's people
		if err := emailDomainOfAnother(c.Tx, u.Email(), rec.AccountID, "a service account's email is not of its domain"); err != nil {
			return err
		}
	}
	return nil
}

// emailOfAnother refuses an email that is another identity's.
func emailOfAnother(c *engine.Call, rec *engine.Record) error {
	email := (views.User{Record: rec}).Email()
	if email == "" {
		return nil
	}
	found, _, err := c.Tx.List(&engine.Query{Type: views.TypeUsers, AllAccounts: true, Where: []engine.Cond{engine.Eq(views.NameEmail, email)}})
	if err != nil {
		return err
	}
	for _, f := range found {
		if f.ID != rec.ID {
			return engine.Invalid(engine.AttrPointer(views.NameEmail), "email %s is another person's", email)
		}
	}
	return nil
}

func firstErr(err, otherwise error) error {
	if err != nil {
		return err
	}
	return otherwise
}

// CheckManages reports whether actor a may change the record typ/id of
// its account at all (docs/auth.md "No one manages what holds more"):
// EFORBIDDEN without the type's write permissions, for a member or a role
// that holds more than a's own, and for an identity provider unless a
// holds as much as every role of the account; ENOTFOUND when there is no
// such record. With id "", it says whether a may create one: EFORBIDDEN
// for an identity provider or a verified domain unless a holds as much as
// every role. The workspace asks it to show such a record read-only, and
// to offer no form it would refuse.
func (s *Service) CheckManages(ctx context.Context, a *engine.Actor, typ, id string) error {
	def, ok := s.Schema().Lookup(typ)
	if !ok {
		return scopekit.Errorf(scopekit.ENOTFOUND, "no resource type %q", typ)
	}
	if err := a.RequireWrite(def); err != nil {
		return err
	}
	return s.eng.Read(ctx, a, engine.Options{}, func(c *engine.Call) error {
		var rec *engine.Record
		if id != "" {
			var err error
			if rec, err = c.Tx.Get(typ, a.AccountID(), id); err != nil {
				return err
			}
		}
		switch {
		case typ == views.TypeUsers && rec != nil:
			return memberCeiling(c.Tx, a, rec)
		case typ == views.TypeRoles && rec != nil:
			return ceilingError(a, rec, "role", ruleManage)
		}
		switch typ {
		case views.TypeIdentityProviders:
			return atTop(c, whyProviders)
		case views.TypeVerifiedDomains:
			return atTop(c, whyDomains)
		}
		return nil
	})
}

// CheckPersonChange reports whether actor a may change what belongs to
// the person userID from its account (reset the second factor, issue
// service credentials): EFORBIDDEN without users manage or when the
// user's role exceeds a's own, ENOTFOUND when
// the user is not a member of the account, ECONFLICT (naming the count of
// other memberships, not their accounts) while the person is a member of
// another account too.
func (s *Service) CheckPersonChange(ctx context.Context, a *engine.Actor, userID string) error {
	if err := a.Require("users", true); err != nil {
		return err
	}
	return s.eng.Store().View(ctx, func(tx engine.Tx) error {
		user, err := tx.Get(views.TypeUsers, a.AccountID(), userID)
		if err != nil {
			return err
		}
		if err := memberCeiling(tx, a, user); err != nil {
			return err
		}
		n, err := otherMemberships(tx, userID, a.AccountID(), joinedElsewhere)
		if err == nil && n > 0 {
			err = errSharedPerson(n, "their second factor and service credentials")
		}
		return err
	})
}
