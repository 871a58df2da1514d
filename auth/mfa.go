package auth

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base32"
	"fmt"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"
	"github.com/scopekit/scopekit"
)

// Two-step verification: a TOTP authenticator (RFC 6238: SHA-1, six
// digits, 30-second steps, what every authenticator app reads from a QR
// code) plus single-use recovery codes. A second factor belongs to the
// person, like the password: one identity across accounts.

// Sealer encrypts a value that must be read back later (the TOTP seed);
// the server's internal/seal.Sealer is one.
type Sealer interface {
	Seal(plain []byte) ([]byte, error)
	Open(sealed []byte) ([]byte, error)
}

// MFAPolicy is implemented by a Directory that knows which accounts
// require a second factor from every user who signs in to them.
type MFAPolicy interface {
	// MFARequired reports the account's setting; ENOTFOUND for no account.
	MFARequired(ctx context.Context, accountID string) (bool, error)
}

// MFA is a user's second factor as stored: the seed only sealed, the
// recovery codes only as digests.
type MFA struct {
	UserID       string
	SealedSecret []byte   // the TOTP seed, sealed by Service.Sealer
	Recovery     [][]byte // HashSecret of each recovery code not used yet
	// LastStep is the time step of the last TOTP code accepted: a code
	// of that step or an older one is refused (RFC 6238 5.2, no replay).
	LastStep int64
	// Failures counts the wrong codes in a row; at MaxMFAFailures the
	// second step is refused until LockedUntil.
	Failures    int
	LockedUntil time.Time
	EnrolledAt  time.Time
}

// Parameters of the second factor.
const (
	// RecoveryCodes is how many recovery codes an enrolment hands out.
	RecoveryCodes = 10
	// MaxMFAFailures wrong codes in a row lock the second step for
	// MFALockout: the per-address throttling alone would let a spread-out
	// guesser try the million codes.
	MaxMFAFailures = 10
	MFALockout     = 15 * time.Minute

	totpPeriod    = 30
	totpSkew      = 1  // steps accepted either side of now, for clock drift
	recoveryBytes = 10 // 80 bits: a SHA-256 digest is enough, as for tokens
	defaultIssuer = "ScopeKit"
)

