package auth

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/scopekit/scopekit"
	"golang.org/x/crypto/bcrypt"
)

// maxPasswordBytes is the most bcrypt looks at.
const maxPasswordBytes = 72

// clientIDBytes is the entropy of generated client ids (secrets get
// tokenBytes).
const clientIDBytes = 16

// RegisterApplication creates or replaces the account-level OAuth
// application clientID with a new secret (stored as its digest) and
// redirect URIs; a replaced application keeps its creation time. EINVALID
// when a value is blank, the client id is longer than 255 bytes, a redirect URI is not an absolute URI without a
// fragment (RFC 6749 3.1.2), or the client id is taken by a service
// credential or another account's application.
func (s *Service) RegisterApplication(ctx context.Context, accountID, name, clientID, clientSecret string, redirectURIs []string) error {
	if err := requireValues("account", accountID, "name", name, "client-id", clientID, "client-secret", clientSecret); err != nil {
		return err
	}
	if err := checkClientID(clientID); err != nil {
		return err
	}
	for _, u := range redirectURIs {
		p, err := url.Parse(u)
		if err != nil || !p.IsAbs() || strings.Contains(u, "#") {
			return scopekit.FieldErrorf(scopekit.EINVALID, "redirect-uris",
				"redirect URIs must be absolute URIs without a fragment")
		}
	}
	a := &Application{
		AccountID:    accountID,
		Name:         name,
		ClientID:     clientID,
		SecretDigest: HashSecret(clientSecret),
		RedirectURIs: append([]string(nil), redirectURIs...),
		CreatedAt:    s.now(),
	}
	return s.Store.Update(ctx, func(tx Tx) error {
		cred, err := orNone(tx.ServiceCredentialByClientID(clientID))
		if err != nil {
			return err
		}
		old, err := orNone(tx.ApplicationByClientID(clientID))
		if err != nil {
			return err
		}
		if cred != nil || (old != nil && old.AccountID != accountID) {
			return clientIDTaken()
		}
		if old != nil {
			a.CreatedAt = old.CreatedAt
		}
		return tx.PutApplication(a)
	})
}

// SetServiceCredential gives the user the client id and secret for the
// client_credentials grant in the account, replacing its previous ones. It
// does not consult the Directory, so the bootstrap file may set the
// credentials of users it creates in the same run. EINVALID when a value is
// blank or the client id is taken by an application or another credential.
func (s *Service) SetServiceCredential(ctx context.Context, accountID, userID, clientID, clientSecret string) error {
	if err := requireValues("account", accountID, "user", userID, "client-id", clientID, "client-secret", clientSecret); err != nil {
		return err
	}
	if err := checkClientID(clientID); err != nil {
		return err
	}
	return s.putServiceCredential(ctx, &ServiceCredential{
		AccountID:    accountID,
		UserID:       userID,
		ClientID:     clientID,
		SecretDigest: HashSecret(clientSecret),
		CreatedAt:    s.now(),
	})
}

// IssueServiceCredential generates a random client id and secret for a
// service account of the account and returns the stored credential and the
// secret; the secret is not kept and cannot be shown again. The user's
// previous credential stops working, and so do the access tokens minted
// with it. ENOTFOUND when the user is not a member of the account,
// ECONFLICT when it is not a service account.
func (s *Service) IssueServiceCredential(ctx context.Context, accountID, userID string) (cred *ServiceCredential, clientSecret string, err error) {
	m, err := s.Directory.Membership(ctx, userID, accountID)
	if err != nil {
		return nil, "", err
	}
	if !m.Service {
		return nil, "", scopekit.Errorf(scopekit.ECONFLICT, "credentials are issued to service accounts only; make the user a service account first (user-type: service)")
	}
	clientID, err := randomString(clientIDBytes)
	if err != nil {
		return nil, "", err
	}
	if clientSecret, err = randomString(tokenBytes); err != nil {
		return nil, "", err
	}
	cred = &ServiceCredential{
		AccountID:    accountID,
		UserID:       userID,
		ClientID:     clientID,
		SecretDigest: HashSecret(clientSecret),
		CreatedAt:    s.now(),
	}
	if err := s.putServiceCredential(ctx, cred); err != nil {
		return nil, "", err
	}
	return cred, clientSecret, nil
}

// putServiceCredential stores c as the user's one credential in the
// account: the previous ones are removed, and their client ids stop
// working. EINVALID when c's client id is an application's or another
// user's credential's.
func (s *Service) putServiceCredential(ctx context.Context, c *ServiceCredential) error {
	return s.Store.Update(ctx, func(tx Tx) error {
		// the user's credentials before the client id: every writer reads
		// them in this order
		mine, err := tx.ServiceCredentials(c.AccountID, c.UserID)
		if err != nil {
			return err
		}
		app, err := orNone(tx.ApplicationByClientID(c.ClientID))
		if err != nil {
			return err
		}
		other, err := orNone(tx.ServiceCredentialByClientID(c.ClientID))
		if err != nil {
			return err
		}
		if app != nil || (other != nil && (other.AccountID != c.AccountID || other.UserID != c.UserID)) {
			return clientIDTaken()
		}
		for _, old := range mine {
			if old.ClientID != c.ClientID {
				if err := tx.DeleteServiceCredential(old.ClientID); err != nil {
					return err
				}
			}
		}
		return tx.PutServiceCredential(c)
	})
}

