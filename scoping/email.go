package scoping

import (
	"net/mail"
	"strings"
	"unicode"

	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
)

// Limits of the person's attributes that arrive from outside (docs/auth.md
// "Accounts are walls", rule 6): an email is what one SMTP path holds
// (RFC 5321), a name what any page shows on a line.
const (
	MaxEmailBytes = 254
	MaxNameChars  = 200
)

// CheckEmail accepts one RFC 5322 address and nothing else: no display
// name, comment, group or second address (net/mail reads it back as
// itself), at most MaxEmailBytes bytes, no control characters. EINVALID
// naming the email attribute otherwise. An email is the key of a person
// across accounts, so "a@b@evil.test" or one with CR LF in it must never
// be stored.
func CheckEmail(email string) error {
	bad := func(why string) error {
		return engine.Invalid(engine.AttrPointer(views.NameEmail), "email %s", why)
	}
	if len(email) > MaxEmailBytes {
		return bad("is too long (at most 254 bytes)")
	}
	if strings.IndexFunc(email, unicode.IsControl) >= 0 {
		return bad("must not contain control characters")
	}
	addr, err := mail.ParseAddress(email)
	if err != nil || addr.Name != "" || addr.Address != email {
		return bad("must be one email address, such as ann@example.com")
	}
	return nil
}
