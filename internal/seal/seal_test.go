package seal_test

import (
	"bytes"
	"testing"

	"github.com/scopekit/scopekit/internal/seal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Ensure a sealed secret shows nothing of the plain text, opens with its
// key only, and a key of the wrong size is refused.
func TestSealer(t *testing.T) {
	s, err := seal.New(bytes.Repeat([]byte{1}, seal.KeySize))
	require.NoError(t, err)
	sealed, err := s.Seal([]byte("whsec_abc"))
	require.NoError(t, err)
	assert.False(t, bytes.Contains(sealed, []byte("abc")))
	plain, err := s.Open(sealed)
	require.NoError(t, err)
	assert.Equal(t, "whsec_abc", string(plain))
	other, _ := seal.New(bytes.Repeat([]byte{2}, seal.KeySize))
	_, err = other.Open(sealed)
	assert.ErrorIs(t, err, seal.ErrUnseal)
	_, err = seal.New([]byte("short"))
	assert.Error(t, err)
}
