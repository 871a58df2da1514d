package bounded

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// Ensure a Map returns what was put, never holds more than Size entries
// (a full one starts over), and is safe for concurrent use.
func TestMap(t *testing.T) {
	var m Map[int, string]
	_, ok := m.Get(1)
	require.False(t, ok, "zero map is empty")
	m.Put(1, "a")
	m.Put(1, "b")
	v, ok := m.Get(1)
	require.True(t, ok)
	require.Equal(t, "b", v)

	for i := 2; i <= Size; i++ {
		m.Put(i, "x")
	}
	require.Len(t, m.m, Size)
	_, ok = m.Get(1)
	require.True(t, ok, "still held when exactly full")
	m.Put(Size+1, "y")
	require.Len(t, m.m, 1, "started over")
	_, ok = m.Get(1)
	require.False(t, ok)

	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 2 * Size {
				m.Put(g*10000+i, "z")
				m.Get(i)
			}
		})
	}
	wg.Wait()
	require.LessOrEqual(t, len(m.m), Size)
}

// Ensure a Decoded decodes each stored value once, and again when the
// bytes under its key change.
func TestDecoded(t *testing.T) {
	var d Decoded[string]
	calls := 0
	decode := func(b []byte) (string, error) {
		calls++
		return string(b), nil
	}
	raw := []byte("one")
	for range 3 {
		v, err := d.Get("k", raw, decode)
		require.NoError(t, err)
		require.Equal(t, "one", v)
	}
	require.Equal(t, 1, calls)
	raw[0] = 'O' // the caller's buffer changes: the entry kept its own copy
	v, _ := d.Get("k", raw, decode)
	require.Equal(t, "One", v)
	require.Equal(t, 2, calls)
}
