package pricing

import (
	"math/rand/v2"
	"testing"
)

// Ensure the integer ratio of the delivery figures is ratio's: half away
// from zero for both signs, 0 over 0, and the decimal path beyond int64.
func TestRatio4IsRatio(t *testing.T) {
	check := func(a, b num) {
		t.Helper()
		want := ratio(a.dec(2), b.dec(2), 4)
		if got := ratio4(a, b); !got.Equal(want.Decimal) || got.String() != want.String() {
			t.Fatalf("ratio4(%v, %v) = %s, want %s", a.dec(2), b.dec(2), got, want)
		}
	}
	for _, c := range [][2]int64{{0, 0}, {5, 0}, {1, 3}, {-1, 3}, {2, 3}, {-2, 3}, {1, 8}, {-1, 8}, {3, 80000}, {-3, 80000},
		{5, 100000}, {-5, 100000}, {1 << 47, 3}, {1 << 50, 7}, {-(1 << 50), 7}, {7, 1 << 50}} {
		check(num{i: c[0]}, num{i: c[1]})
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		a, b := r.Int64N(2_000_000)-1_000_000, r.Int64N(2_000_000)-1_000_000
		check(num{i: a}, num{i: b})
	}
}
