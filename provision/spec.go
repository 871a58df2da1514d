// Package provision creates and updates the identities the API itself
// cannot create: accounts with their currencies, roles and OAuth
// applications, and users with their memberships, passwords and service
// credentials (docs/operations.md, "Provisioning from Go").
//
// A Spec says what should exist, keyed by account slug, currency code, role
// name, email and client id. Provision checks it as a whole, against itself
// and the database, before anything of it is applied; applying it again
// changes nothing. The example server's bootstrap file is a Spec in JSON.
package provision

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping"
	"github.com/shopspring/decimal"
)

// Spec is what should exist after Provision: the accounts and the users.
// Its JSON form is the example server's bootstrap file.
type Spec struct {
	Accounts []Account `json:"accounts"`
	Users    []User    `json:"users"`
}

// Account is an account with its currencies, roles and OAuth applications.
// A new account also gets the built-in roles and its default currency.
type Account struct {
	Slug              string        `json:"slug"`
	Name              string        `json:"name"`
	DefaultCurrency   string        `json:"default-currency"`
	Locale            string        `json:"locale"` // BCP 47 (de-DE); empty: left as it is (en-US for a new account)
	Currencies        []Currency    `json:"currencies"`
	Roles             []Role        `json:"roles"`
	OAuthApplications []Application `json:"oauth-applications"`
}

// Currency holds every writable attribute of the currencies resource.
type Currency struct {
	Code           string      `json:"code"`
	Name           string      `json:"name"` // empty: the code
	ConversionRate DecimalText `json:"conversion-rate"`
	MinorUnits     *int        `json:"minor-units"` // nil: from ISO 4217
}

// Role is a role of the account, with a level (none, view or manage) per
// permission; permissions left out are none.
type Role struct {
	Name              string            `json:"name"`
	Permissions       map[string]string `json:"permissions"`
	ProjectVisibility string            `json:"project-visibility"` // all (default) or assigned
}

// Application is an OAuth application of the account.
type Application struct {
	Name         string   `json:"name"`
	ClientID     string   `json:"client-id"`
	ClientSecret string   `json:"client-secret"`
	RedirectURIs []string `json:"redirect-uris"`
}

// User is one identity (an email) with its memberships. A standard user may
// get a password; a service account gets a client id and secret, scoped to
// its one account.
type User struct {
	Email        string       `json:"email"`
	Name         string       `json:"name"`
	UserType     string       `json:"user-type"` // standard (default) or service
	Status       string       `json:"status"`    // active (default), invited or deactivated
	Password     string       `json:"password"`
	ClientID     string       `json:"client-id"`
	ClientSecret string       `json:"client-secret"`
	Memberships  []Membership `json:"memberships"`
}

// Membership gives the user a role (by name) in an account (by slug), of
// the spec or already in the database.
type Membership struct {
	Account string `json:"account"`
	Role    string `json:"role"`
}

// DecimalText is a decimal, given in JSON as a string ("0.92") or a number
// (0.92). Validate checks it.
type DecimalText string

// UnmarshalJSON implements json.Unmarshaler.
func (d *DecimalText) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*d = DecimalText(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return errors.New("must be a number or a decimal string")
	}
	*d = DecimalText(n)
	return nil
}

// maxPasswordBytes is the most bcrypt (and auth.SetPassword) accepts.
const maxPasswordBytes = 72

var slugPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,62}$`)

// EntryName names an entry of the spec in messages: users[1] (bot@acme.test).
// A key with a character that is not printable (a newline, a control
// character, invalid UTF-8) or a parenthesis is quoted, so a refusal stays
// one line that says exactly what the file holds.
func EntryName(list string, i int, key string) string {
	if key == "" {
		return fmt.Sprintf("%s[%d]", list, i)
	}
	for _, r := range key {
		if !unicode.IsPrint(r) || r == '(' || r == ')' || r == '"' {
			return fmt.Sprintf("%s[%d] (%q)", list, i, key)
		}
	}
	if !utf8.ValidString(key) {
		return fmt.Sprintf("%s[%d] (%q)", list, i, key)
	}
	return fmt.Sprintf("%s[%d] (%s)", list, i, key)
}

// pointer is the JSON pointer of a member of the spec: /users/1/email.
func pointer(parts ...any) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteByte('/')
		switch p := p.(type) {
		case int:
			b.WriteString(strconv.Itoa(p))
		case string:
			b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(p))
		}
	}
	return b.String()
}

// problems collects the problems of a check: each an EINVALID error whose
// field is the JSON pointer of the member at fault and whose message
// begins with the name of its entry.
type problems scopekit.Errors

func (p *problems) add(field, entry, format string, args ...any) {
	*p = append(*p, scopekit.FieldErrorf(scopekit.EINVALID, field, "%s: %s", entry, fmt.Sprintf(format, args...)))
}

// err is nil or the problems, as scopekit.Errors.
func (p problems) err() error {
	if len(p) == 0 {
		return nil
	}
	return scopekit.Errors(p)
}

// Validate checks the spec against itself and normalizes it in place:
// currency codes upper case, emails lower case, defaults filled in. It
// returns nil or scopekit.Errors with one EINVALID entry per problem, in
// the order of the spec; each names the member at fault (a JSON pointer
// such as /users/1/client-id) and its message begins with the entry
// (users[1] (bot@acme.test): ...). Validating again changes nothing.
func (s *Spec) Validate() error {
	var p problems
	clientIDs := map[string]string{} // client id -> the entry that uses it
	useClientID := func(field, entry, id string) {
		if prev, ok := clientIDs[id]; ok {
			p.add(field, entry, "client-id %q is already used by %s", id, prev)
			return
		}
		clientIDs[id] = entry
	}
	slugs := map[string]bool{}
	for i := range s.Accounts {
		s.Accounts[i].validate(&p, i, slugs, useClientID)
	}
	emails := map[string]bool{}
	for i := range s.Users {
		s.Users[i].validate(&p, i, emails, useClientID)
	}
	return p.err()
}

func (a *Account) validate(p *problems, i int, slugs map[string]bool, useClientID func(field, entry, id string)) {
	e := EntryName("accounts", i, a.Slug)
	switch field := pointer("accounts", i, "slug"); {
	case a.Slug == "":
		p.add(field, e, "slug must not be empty")
	case scoping.IsReservedSlug(a.Slug):
		p.add(field, e, "slug %q is reserved (it begins a route)", a.Slug)
	case !slugPattern.MatchString(a.Slug):
		p.add(field, e, "slug %q must be lower-case letters, digits, - and _ (at most 63, starting with a letter or digit)", a.Slug)
	case slugs[a.Slug]:
		p.add(field, e, "slug %q appears twice in the file", a.Slug)
	}
	slugs[a.Slug] = true
	if strings.TrimSpace(a.Name) == "" {
		p.add(pointer("accounts", i, "name"), e, "name must not be empty")
	}
	a.DefaultCurrency = strings.ToUpper(strings.TrimSpace(a.DefaultCurrency))
	if _, ok := scoping.ISOCurrency(a.DefaultCurrency); !ok {
		p.add(pointer("accounts", i, "default-currency"), e, "default-currency %q must be a three-letter ISO 4217 code such as USD", a.DefaultCurrency)
	}
	if a.Locale != "" {
		if l, err := scoping.ParseLocale(a.Locale); err != nil {
			p.add(pointer("accounts", i, "locale"), e, "locale %q must be a BCP 47 language tag such as en-US or de-DE", a.Locale)
		} else {
			a.Locale = l
		}
	}
	codes := map[string]bool{}
	for j := range a.Currencies {
		a.validateCurrency(p, i, j, e, codes)
	}
	roles := map[string]bool{}
	for j := range a.Roles {
		r := &a.Roles[j]
		re := e + " " + EntryName("roles", j, r.Name)
		switch key := strings.ToLower(r.Name); {
		case strings.TrimSpace(r.Name) == "":
			p.add(pointer("accounts", i, "roles", j, "name"), re, "name must not be empty")
		case roles[key]:
			p.add(pointer("accounts", i, "roles", j, "name"), re, "role %q appears twice in the account", r.Name)
		default:
			roles[key] = true
		}
		for _, k := range slices.Sorted(maps.Keys(r.Permissions)) {
			v, field := r.Permissions[k], pointer("accounts", i, "roles", j, "permissions", k)
			if !slices.Contains(scoping.Permissions, k) {
				p.add(field, re, "%q is not a permission (known: %s)", k, strings.Join(scoping.Permissions, ", "))
			} else if v != engine.AccessNone && v != engine.AccessView && v != engine.AccessManage {
				p.add(field, re, "permission %s must be none, view or manage, not %q", k, v)
			}
		}
		if r.ProjectVisibility == "" {
			r.ProjectVisibility = "all"
		}
		if r.ProjectVisibility != "all" && r.ProjectVisibility != "assigned" {
			p.add(pointer("accounts", i, "roles", j, "project-visibility"), re, "project-visibility must be all or assigned, not %q", r.ProjectVisibility)
		}
	}
	for j := range a.OAuthApplications {
		app := &a.OAuthApplications[j]
		ae := e + " " + EntryName("oauth-applications", j, app.ClientID)
		at := func(member string) string { return pointer("accounts", i, "oauth-applications", j, member) }
		if strings.TrimSpace(app.Name) == "" {
			p.add(at("name"), ae, "name must not be empty")
		}
		if strings.TrimSpace(app.ClientSecret) == "" {
			p.add(at("client-secret"), ae, "client-secret must not be empty")
		}
		if checkClientID(p, at("client-id"), ae, app.ClientID) {
			useClientID(at("client-id"), ae, app.ClientID)
		}
		for _, u := range app.RedirectURIs {
			if pu, err := url.Parse(u); err != nil || !pu.IsAbs() || pu.Host == "" || strings.Contains(u, "#") {
				p.add(at("redirect-uris"), ae, "redirect URI %q must be an absolute URI without a fragment", u)
			}
		}
	}
}

func (a *Account) validateCurrency(p *problems, i, j int, e string, codes map[string]bool) {
	c := &a.Currencies[j]
	c.Code = strings.ToUpper(strings.TrimSpace(c.Code))
	ce := e + " " + EntryName("currencies", j, c.Code)
	at := func(member string) string { return pointer("accounts", i, "currencies", j, member) }
	rate, err := decimal.NewFromString(string(c.ConversionRate))
	_, iso := scoping.ISOCurrency(c.Code)
	switch {
	case !iso:
		p.add(at("code"), ce, "code %q must be a three-letter ISO 4217 code such as EUR", c.Code)
	case codes[c.Code]:
		p.add(at("code"), ce, "currency %s appears twice in the account", c.Code)
	case err != nil || !rate.IsPositive() || strings.TrimSpace(string(c.ConversionRate)) != string(c.ConversionRate):
		p.add(at("conversion-rate"), ce, "conversion-rate %q must be a positive number", c.ConversionRate)
	case c.MinorUnits != nil && (*c.MinorUnits < 0 || *c.MinorUnits > 8):
		p.add(at("minor-units"), ce, "minor-units %d must be between 0 and 8", *c.MinorUnits)
	case c.Code == a.DefaultCurrency && !rate.Equal(decimal.NewFromInt(1)):
		p.add(at("conversion-rate"), ce, "the default currency's conversion-rate must be 1")
	}
	codes[c.Code] = true
	if strings.TrimSpace(c.Name) == "" {
		c.Name = c.Code
	}
}

func (u *User) validate(p *problems, i int, emails map[string]bool, useClientID func(field, entry, id string)) {
	u.Email = strings.ToLower(strings.TrimSpace(u.Email))
	e := EntryName("users", i, u.Email)
	at := func(member string) string { return pointer("users", i, member) }
	switch a := strings.LastIndex(u.Email, "@"); {
	case a < 1 || a == len(u.Email)-1 || strings.ContainsAny(u.Email, " \t\r\n"):
		p.add(at("email"), e, "email %q must be an email address", u.Email)
	case emails[u.Email]:
		p.add(at("email"), e, "email %s appears twice in the file", u.Email)
	}
	emails[u.Email] = true
	if strings.TrimSpace(u.Name) == "" {
		p.add(at("name"), e, "name must not be empty")
	}
	if u.Status == "" {
		u.Status = auth.StatusActive
	}
	if u.Status != auth.StatusActive && u.Status != auth.StatusInvited && u.Status != auth.StatusDeactivated {
		p.add(at("status"), e, "status must be active, invited or deactivated, not %q", u.Status)
	}
	if u.UserType == "" {
		u.UserType = "standard"
	}
	switch u.UserType {
	case "service":
		if u.ClientID == "" || u.ClientSecret == "" {
			field := at("client-id")
			if u.ClientID != "" {
				field = at("client-secret")
			}
			p.add(field, e, "a service account needs client-id and client-secret")
		} else if checkClientID(p, at("client-id"), e, u.ClientID) {
			useClientID(at("client-id"), e, u.ClientID)
		}
		if u.Password != "" {
			p.add(at("password"), e, "a service account cannot sign in: give it client-id and client-secret, not a password")
		}
		if len(u.Memberships) > 1 {
			p.add(at("memberships"), e, "a service account with credentials needs exactly one membership (its client id is scoped to one account)")
		}
	case "standard":
		if u.ClientID != "" || u.ClientSecret != "" {
			p.add(at("user-type"), e, "client-id and client-secret are for service accounts (user-type service)")
		}
	default:
		p.add(at("user-type"), e, "user-type must be standard or service, not %q", u.UserType)
	}
	if u.Password != "" {
		if n := utf8.RuneCountInString(u.Password); n < auth.MinPasswordChars {
			p.add(at("password"), e, "password must be at least %d characters (it has %d)", auth.MinPasswordChars, n)
		} else if len(u.Password) > maxPasswordBytes {
			p.add(at("password"), e, "password must be at most %d bytes", maxPasswordBytes)
		}
	}
	if len(u.Memberships) == 0 {
		p.add(at("memberships"), e, "needs at least one membership")
	}
	seen := map[string]bool{}
	for j, m := range u.Memberships {
		switch {
		case m.Account == "":
			p.add(pointer("users", i, "memberships", j, "account"), e, "a membership needs an account")
		case strings.TrimSpace(m.Role) == "":
			p.add(pointer("users", i, "memberships", j, "role"), e, "membership in %q needs a role", m.Account)
		case seen[m.Account]:
			p.add(pointer("users", i, "memberships", j, "account"), e, "two memberships in account %q", m.Account)
		}
		seen[m.Account] = true
	}
}

// checkClientID reports whether id is acceptable as a client id.
func checkClientID(p *problems, field, entry, id string) bool {
	switch {
	case strings.TrimSpace(id) == "":
		p.add(field, entry, "client-id must not be empty")
	case len(id) > 255:
		p.add(field, entry, "client-id must be at most 255 bytes")
	case strings.ContainsFunc(id, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		p.add(field, entry, "client-id %q must not contain spaces or control characters", id)
	default:
		return true
	}
	return false
}
