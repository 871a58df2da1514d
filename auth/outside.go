package auth

import (
	"errors"
	"fmt"
	"net/mail"
	"net/netip"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Values that come from outside ScopeKit (an identity provider's claims,
// its issuer URL as an administrator typed it) and become part of an
// account (docs/auth.md "Accounts are walls", rule 6): they are checked
// or brought to one form here, before anything is stored or looked up.

// Bounds of values from outside.
const (
	// MaxEmailBytes bounds an email address (RFC 5321's path limit less
	// the angle brackets).
	MaxEmailBytes = 254
	// MaxNameChars bounds a person's name as an identity provider gives
	// it; a longer one is cut.
	MaxNameChars = 200
)

// CheckEmail checks that s is one email address, as a mailbox is written
// on its own: no display name, no comment, no second "@" outside quotes,
// at most MaxEmailBytes bytes of valid UTF-8 without control characters,
// and a domain name (not an address literal). Its error says what is
// wrong without quoting s.
func CheckEmail(s string) error {
	switch {
	case s == "":
		return errors.New("the email is empty")
	case len(s) > MaxEmailBytes:
		return fmt.Errorf("the email is longer than %d bytes", MaxEmailBytes)
	case !utf8.ValidString(s):
		return errors.New("the email is not valid UTF-8")
	case strings.ContainsFunc(s, unicode.IsControl):
		return errors.New("the email contains a control character")
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name != "" || a.Address != s {
		return errors.New("the email is not one address such as name@example.com")
	}
	at := strings.LastIndexByte(s, '@')
	if d := s[at+1:]; !strings.Contains(d, ".") || strings.HasPrefix(d, "[") {
		return errors.New("the email's domain is not a domain name such as example.com")
	}
	return nil
}

// CleanName returns the name an identity provider gave, as ScopeKit
// keeps it: control characters (CR, LF, NUL...) and runs of white space
// become one space, the ends are trimmed and it is cut to MaxNameChars
// characters. A name is shown, never matched, so a long one is cut rather
// than refused.
func CleanName(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	var b strings.Builder
	n, space := 0, false
	for _, r := range s {
		if unicode.IsControl(r) || unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if n == MaxNameChars {
			break
		}
		if space {
			if n+1 == MaxNameChars {
				break
			}
			b.WriteByte(' ')
			n++
			space = false
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// NormalizeIssuer returns an issuer URL in its one form: scheme and host
// in lower case, no default port, no trailing slash. It must be absolute,
// without credentials, query or fragment, and use https (plain http only
// on a loopback host, for trying things out). The error completes
// "issuer-url ...".
//
// Two issuer URLs name the same provider when their forms are equal; the
// provider's discovery document may spell its issuer either way (package
// sso keeps its spelling to verify ID tokens).
func NormalizeIssuer(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() || u.Host == "" || u.User != nil || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || u.Opaque != "" {
		return "", errors.New("must be an absolute URL without query or fragment, such as https://login.example.com")
	}
	u.Scheme = strings.ToLower(u.Scheme)
	host, port := strings.ToLower(u.Hostname()), u.Port()
	switch {
	case u.Scheme == "https" && port == "443", u.Scheme == "http" && port == "80":
		port = ""
	}
	switch u.Scheme {
	case "https":
	case "http":
		if ip, err := netip.ParseAddr(host); host != "localhost" && (err != nil || !ip.IsLoopback()) {
			return "", errors.New("must use https (plain http only on a loopback address)")
		}
	default:
		return "", errors.New("must use https (plain http only on a loopback address)")
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	u.Host = host
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = strings.TrimRight(u.RawPath, "/")
	return u.String(), nil
}
