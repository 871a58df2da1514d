package app

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/scopekit/scopekit/internal/seal"
)

// KeySize is the size of the secret key, in bytes.
const KeySize = seal.KeySize

// LoadOrCreateKey reads the secret key from path (the key in base64 on
// one line), creating the file with a random key and mode 0600 when it
// does not exist. Losing the file makes what it sealed unreadable:
// webhook deliveries fail until their subscriptions are created again,
// second factors must be set up again.
func LoadOrCreateKey(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		key := make([]byte, KeySize)
		if _, err := rand.Read(key); err != nil {
			return nil, err
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return nil, fmt.Errorf("create secret key file: %w", err)
		}
		_, err = f.WriteString(base64.StdEncoding.EncodeToString(key) + "\n")
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(path)
			return nil, fmt.Errorf("write secret key file: %w", err)
		}
		return key, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read secret key file: %w", err)
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(key) != KeySize {
		return nil, fmt.Errorf("secret key file %s must hold %d bytes in base64 on one line", path, KeySize)
	}
	return key, nil
}
