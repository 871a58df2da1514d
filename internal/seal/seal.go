// Package seal encrypts the secrets ScopeKit must read back (a webhook
// subscription's signing secret, a second factor's seed) with the
// server's secret key, so that the store never holds them in clear.
package seal

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
)

// KeySize is the size of a Sealer key.
const KeySize = 32

// Sealer encrypts secrets with AES-256-GCM; it implements scoping.Sealer,
// webhook.Opener and auth.Sealer. A sealed value is the 12-byte nonce
// followed by the ciphertext and tag.
type Sealer struct{ aead cipher.AEAD }

// New returns a Sealer with a KeySize-byte key.
func New(key []byte) (*Sealer, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("seal: secret key must be %d bytes, not %d", KeySize, len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Sealer{aead: aead}, nil
}

// Seal encrypts plain.
func (s *Sealer) Seal(plain []byte) ([]byte, error) {
	nonce := make([]byte, s.aead.NonceSize(), s.aead.NonceSize()+len(plain)+s.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return s.aead.Seal(nonce, nonce, plain, nil), nil
}

// ErrUnseal is returned by Open for a value this key did not seal.
var ErrUnseal = errors.New("seal: cannot open sealed secret (wrong key or corrupt value)")

// Open decrypts a value Seal returned.
func (s *Sealer) Open(sealed []byte) ([]byte, error) {
	n := s.aead.NonceSize()
	if len(sealed) < n+s.aead.Overhead() {
		return nil, ErrUnseal
	}
	out, err := s.aead.Open(nil, sealed[:n], sealed[n:], nil)
	if err != nil {
		return nil, ErrUnseal
	}
	return out, nil
}
