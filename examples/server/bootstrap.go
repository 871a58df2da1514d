package main

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/scopekit/scopekit"
	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/httpadapter"
	"github.com/scopekit/scopekit/scoping"
	"github.com/shopspring/decimal"
	"golang.org/x/crypto/bcrypt"
)

// The bootstrap file (docs/operations.md, "Bootstrap file") creates or updates
// the identities the API cannot create: accounts with their currencies,
// roles and OAuth applications, and users with their memberships,
// passwords and service credentials. It is checked as a whole, against
// itself and the database, before anything of it is applied; applying it
// again changes nothing.

// bootstrapFile is the decoded file.
type bootstrapFile struct {
	Accounts []bsAccount `json:"accounts"`
	Users    []bsUser    `json:"users"`
}

type bsAccount struct {
	Slug              string          `json:"slug"`
	Name              string          `json:"name"`
	DefaultCurrency   string          `json:"default-currency"`
	Currencies        []bsCurrency    `json:"currencies"`
	Roles             []bsRole        `json:"roles"`
	OAuthApplications []bsApplication `json:"oauth-applications"`
}

// bsCurrency holds every writable attribute of the currencies resource.
type bsCurrency struct {
	Code           string      `json:"code"`
	Name           string      `json:"name"`
	ConversionRate decimalText `json:"conversion-rate"`
	MinorUnits     *int        `json:"minor-units"` // absent: from ISO 4217
}

type bsRole struct {
	Name              string            `json:"name"`
	Permissions       map[string]string `json:"permissions"`
	ProjectVisibility string            `json:"project-visibility"`
}

type bsApplication struct {
	Name         string   `json:"name"`
	ClientID     string   `json:"client-id"`
	ClientSecret string   `json:"client-secret"`
	RedirectURIs []string `json:"redirect-uris"`
}

type bsUser struct {
	Email        string         `json:"email"`
	Name         string         `json:"name"`
	UserType     string         `json:"user-type"`
	Status       string         `json:"status"`
	Password     string         `json:"password"`
	ClientID     string         `json:"client-id"`
	ClientSecret string         `json:"client-secret"`
	Memberships  []bsMembership `json:"memberships"`
}

type bsMembership struct {
	Account string `json:"account"`
	Role    string `json:"role"`
}

// decimalText is a decimal given as a JSON string ("0.92") or number (0.92).
type decimalText string

func (d *decimalText) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*d = decimalText(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return errors.New("must be a number or a decimal string")
	}
	*d = decimalText(n)
	return nil
}

// minPasswordChars is the password policy of invitations (docs/auth.md), applied
// to bootstrap passwords too.
const minPasswordChars = 12

// maxPasswordBytes is the most bcrypt (and auth.SetPassword) accepts.
const maxPasswordBytes = 72