var totpOpts = totp.ValidateOpts{Period: totpPeriod, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

// seedEncoding is how authenticators spell a seed (and otp.Key.Secret).
var seedEncoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// Enrolment is a second factor being set up: the seed for the
// authenticator (as text and as an otpauth:// URI, what the QR code
// holds) and the recovery codes, shown this once.
type Enrolment struct {
	Secret   string // base32, for typing into an authenticator
	URL      string // otpauth://totp/...
	Recovery []string
}

// newEnrolment draws a seed and recovery codes for the account name (the
// person's email) shown in the authenticator.
func (s *Service) newEnrolment(accountName string) (*Enrolment, error) {
	issuer := s.MFAIssuer
	if issuer == "" {
		issuer = defaultIssuer
	}
	key, err := totp.Generate(totp.GenerateOpts{Issuer: issuer, AccountName: accountName,
		Period: totpPeriod, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		return nil, fmt.Errorf("auth: totp seed: %w", err)
	}
	e := &Enrolment{Secret: key.Secret(), URL: key.URL()}
	for range RecoveryCodes {
		b := make([]byte, recoveryBytes)
		if _, err := rand.Read(b); err != nil {
			return nil, fmt.Errorf("auth: random: %w", err)
		}
		c := strings.ToLower(base32.StdEncoding.EncodeToString(b)) // 16 characters
		e.Recovery = append(e.Recovery, c[0:4]+"-"+c[4:8]+"-"+c[8:12]+"-"+c[12:16])
	}
	return e, nil
}

// normalizeCode drops the spaces and dashes people type or copy along
// with a code, and the case of a recovery code.
func normalizeCode(code string) string {
	return strings.ToLower(strings.Map(func(r rune) rune {
		if r == ' ' || r == '-' || r == '\t' {
			return -1
		}
		return r
	}, code))
}

// matchTOTP returns the time step near now whose code is code, if it is
// newer than last.
func matchTOTP(secret, code string, now time.Time, last int64) (int64, bool) {
	if len(code) != int(otp.DigitsSix) {
		return 0, false
	}
	cur := now.Unix() / totpPeriod
	for step := cur - totpSkew; step <= cur+totpSkew; step++ {
		want, err := totp.GenerateCodeCustom(secret, time.Unix(step*totpPeriod, 0), totpOpts)
		if err == nil && subtle.ConstantTimeCompare([]byte(want), []byte(code)) == 1 {
			return step, step > last
		}
	}
	return 0, false
}

// mfaStatus reports whether the user has a second factor and whether the
// account requires one.
func (s *Service) mfaStatus(ctx context.Context, userID, accountID string) (enrolled, required bool, err error) {
	_, err = s.Store.MFA(ctx, userID)
	switch {
	case err == nil:
		enrolled = true
	case !isNotFound(err):
		return false, false, fmt.Errorf("auth: mfa: %w", err)
	}
	if p, ok := s.Directory.(MFAPolicy); ok {
		if required, err = p.MFARequired(ctx, accountID); err != nil {
			return false, false, fmt.Errorf("auth: mfa policy: %w", err)
		}
	}
	return enrolled, required, nil
}

// codeCheck is the outcome of checkCode.
type codeCheck int

const (
	codeOK          codeCheck = iota
	codeWrong                 // wrong, replayed or already used
	codeLocked                // too many wrong codes: refused unchecked
	codeNotEnrolled           // the second factor was reset meanwhile
)

// checkCode checks a TOTP or recovery code of the user in one
// transaction: a TOTP step is accepted once, a recovery code is used up,
// and wrong codes are counted.
func (s *Service) checkCode(ctx context.Context, userID, code string) (codeCheck, error) {
	code = normalizeCode(code)
	now := s.now()
	var out codeCheck
	err := s.Store.Update(ctx, func(tx Tx) error {
		m, err := tx.MFA(userID)
		if isNotFound(err) {
			out = codeNotEnrolled
			return nil
		}
		if err != nil {
			return err
		}
		if now.Before(m.LockedUntil) {
			out = codeLocked
			return nil
		}
		out = codeWrong
		if step, ok, err := s.matchStored(m, code, now); err != nil {
			return err
		} else if ok {
			out, m.LastStep = codeOK, step
		} else if i := recoveryIndex(m.Recovery, code); i >= 0 {
			out, m.Recovery = codeOK, append(m.Recovery[:i:i], m.Recovery[i+1:]...)
		}
		if out == codeOK {
			m.Failures, m.LockedUntil = 0, time.Time{}
		} else if m.Failures++; m.Failures >= MaxMFAFailures {
			m.Failures, m.LockedUntil = 0, now.Add(MFALockout)
		}
		return tx.PutMFA(m)
	})
	return out, err
}

// matchStored is matchTOTP against the user's sealed seed.
func (s *Service) matchStored(m *MFA, code string, now time.Time) (int64, bool, error) {
	if len(code) != int(otp.DigitsSix) {
		return 0, false, nil
	}
	sealer, err := s.sealer()
	if err != nil {
		return 0, false, err
	}
	seed, err := sealer.Open(m.SealedSecret)
	if err != nil {
		return 0, false, fmt.Errorf("auth: open totp seed: %w", err)
	}
	step, ok := matchTOTP(seedEncoding.EncodeToString(seed), code, now, m.LastStep)
	return step, ok, nil
}

// recoveryIndex returns the index of code's digest among digests, -1 if
// none; every digest is compared, in constant time.
func recoveryIndex(digests [][]byte, code string) int {
	if len(code) != 16 {
		return -1
	}
	d, found := HashSecret(code), -1
	for i, x := range digests {
		if subtle.ConstantTimeCompare(d, x) == 1 {
			found = i
		}
	}
	return found
}

// enrol stores the second factor of a confirmed enrolment: the seed
// sealed, the recovery codes as digests, and step as used, and revokes
// the person's refresh tokens of sign-ins without one. A user who has one
// already (set up meanwhile in another sign-in) keeps it: false.
func (s *Service) enrol(ctx context.Context, userID string, e *Enrolment, step int64) (bool, error) {
	sealer, err := s.sealer()
	if err != nil {
		return false, err
	}
	seed, err := seedEncoding.DecodeString(e.Secret)
	if err != nil {
		return false, fmt.Errorf("auth: totp seed: %w", err)
	}
	sealed, err := sealer.Seal(seed)
	if err != nil {
		return false, fmt.Errorf("auth: seal totp seed: %w", err)
	}
	m := &MFA{UserID: userID, SealedSecret: sealed, LastStep: step, EnrolledAt: s.now()}
	for _, c := range e.Recovery {
		m.Recovery = append(m.Recovery, HashSecret(normalizeCode(c)))
	}
	stored := false
	err = s.Store.Update(ctx, func(tx Tx) error {
		_, err := tx.MFA(userID)
		if err == nil || !isNotFound(err) {
			stored = false
			return err
		}
		stored = true
		return tx.PutMFA(m)
	})
	if err != nil || !stored {
		return stored, err
	}
	// the person's sign-ins without a second factor no longer qualify,
	// in any account (policy.go)
	_, err = s.RevokeRefreshTokens(ctx, "", []string{userID}, false)
	return stored, err
}

func (s *Service) sealer() (Sealer, error) {
	if s.Sealer == nil {
		return nil, scopekit.Errorf(scopekit.EINTERNAL, "two-step verification needs a secret sealer (auth.Service.Sealer)")
	}
	return s.Sealer, nil
}

// ResetMFA removes the user's second factor, recovery codes included (an
// administrator's remedy for a lost authenticator): the next sign-in asks
// for none, or sets one up again where the account requires it. Since a
// second factor is the person's, the reset holds in every account.
// ENOTFOUND when the user is not a member of the account.
func (s *Service) ResetMFA(ctx context.Context, accountID, userID string) error {
	if _, err := s.Directory.Membership(ctx, userID, accountID); err != nil {
		return err
	}
	return s.Store.Update(ctx, func(tx Tx) error { return tx.DeleteMFA(userID) })
}
