package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"time"
)

// SecretPrefix begins every Standard Webhooks secret.
const SecretPrefix = "whsec_"

// Sign returns the webhook-signature header value of a message per the
// Standard Webhooks spec: "v1," and the base64 HMAC-SHA256, keyed with the
// secret's decoded bytes, of "<id>.<unix timestamp>.<body>".
func Sign(secret, id string, ts time.Time, body []byte) (string, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, SecretPrefix))
	if err != nil || len(key) == 0 {
		return "", errors.New("webhook: malformed secret")
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id))
	m.Write([]byte{'.'})
	m.Write([]byte(strconv.FormatInt(ts.Unix(), 10)))
	m.Write([]byte{'.'})
	m.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil)), nil
}
