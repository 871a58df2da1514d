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

// Ensure a Map with a Limit starts over at it, and a Sharded holds at
// most its limit in all and returns what was put.
func TestLimits(t *testing.T) {
	m := Map[int, int]{Limit: 3}
	for i := range 3 {
		m.Put(i, i)
	}
	require.Len(t, m.m, 3)
	m.Put(3, 3)
	require.Len(t, m.m, 1, "full: started over")

	s := NewSharded[string, int](64)
	for i := range 1000 {
		s.Put(string(rune('a'+i%26))+string(rune(i)), i)
	}
	total := 0
	for i := range s.m {
		total += len(s.m[i].m)
		require.LessOrEqual(t, len(s.m[i].m), 64/shards)
	}
	require.LessOrEqual(t, total, 64)
	s.Put("k", 7)
	v, ok := s.Get("k")
	require.True(t, ok)
	require.Equal(t, 7, v)
}