// clientIDTaken is the refusal of a client id that another client holds:
// client ids are one namespace across applications and service
// credentials, since POST /oauth/token finds a client by its id alone, and
// an application's id stays with its account.
func clientIDTaken() error {
	return scopekit.FieldErrorf(scopekit.EINVALID, "client-id", "client id is already in use")
}

// orNone turns the ENOTFOUND of a lookup into a nil record.
func orNone[T any](v *T, err error) (*T, error) {
	if isNotFound(err) {
		return nil, nil
	}
	return v, err
}

// MinPasswordChars is the shortest password a person may choose
// (docs/auth.md: invitations ask for 12 characters).
const MinPasswordChars = 12

// CheckNewPassword applies the password policy to a password a person
// chooses: at least MinPasswordChars characters and at most 72 bytes (what
// bcrypt reads). EINVALID naming the field "password" otherwise.
func CheckNewPassword(password string) error {
	if n := utf8.RuneCountInString(password); n < MinPasswordChars {
		return scopekit.FieldErrorf(scopekit.EINVALID, "password", "password must be at least %d characters", MinPasswordChars)
	}
	if len(password) > maxPasswordBytes {
		return scopekit.FieldErrorf(scopekit.EINVALID, "password", "password must be at most %d bytes", maxPasswordBytes)
	}
	return nil
}

// EstablishPassword is the password step of accepting an invitation. A
// user without a password gets this one (EINVALID when CheckNewPassword
// refuses it). A user who already has one (an identity invited into one
// more account) keeps it and must prove it: EINVALID when password is not
// it. That way whoever holds an invitation token, the inviter included,
// cannot take over an existing identity by choosing its password.
func (s *Service) EstablishPassword(ctx context.Context, userID, password string) error {
	set, err := s.PreparePassword(ctx, userID, password)
	if err != nil || !set {
		return err
	}
	return s.SetPassword(ctx, userID, password)
}

// PreparePassword is EstablishPassword's check, writing nothing: set is
// true when the password is a new one to store (SetPassword), false when
// the identity already has this password. An invitation is accepted
// between the two, so that of two accepts at once only the one that
// consumes the invitation stores its password.
func (s *Service) PreparePassword(ctx context.Context, userID, password string) (set bool, err error) {
	if err := requireValues("user", userID); err != nil {
		return false, err
	}
	ok, has, err := s.verifyPassword(ctx, userID, password)
	switch {
	case err != nil:
		return false, err
	case ok:
		return false, nil
	case has:
		return false, scopekit.FieldErrorf(scopekit.EINVALID, "password",
			"this email already has a password (from another account); enter that password to accept")
	}
	if err := CheckNewPassword(password); err != nil {
		return false, err
	}
	if len(password) > maxPasswordBytes {
		return false, scopekit.FieldErrorf(scopekit.EINVALID, "password", "password must be at most %d bytes", maxPasswordBytes)
	}
	return true, nil
}

// SetPassword sets the user's password (stored as a bcrypt hash of cost
// s.BcryptCost). EINVALID when the user id or password is blank or the
// password is longer than 72 bytes. Minimum lengths are the caller's policy
// (invitations ask for 12 characters).
func (s *Service) SetPassword(ctx context.Context, userID, password string) error {
	if err := requireValues("user", userID, "password", password); err != nil {
		return err
	}
	if len(password) > maxPasswordBytes {
		return scopekit.FieldErrorf(scopekit.EINVALID, "password", "password must be at most %d bytes", maxPasswordBytes)
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), s.bcryptCost())
	if err != nil {
		return fmt.Errorf("auth: hash password: %w", err)
	}
	return s.Store.SetPasswordHash(ctx, userID, hash)
}

// maxClientIDBytes bounds client ids, which are store keys and travel in
// forms and Basic headers.
const maxClientIDBytes = 255

func checkClientID(id string) error {
	if len(id) > maxClientIDBytes {
		return scopekit.FieldErrorf(scopekit.EINVALID, "client-id", "client id must be at most %d bytes", maxClientIDBytes)
	}
	return nil
}

// requireValues takes (field, value) pairs and returns an EINVALID error
// naming the first blank value.
func requireValues(pairs ...string) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		if strings.TrimSpace(pairs[i+1]) == "" {
			return scopekit.FieldErrorf(scopekit.EINVALID, pairs[i], "%s must not be blank", pairs[i])
		}
	}
	return nil
}