var (
	slugPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,62}$`)
)

// loadBootstrap reads and decodes the file strictly (unknown members are
// errors, naming the entry that holds them) and checks everything that does
// not need the database.
func loadBootstrap(path string) (*bootstrapFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("bootstrap: %w", err)
	}
	f, err := decodeBootstrap(path, data)
	if err != nil {
		return nil, err
	}
	if err := f.validate(); err != nil {
		return nil, err
	}
	return f, nil
}

// decodeBootstrap decodes the top level and then each entry on its own, so
// that an unknown or mistyped member is reported with its entry; errors of
// the top level name the file.
func decodeBootstrap(path string, data []byte) (*bootstrapFile, error) {
	if err := cleanJSONText(data); err != nil {
		return nil, fmt.Errorf("bootstrap %s: %w", path, err)
	}
	var top struct {
		Accounts []json.RawMessage `json:"accounts"`
		Users    []json.RawMessage `json:"users"`
	}
	if err := strictDecode(data, &top); err != nil {
		return nil, fmt.Errorf("bootstrap %s: %w", path, jsonError(data, err))
	}
	f := &bootstrapFile{Accounts: make([]bsAccount, len(top.Accounts)), Users: make([]bsUser, len(top.Users))}
	for i, raw := range top.Accounts {
		if err := strictDecode(raw, &f.Accounts[i]); err != nil {
			var peek struct{ Slug any }
			_ = json.Unmarshal(raw, &peek)
			return nil, fmt.Errorf("bootstrap %s: %s", entryName("accounts", i, fmt.Sprint(orEmpty(peek.Slug))), jsonMessage(err))
		}
	}
	for i, raw := range top.Users {
		if err := strictDecode(raw, &f.Users[i]); err != nil {
			var peek struct{ Email any }
			_ = json.Unmarshal(raw, &peek)
			return nil, fmt.Errorf("bootstrap %s: %s", entryName("users", i, fmt.Sprint(orEmpty(peek.Email))), jsonMessage(err))
		}
	}
	return f, nil
}

// cleanJSONText refuses a file that is not UTF-8 or has a NUL character
// in a string: encoding/json would silently turn the first into U+FFFD and
// store the second.
func cleanJSONText(data []byte) error {
	if !utf8.Valid(data) {
		return errors.New("the file is not valid UTF-8")
	}
	var v any
	if json.Unmarshal(data, &v) != nil {
		return nil // the strict decoding reports it, with its position
	}
	var walk func(v any) bool
	walk = func(v any) bool {
		switch v := v.(type) {
		case string:
			return !strings.ContainsRune(v, 0) && !strings.ContainsRune(v, utf8.RuneError)
		case map[string]any:
			for k, e := range v {
				if !walk(k) || !walk(e) {
					return false
				}
			}
		case []any:
			for _, e := range v {
				if !walk(e) {
					return false
				}
			}
		}
		return true
	}
	if !walk(v) {
		return errors.New("a string holds a NUL character or an unpaired surrogate escape")
	}
	return nil
}

func orEmpty(v any) any {
	if v == nil {
		return ""
	}
	return v
}

func strictDecode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("unexpected data after the JSON value")
	}
	return nil
}

// jsonMessage is a decoding error without the "json: " prefix.
func jsonMessage(err error) string { return strings.TrimPrefix(err.Error(), "json: ") }

// jsonError adds the line and column to a syntax error.
func jsonError(data []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := 1, 1
		for _, b := range data[:min(int(se.Offset), len(data))] {
			if b == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
		}
		return fmt.Errorf("malformed JSON at line %d, column %d: %s", line, col, jsonMessage(err))
	}
	return errors.New(jsonMessage(err))
}

// entryName names an entry of the file: users[1] (bot@acme.test).
func entryName(list string, i int, key string) string {
	if key == "" {
		return fmt.Sprintf("%s[%d]", list, i)
	}
	return fmt.Sprintf("%s[%d] (%s)", list, i, key)
}

// problems collects the errors of a check, each naming its entry.
type problems []string

func (p *problems) add(entry, format string, args ...any) {
	*p = append(*p, "bootstrap "+entry+": "+fmt.Sprintf(format, args...))
}

// err reports the first problem, and how many more there are.
func (p problems) err() error {
	switch len(p) {
	case 0:
		return nil
	case 1:
		return errors.New(p[0])
	}
	return fmt.Errorf("%s (and %d more problems)", p[0], len(p)-1)
}

// validate checks the file against itself and normalizes it (currency codes
// upper case, emails lower case, defaults filled in).
func (f *bootstrapFile) validate() error {
	var p problems
	slugs := map[string]bool{}
	clientIDs := map[string]string{} // client id -> the entry that uses it
	useClientID := func(entry, id string) {
		if prev, ok := clientIDs[id]; ok {
			p.add(entry, "client-id %q is already used by %s", id, prev)
			return
		}
		clientIDs[id] = entry
	}
	for i := range f.Accounts {
		a := &f.Accounts[i]
		e := entryName("accounts", i, a.Slug)
		switch {
		case a.Slug == "":
			p.add(e, "slug must not be empty")
		case httpadapter.IsReservedSlug(a.Slug):
			p.add(e, "slug %q is reserved (it begins a route)", a.Slug)
		case !slugPattern.MatchString(a.Slug):
			p.add(e, "slug %q must be lower-case letters, digits, - and _ (at most 63, starting with a letter or digit)", a.Slug)
		case slugs[a.Slug]:
			p.add(e, "slug %q appears twice in the file", a.Slug)
		}
		slugs[a.Slug] = true
		if strings.TrimSpace(a.Name) == "" {
			p.add(e, "name must not be empty")
		}
		a.DefaultCurrency = strings.ToUpper(strings.TrimSpace(a.DefaultCurrency))
		if _, ok := scoping.ISOCurrency(a.DefaultCurrency); !ok {
			p.add(e, "default-currency %q must be a three-letter ISO 4217 code such as USD", a.DefaultCurrency)
		}
		codes := map[string]bool{}
		for j := range a.Currencies {
			c := &a.Currencies[j]
			c.Code = strings.ToUpper(strings.TrimSpace(c.Code))
			ce := e + " " + entryName("currencies", j, c.Code)
			rate, err := decimal.NewFromString(string(c.ConversionRate))
			_, iso := scoping.ISOCurrency(c.Code)
			switch {
			case !iso:
				p.add(ce, "code %q must be a three-letter ISO 4217 code such as EUR", c.Code)
			case codes[c.Code]:
				p.add(ce, "currency %s appears twice in the account", c.Code)
			case err != nil || !rate.IsPositive() || strings.TrimSpace(string(c.ConversionRate)) != string(c.ConversionRate):
				p.add(ce, "conversion-rate %q must be a positive number", c.ConversionRate)
			case c.MinorUnits != nil && (*c.MinorUnits < 0 || *c.MinorUnits > 8):
				p.add(ce, "minor-units %d must be between 0 and 8", *c.MinorUnits)
			case c.Code == a.DefaultCurrency && !rate.Equal(decimal.NewFromInt(1)):
				p.add(ce, "the default currency's conversion-rate must be 1")
			}
			codes[c.Code] = true
			if strings.TrimSpace(c.Name) == "" {
				c.Name = c.Code
			}
		}
		roles := map[string]bool{}
		for j := range a.Roles {
			r := &a.Roles[j]
			re := e + " " + entryName("roles", j, r.Name)
			switch key := strings.ToLower(r.Name); {
			case strings.TrimSpace(r.Name) == "":
				p.add(re, "name must not be empty")
			case roles[key]:
				p.add(re, "role %q appears twice in the account", r.Name)
			default:
				roles[key] = true
			}
			for _, k := range sortedKeys(r.Permissions) {
				v := r.Permissions[k]
				if !slices.Contains(scoping.Permissions, k) {
					p.add(re, "%q is not a permission (known: %s)", k, strings.Join(scoping.Permissions, ", "))
				} else if v != scoping.AccessNone && v != scoping.AccessView && v != scoping.AccessManage {
					p.add(re, "permission %s must be none, view or manage, not %q", k, v)
				}
			}
			if r.ProjectVisibility == "" {
				r.ProjectVisibility = "all"
			}
			if r.ProjectVisibility != "all" && r.ProjectVisibility != "assigned" {
				p.add(re, "project-visibility must be all or assigned, not %q", r.ProjectVisibility)
			}
		}
		for j := range a.OAuthApplications {
			app := &a.OAuthApplications[j]
			ae := e + " " + entryName("oauth-applications", j, app.ClientID)
			if strings.TrimSpace(app.Name) == "" {
				p.add(ae, "name must not be empty")
			}
			if strings.TrimSpace(app.ClientSecret) == "" {
				p.add(ae, "client-secret must not be empty")
			}
			if checkClientID(&p, ae, app.ClientID) {
				useClientID(ae, app.ClientID)
			}
			for _, u := range app.RedirectURIs {
				if pu, err := url.Parse(u); err != nil || !pu.IsAbs() || pu.Host == "" || strings.Contains(u, "#") {
					p.add(ae, "redirect URI %q must be an absolute URI without a fragment", u)
				}
			}
		}
	}

	emails := map[string]bool{}
	for i := range f.Users {
		u := &f.Users[i]
		u.Email = strings.ToLower(strings.TrimSpace(u.Email))
		e := entryName("users", i, u.Email)
		switch at := strings.LastIndex(u.Email, "@"); {
		case at < 1 || at == len(u.Email)-1 || strings.ContainsAny(u.Email, " \t\r\n"):
			p.add(e, "email %q must be an email address", u.Email)
		case emails[u.Email]:
			p.add(e, "email %s appears twice in the file", u.Email)
		}
		emails[u.Email] = true
		if strings.TrimSpace(u.Name) == "" {
			p.add(e, "name must not be empty")
		}
		if u.Status == "" {
			u.Status = auth.StatusActive
		}
		if u.Status != auth.StatusActive && u.Status != auth.StatusInvited && u.Status != auth.StatusDeactivated {
			p.add(e, "status must be active, invited or deactivated, not %q", u.Status)
		}
		if u.UserType == "" {
			u.UserType = "standard"
		}
		switch u.UserType {
		case "service":
			if u.ClientID == "" || u.ClientSecret == "" {
				p.add(e, "a service account needs client-id and client-secret")
			} else if checkClientID(&p, e, u.ClientID) {
				useClientID(e, u.ClientID)
			}
			if u.Password != "" {
				p.add(e, "a service account cannot sign in: give it client-id and client-secret, not a password")
			}
			if len(u.Memberships) > 1 {
				p.add(e, "a service account with credentials needs exactly one membership (its client id is scoped to one account)")
			}
		case "standard":
			if u.ClientID != "" || u.ClientSecret != "" {
				p.add(e, "client-id and client-secret are for service accounts (user-type service)")
			}
		default:
			p.add(e, "user-type must be standard or service, not %q", u.UserType)
		}
		if u.Password != "" {
			if n := utf8.RuneCountInString(u.Password); n < minPasswordChars {
				p.add(e, "password must be at least %d characters (it has %d)", minPasswordChars, n)
			} else if len(u.Password) > maxPasswordBytes {
				p.add(e, "password must be at most %d bytes", maxPasswordBytes)
			}
		}
		if len(u.Memberships) == 0 {
			p.add(e, "needs at least one membership")
		}
		seen := map[string]bool{}
		for _, m := range u.Memberships {
			switch {
			case m.Account == "":
				p.add(e, "a membership needs an account")
			case strings.TrimSpace(m.Role) == "":
				p.add(e, "membership in %q needs a role", m.Account)
			case seen[m.Account]:
				p.add(e, "two memberships in account %q", m.Account)
			}
			seen[m.Account] = true
		}
	}
	return p.err()
}

// checkClientID reports whether id is acceptable as a client id.
func checkClientID(p *problems, entry, id string) bool {
	switch {
	case strings.TrimSpace(id) == "":
		p.add(entry, "client-id must not be empty")
	case len(id) > 255:
		p.add(entry, "client-id must be at most 255 bytes")
	case strings.ContainsFunc(id, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		p.add(entry, "client-id %q must not contain spaces or control characters", id)
	default:
		return true
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// dbState is what the database already holds of the file's accounts and
// users; it serves both the checks against the database and the skipping
// of entries that are already as the file says (so that a second run
// writes nothing, not even an updated-at).
type dbState struct {
	accounts   map[string]*scoping.Record            // slug -> account
	roles      map[string]map[string]*scoping.Record // account id -> lower-case name -> role
	currencies map[string]map[string]*scoping.Record // account id -> code -> currency
	users      map[string]*scoping.Record            // email -> a users record of that identity
}

// readState loads the part of the database the file touches.
func (f *bootstrapFile) readState(ctx context.Context, store scoping.Store) (*dbState, error) {
	st := &dbState{accounts: map[string]*scoping.Record{}, roles: map[string]map[string]*scoping.Record{},
		currencies: map[string]map[string]*scoping.Record{}, users: map[string]*scoping.Record{}}
	slugs := map[string]bool{}
	for _, a := range f.Accounts {
		slugs[a.Slug] = true
	}
	for _, u := range f.Users {
		for _, m := range u.Memberships {
			slugs[m.Account] = true
		}
	}
	err := store.View(ctx, func(tx scoping.Tx) error {
		for slug := range slugs {
			recs, _, err := tx.List(&scoping.Query{Type: "accounts", Where: []scoping.Cond{scoping.Eq("slug", slug)}, Limit: 1})
			if err != nil {
				return err
			}
			if len(recs) == 0 {
				continue
			}
			acct := recs[0]
			st.accounts[slug] = acct
			st.roles[acct.ID], st.currencies[acct.ID] = map[string]*scoping.Record{}, map[string]*scoping.Record{}
			roles, _, err := tx.List(&scoping.Query{Type: "roles", AccountID: acct.ID})
			if err != nil {
				return err
			}
			for _, r := range roles {
				st.roles[acct.ID][strings.ToLower(r.Str("name"))] = r
			}
			curs, _, err := tx.List(&scoping.Query{Type: "currencies", AccountID: acct.ID})
			if err != nil {
				return err
			}
			for _, c := range curs {
				st.currencies[acct.ID][c.Str("code")] = c
			}
		}
		for _, u := range f.Users {
			recs, _, err := tx.List(&scoping.Query{Type: "users", AllAccounts: true, Where: []scoping.Cond{scoping.Eq("email", u.Email)}, Limit: 1})
			if err != nil {
				return err
			}
			if len(recs) > 0 {
				st.users[u.Email] = recs[0]
			}
		}
		return nil
	})
	return st, err
}

// member returns the users record of the identity with email in the
// account, or nil.
func (st *dbState) member(ctx context.Context, store scoping.Store, accountID, email string) (*scoping.Record, error) {
	u := st.users[email]
	if u == nil || accountID == "" {
		return nil, nil
	}
	var rec *scoping.Record
	err := store.View(ctx, func(tx scoping.Tx) error {
		r, err := tx.Get("users", accountID, u.ID)
		if scopekit.ErrorCode(err) == scopekit.ENOTFOUND {
			return nil
		}
		rec = r
		return err
	})
	return rec, err
}

// roleKnown reports whether the account (by slug) will have the role once
// the file is applied: a role of the file, a built-in role of a new
// account, or a role already in the database.
func (f *bootstrapFile) roleKnown(st *dbState, slug, role string) bool {
	key := strings.ToLower(role)
	acct := st.accounts[slug]
	if acct != nil && st.roles[acct.ID][key] != nil {
		return true
	}
	for _, a := range f.Accounts {
		if a.Slug != slug {
			continue
		}
		for _, r := range a.Roles {
			if strings.ToLower(r.Name) == key {
				return true
			}
		}
		if acct == nil {
			for _, br := range scoping.BuiltinRoles {
				if strings.ToLower(br.Name) == key {
					return true
				}
			}
		}
	}
	return false
}

// checkAgainst checks the file against the database: memberships name
// accounts and roles that exist (in the file or the database), and client
// ids are not taken by another account's application or another user's
// credentials.
func (f *bootstrapFile) checkAgainst(ctx context.Context, st *dbState, as auth.Store) error {
	var p problems
	inFile := map[string]bool{}
	for _, a := range f.Accounts {
		inFile[a.Slug] = true
	}
	for i, a := range f.Accounts {
		e := entryName("accounts", i, a.Slug)
		acct := st.accounts[a.Slug]
		for j, app := range a.OAuthApplications {
			ae := e + " " + entryName("oauth-applications", j, app.ClientID)
			if old, err := as.ApplicationByClientID(ctx, app.ClientID); err == nil {
				if acct == nil || old.AccountID != acct.ID {
					p.add(ae, "client-id %q belongs to an application of another account", app.ClientID)
				}
			} else if !isNotFound(err) {
				return err
			}
			if _, err := as.ServiceCredentialByClientID(ctx, app.ClientID); err == nil {
				p.add(ae, "client-id %q is already used by a service account", app.ClientID)
			} else if !isNotFound(err) {
				return err
			}
		}
	}
	for i, u := range f.Users {
		e := entryName("users", i, u.Email)
		for _, m := range u.Memberships {
			if !inFile[m.Account] && st.accounts[m.Account] == nil {
				p.add(e, "membership account %q is not in the file or the database", m.Account)
				continue
			}
			if !f.roleKnown(st, m.Account, m.Role) {
				p.add(e, "membership in %q: no role %q in that account (built-in roles: Account Admin, Sales, Engineer, Read Only)", m.Account, m.Role)
			}
		}
		if u.UserType != "service" || len(u.Memberships) != 1 {
			continue
		}
		if _, err := as.ApplicationByClientID(ctx, u.ClientID); err == nil {
			p.add(e, "client-id %q is already used by an OAuth application", u.ClientID)
		} else if !isNotFound(err) {
			return err
		}
		old, err := as.ServiceCredentialByClientID(ctx, u.ClientID)
		if err != nil {
			if !isNotFound(err) {
				return err
			}
			continue
		}
		acct, ident := st.accounts[u.Memberships[0].Account], st.users[u.Email]
		if acct == nil || ident == nil || old.AccountID != acct.ID || old.UserID != ident.ID {
			p.add(e, "client-id %q is already used by another service account", u.ClientID)
		}
	}
	return p.err()
}

func isNotFound(err error) bool { return scopekit.ErrorCode(err) == scopekit.ENOTFOUND }

// applyBootstrap checks f against the database and applies it: accounts,
// currencies, roles and memberships in one transaction, then applications,
// passwords and service credentials. Entries already as the file says are
// left untouched. Should the second step fail (the store failing, since
// everything was checked), applying the file again completes it.
func applyBootstrap(ctx context.Context, f *bootstrapFile, svc *scoping.Service, db authStorer, as *auth.Service) error {
	st, err := f.readState(ctx, svc.Store())
	if err != nil {
		return fmt.Errorf("bootstrap: read database: %w", err)
	}
	if err := f.checkAgainst(ctx, st, db.AuthStore()); err != nil {
		return err
	}
	// Memberships already in the database, read before the write
	// transaction (bbolt readers must not nest inside the writer).
	members := map[[2]string]*scoping.Record{}
	for _, u := range f.Users {
		for _, m := range u.Memberships {
			if acct := st.accounts[m.Account]; acct != nil {
				rec, err := st.member(ctx, svc.Store(), acct.ID, u.Email)
				if err != nil {
					return fmt.Errorf("bootstrap: read database: %w", err)
				}
				members[[2]string{acct.ID, u.Email}] = rec
			}
		}
	}

	accountIDs := map[string]string{} // slug -> id
	userIDs := map[string]string{}    // email -> id
	err = svc.Setup(ctx, func(a *scoping.Admin) error {
		for i, fa := range f.Accounts {
			e := "bootstrap " + entryName("accounts", i, fa.Slug)
			acct := st.accounts[fa.Slug]
			if acct == nil || acct.Str("name") != fa.Name || acct.Str("default-currency") != fa.DefaultCurrency {
				rec, err := a.EnsureAccount(fa.Slug, fa.Name, fa.DefaultCurrency)
				if err != nil {
					return fmt.Errorf("%s: %w", e, err)
				}
				if acct == nil { // its built-in roles and default currency were just created
					st.roles[rec.ID], st.currencies[rec.ID] = builtinRoleSet(), map[string]*scoping.Record{
						fa.DefaultCurrency: {Attrs: map[string]any{"code": fa.DefaultCurrency, "name": fa.DefaultCurrency, "conversion-rate": "1"}}}
				}
				acct = rec
			}
			accountIDs[fa.Slug] = acct.ID
			if st.currencies[acct.ID][fa.DefaultCurrency] == nil && !slices.ContainsFunc(fa.Currencies, func(c bsCurrency) bool { return c.Code == fa.DefaultCurrency }) {
				if _, err := a.EnsureCurrency(acct.ID, fa.DefaultCurrency, fa.DefaultCurrency, "1"); err != nil {
					return fmt.Errorf("%s: %w", e, err)
				}
			}
			for _, c := range fa.Currencies {
				if sameCurrency(st.currencies[acct.ID][c.Code], c) {
					continue
				}
				if _, err := a.SetCurrency(acct.ID, scoping.Currency{Code: c.Code, Name: c.Name,
					ConversionRate: string(c.ConversionRate), MinorUnits: c.MinorUnits}); err != nil {
					return fmt.Errorf("%s currency %s: %w", e, c.Code, err)
				}
			}
			for _, r := range fa.Roles {
				if sameRole(st.roles[acct.ID][strings.ToLower(r.Name)], r) {
					continue
				}
				if _, err := a.EnsureRole(acct.ID, r.Name, r.Permissions, r.ProjectVisibility); err != nil {
					return fmt.Errorf("%s role %q: %w", e, r.Name, err)
				}
			}
		}
		for i, u := range f.Users {
			e := "bootstrap " + entryName("users", i, u.Email)
			if ident := st.users[u.Email]; ident != nil {
				userIDs[u.Email] = ident.ID
			}
			for _, m := range u.Memberships {
				acctID := accountIDs[m.Account]
				if acctID == "" {
					acctID = st.accounts[m.Account].ID
					accountIDs[m.Account] = acctID
				}
				if sameMember(members[[2]string{acctID, u.Email}], u, roleID(st, acctID, m.Role)) {
					continue
				}
				rec, err := a.EnsureMember(acctID, scoping.Member{Email: u.Email, Name: u.Name, UserType: u.UserType, Status: u.Status, Role: m.Role})
				if err != nil {
					return fmt.Errorf("%s: membership in %q: %w", e, m.Account, err)
				}
				userIDs[u.Email] = rec.ID
			}
		}
		return nil
	})
	if err != nil {
		return err
	}

	store := db.AuthStore()
	for i, fa := range f.Accounts {
		for j, app := range fa.OAuthApplications {
			old, err := store.ApplicationByClientID(ctx, app.ClientID)
			if err == nil && old.AccountID == accountIDs[fa.Slug] && old.Name == app.Name &&
				sameSecret(old.SecretDigest, app.ClientSecret) && slices.Equal(old.RedirectURIs, app.RedirectURIs) {
				continue
			}
			if err := as.RegisterApplication(ctx, accountIDs[fa.Slug], app.Name, app.ClientID, app.ClientSecret, app.RedirectURIs); err != nil {
				return fmt.Errorf("bootstrap %s %s: %w", entryName("accounts", i, fa.Slug), entryName("oauth-applications", j, app.ClientID), err)
			}
		}
	}
	for i, u := range f.Users {
		e := "bootstrap " + entryName("users", i, u.Email)
		uid := userIDs[u.Email]
		if u.Password != "" {
			hash, err := store.PasswordHash(ctx, uid)
			if err != nil || bcrypt.CompareHashAndPassword(hash, []byte(u.Password)) != nil {
				if err := as.SetPassword(ctx, uid, u.Password); err != nil {
					return fmt.Errorf("%s: password: %w", e, err)
				}
			}
		}
		if u.UserType == "service" {
			acctID := accountIDs[u.Memberships[0].Account]
			old, err := store.ServiceCredentialByClientID(ctx, u.ClientID)
			if err == nil && old.AccountID == acctID && old.UserID == uid && sameSecret(old.SecretDigest, u.ClientSecret) {
				continue
			}
			if err := as.SetServiceCredential(ctx, acctID, uid, u.ClientID, u.ClientSecret); err != nil {
				return fmt.Errorf("%s: credentials: %w", e, err)
			}
		}
	}
	return nil
}

func sameSecret(digest []byte, secret string) bool {
	return subtle.ConstantTimeCompare(digest, auth.HashSecret(secret)) == 1
}

// builtinRoleSet is the roles a new account gets, as readState would see
// them.
func builtinRoleSet() map[string]*scoping.Record {
	m := map[string]*scoping.Record{}
	for _, br := range scoping.BuiltinRoles {
		perms := map[string]any{}
		for k, v := range br.Permissions {
			perms[k] = v
		}
		m[strings.ToLower(br.Name)] = &scoping.Record{Attrs: map[string]any{"name": br.Name, "permissions": perms, "project-visibility": br.Visibility}}
	}
	return m
}

func roleID(st *dbState, accountID, name string) string {
	if r := st.roles[accountID][strings.ToLower(name)]; r != nil {
		return r.ID
	}
	return ""
}

func sameCurrency(rec *scoping.Record, c bsCurrency) bool {
	if rec == nil || rec.Str("name") != c.Name {
		return false
	}
	if c.MinorUnits != nil && rec.Int("minor-units") != int64(*c.MinorUnits) {
		return false
	}
	want, err := decimal.NewFromString(string(c.ConversionRate))
	return err == nil && rec.Dec("conversion-rate").Equal(want)
}

func sameRole(rec *scoping.Record, r bsRole) bool {
	if rec == nil || rec.Str("name") != r.Name || rec.Str("project-visibility") != r.ProjectVisibility {
		return false
	}
	have, _ := rec.Attrs["permissions"].(map[string]any)
	for _, p := range scoping.Permissions {
		want := r.Permissions[p]
		if want == "" {
			want = scoping.AccessNone
		}
		if got, _ := have[p].(string); got != want {
			return false
		}
	}
	return true
}

// sameMember reports whether the membership record already says what the
// file says (EnsureMember would write these attributes).
func sameMember(rec *scoping.Record, u bsUser, roleID string) bool {
	if rec == nil || roleID == "" || rec.Rel("roles") != roleID || len(rec.Rels["roles"]) != 1 {
		return false
	}
	return rec.Str("email") == u.Email && rec.Str("name") == u.Name && rec.Str("user-type") == u.UserType &&
		rec.Str("status") == u.Status && rec.Bool("active") == (u.Status != auth.StatusDeactivated) &&
		rec.Bool("accepted") == (u.Status != auth.StatusInvited)
}
