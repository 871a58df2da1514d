package scoping

import (
	"github.com/scopekit/scopekit/auth"
	"github.com/scopekit/scopekit/engine"
	"github.com/scopekit/scopekit/scoping/views"
)

// Limits of the person's attributes that arrive from outside (docs/auth.md
// "Accounts are walls", rule 6), the same as auth applies to an identity
// provider's claims.
const (
	MaxEmailBytes = auth.MaxEmailBytes
	MaxNameChars  = auth.MaxNameChars
)

// CheckEmail accepts one RFC 5322 address and nothing else (auth.CheckEmail:
// no display name, comment, group or second address, at most MaxEmailBytes
// bytes, no control characters, a domain name). EINVALID naming the email
// attribute otherwise. An email is the key of a person across accounts, so
// "a@b@evil.test" or one with CR LF in it must never be stored.
func CheckEmail(email string) error {
	if err := auth.CheckEmail(email); err != nil {
		return engine.Invalid(engine.AttrPointer(views.NameEmail), "%s", err.Error())
	}
	return nil
}
