package pricing

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/shopspring/decimal"
)

// Ensure the int64 fast paths give exactly what decimal arithmetic gives,
// at the edges of int64 and of every shift, and fall back rather than wrap.
func TestMulRound_MatchesDecimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	edges := []uint64{0, 1, 5, 9, 10, 49, 50, 51, 99, 100, 12345, 1e9, 1e18 - 1, 1e18, math.MaxInt64 / 10, math.MaxInt64 - 1, math.MaxInt64}
	coefficient := func() uint64 {
		switch rng.IntN(3) {
		case 0:
			return edges[rng.IntN(len(edges))]
		case 1:
			return rng.Uint64N(1000000)
		}
		return rng.Uint64N(math.MaxInt64)
	}
	for range 200000 {
		x := decimal.New(int64(coefficient()), -rng.Int32N(25))
		y := decimal.New(int64(coefficient()), rng.Int32N(30)-22)
		exp := -rng.Int32N(6)
		want := x.Mul(y).Round(-exp)
		got := mulRound(validOp(x), validOp(y), exp).dec(-exp)
		if !got.Equal(want) {
			t.Fatalf("mulRound(%s, %s, %d) = %s, want %s", x, y, exp, got, want)
		}
	}
}

// Ensure mulDivRound rounds half up exactly, in int64 and beyond.
func TestMulDivRound_MatchesDecimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 100000 {
		x, y := rng.Int64N(math.MaxInt64), rng.Int64N(1<<uint(rng.IntN(63)))
		z := rng.Int64N(math.MaxInt64>>uint(rng.IntN(63))) + 1
		want := decimal.NewFromInt(x).Mul(decimal.NewFromInt(y)).DivRound(decimal.NewFromInt(z), 0)
		got := mulDivRound(num{i: x}, num{i: y}, num{i: z}).dec(0)
		if !got.Equal(want) {
			t.Fatalf("mulDivRound(%d, %d, %d) = %s, want %s", x, y, z, got, want)
		}
	}
	huge := num{b: new(big.Int).Lsh(big.NewInt(1), 100)}
	if got := mulDivRound(huge, num{i: 3}, num{i: 2}).dec(0); !got.Equal(decimal.NewFromBigInt(huge.b, 0).Mul(decimal.New(15, -1))) {
		t.Fatalf("mulDivRound(2^100, 3, 2) = %s", got)
	}
}

// Ensure sums and differences spill into big.Int instead of wrapping.
func TestNum_AddSubOverflow(t *testing.T) {
	max, min := num{i: math.MaxInt64}, num{i: math.MinInt64}
	if got := max.add(num{i: 1}).dec(0); !got.Equal(decimal.NewFromInt(math.MaxInt64).Add(decimal.New(1, 0))) {
		t.Fatalf("MaxInt64 + 1 = %s", got)
	}
	if got := min.sub(num{i: 1}).dec(0); !got.Equal(decimal.NewFromInt(math.MinInt64).Sub(decimal.New(1, 0))) {
		t.Fatalf("MinInt64 - 1 = %s", got)
	}
	back := max.add(num{i: 1}).sub(num{i: 1})
	if back.b != nil || back.i != math.MaxInt64 {
		t.Fatalf("MaxInt64 + 1 - 1 = %+v, want it back in an int64", back)
	}
}

// Ensure the rounding helper is half away from zero for both signs.
func TestRoundHalfAway(t *testing.T) {
	for _, tt := range []struct {
		in     string
		places int32
		want   string
	}{
		{"0.005", 2, "0.01"}, {"-0.005", 2, "-0.01"}, {"0.0049", 2, "0.00"}, {"-0.0049", 2, "0.00"},
		{"2.675", 2, "2.68"}, {"-2.675", 2, "-2.68"}, {"-2.665", 2, "-2.67"}, {"1.5", 0, "2"}, {"-1.5", 0, "-2"},
		{"-0.5", 0, "-1"}, {"-0.49", 0, "0"}, {"-250", 2, "-250.00"}, {"-1.23456789", 4, "-1.2346"},
	} {
		got := roundHalfAway(decimal.RequireFromString(tt.in), tt.places)
		if got.StringFixed(tt.places) != tt.want || got.Exponent() != -tt.places {
			t.Errorf("roundHalfAway(%s, %d) = %s (exponent %d), want %s", tt.in, tt.places, got, got.Exponent(), tt.want)
		}
	}
}

// Ensure the shared zero decimals stay zero whatever is done with a figure
// that is one of them (decimals are immutable; this guards the library).
func TestSharedZerosStayZero(t *testing.T) {
	z := num{}.dec(2)
	d := decimal.New(123, -1)
	for _, r := range []decimal.Decimal{z.Add(d), z.Sub(d), d.Add(z), z.Round(1), z.Round(4), z.Mul(d), z.Neg(), decimal.Sum(z, d, d)} {
		_ = r.String()
	}
	for i, zero := range zeros {
		if !zero.IsZero() || zero.Exponent() != -int32(i) {
			t.Fatalf("zeros[%d] changed: %s", i, zero)
		}
	}
}
