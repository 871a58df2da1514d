package pricing

import (
	"math"
	"math/big"
	"math/bits"

	"github.com/shopspring/decimal"
)

// The line arithmetic runs on scaled integers rather than on decimal.Decimal:
// a decimal allocates a big.Int for every result, which over thousands of
// lines costs more than the whole pricing. A num is an exact integer that
// stays in an int64 while it fits and spills into a big.Int beyond, so the
// result is exact whatever the magnitudes; only speed depends on them.
//
// Scales are implied by what a num holds: hours are in hundredths (exponent
// -2), money in the currency's minor units.

// num is an exact integer: i while b is nil, else b (which is never mutated
// once stored, so nums may share it).
type num struct {
	i int64
	b *big.Int
}

// operand is an exact non-negative value coefficient × 10^exp: an input
// decimal or a num at a known scale.
type operand struct {
	c   uint64
	b   *big.Int // the coefficient when it does not fit c
	exp int32
}

var pow10 = [20]uint64{
	1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
}

// opOf returns d as an operand, and whether d is a valid input: zero or
// positive, and in range (see MaxDigits). The operand of an invalid input
// must not be used.
func opOf(d decimal.Decimal) (operand, bool) {
	n, exp := d.NumDigits(), d.Exponent()
	ok := inRange(n, exp)
	if n <= 18 {
		c := d.CoefficientInt64()
		return operand{c: uint64(c), exp: exp}, ok && c >= 0
	}
	b := d.Coefficient()
	return operand{b: b, exp: exp}, ok && b.Sign() >= 0
}

// validOp returns the operand of an input that validation has accepted.
func validOp(d decimal.Decimal) operand {
	o, _ := opOf(d)
	return o
}

// op returns n (zero or positive) as an operand at exponent exp.
func (n num) op(exp int32) operand {
	if n.b == nil {
		return operand{c: uint64(n.i), exp: exp}
	}
	return operand{b: n.b, exp: exp}
}

func (x operand) bigInt() *big.Int {
	if x.b != nil {
		return x.b
	}
	return new(big.Int).SetUint64(x.c)
}

func (n num) bigInt() *big.Int {
	if n.b != nil {
		return n.b
	}
	return big.NewInt(n.i)
}

func numOfBig(b *big.Int) num {
	if b.IsInt64() {
		return num{i: b.Int64()}
	}
	return num{b: b}
}

func (n num) isZero() bool { return n.b == nil && n.i == 0 }

func (n num) sign() int {
	if n.b != nil {
		return n.b.Sign()
	}
	switch {
	case n.i < 0:
		return -1
	case n.i > 0:
		return 1
	}
	return 0
}

func (x num) add(y num) num {
	if x.b == nil && y.b == nil {
		s := x.i + y.i
		if (s^x.i)&(s^y.i) >= 0 { // no signed overflow
			return num{i: s}
		}
	}
	return numOfBig(new(big.Int).Add(x.bigInt(), y.bigInt()))
}

// addTo adds y to *x in place; unlike x = x.add(y) it writes no pointer
// while both fit int64, which spares write barriers on accumulators.
func (x *num) addTo(y num) {
	if x.b == nil && y.b == nil {
		s := x.i + y.i
		if (s^x.i)&(s^y.i) >= 0 {
			x.i = s
			return
		}
	}
	*x = numOfBig(new(big.Int).Add(x.bigInt(), y.bigInt()))
}

func (x num) sub(y num) num {
	if x.b == nil && y.b == nil {
		s := x.i - y.i
		if (x.i^y.i)&(x.i^s) >= 0 {
			return num{i: s}
		}
	}
	return numOfBig(new(big.Int).Sub(x.bigInt(), y.bigInt()))
}

// zeros holds a zero decimal at each scale a result uses. Decimals are
// immutable (shopspring/decimal never changes a value's big.Int in place),
// so one zero serves every zero figure: most figures of a sparse project
// are zero, and each fresh decimal costs a big.Int allocation.
var zeros = func() (z [maxMinorUnits + 5]decimal.Decimal) {
	for i := range z {
		z[i] = decimal.New(0, -int32(i))
	}
	return z
}()

// dec returns n × 10^-places as a decimal.
func (n num) dec(places int32) decimal.Decimal {
	if n.b == nil {
		if n.i == 0 && places >= 0 && int(places) < len(zeros) {
			return zeros[places]
		}
		return decimal.New(n.i, -places)
	}
	return decimal.NewFromBigInt(n.b, -places)
}

// mulRound returns x × y rounded half up (both are zero or positive, so
// that is half away from zero) to a multiple of 10^exp, as an integer
// scaled by 10^-exp.
func mulRound(x, y operand, exp int32) num {
	shift := int64(x.exp) + int64(y.exp) - int64(exp)
	if x.b == nil && y.b == nil {
		hi, lo := bits.Mul64(x.c, y.c)
		switch {
		case hi == 0 && lo == 0:
			return num{}
		case shift == 0:
			if hi == 0 && lo <= math.MaxInt64 {
				return num{i: int64(lo)}
			}
		case shift > 0:
			if hi == 0 && shift < int64(len(pow10)) {
				h, l := bits.Mul64(lo, pow10[shift])
				if h == 0 && l <= math.MaxInt64 {
					return num{i: int64(l)}
				}
			}
		case shift >= -19:
			if q, ok := divRoundU128(hi, lo, pow10[-shift]); ok {
				return num{i: q}
			}
		case shift < -38:
			return num{} // the product is below 2^128 < 10^39: a third of the unit at most
		}
	}
	return mulRoundBig(x.bigInt(), y.bigInt(), shift)
}

func mulRoundBig(x, y *big.Int, shift int64) num {
	p := new(big.Int).Mul(x, y)
	switch {
	case shift > 0:
		p.Mul(p, pow10Big(shift))
	case shift < 0:
		k := -shift
		// p < 2^(3(k-1)) <= 10^(k-1) rounds to 0; this spares 10^k for tiny values.
		if int64(p.BitLen()) <= 3*(k-1) {
			return num{}
		}
		d := pow10Big(k)
		var r big.Int
		p.QuoRem(p, d, &r)
		if r.Lsh(&r, 1).Cmp(d) >= 0 {
			p.Add(p, big.NewInt(1))
		}
	}
	return numOfBig(p)
}

func pow10Big(k int64) *big.Int {
	return new(big.Int).Exp(big.NewInt(10), big.NewInt(k), nil)
}

// divRoundU128 returns (hi, lo) / d rounded half up when it fits an int64.
func divRoundU128(hi, lo, d uint64) (int64, bool) {
	if hi >= d {
		return 0, false
	}
	q, r := bits.Div64(hi, lo, d)
	if q > math.MaxInt64 {
		return 0, false
	}
	if r >= d-r {
		q++
	}
	if q > math.MaxInt64 {
		return 0, false
	}
	return int64(q), true
}

// mulDivRound returns x × y / z rounded half up; x and y are zero or
// positive, z positive.
func mulDivRound(x, y, z num) num {
	if x.b == nil && y.b == nil && z.b == nil {
		hi, lo := bits.Mul64(uint64(x.i), uint64(y.i))
		if q, ok := divRoundU128(hi, lo, uint64(z.i)); ok {
			return num{i: q}
		}
	}
	d := z.bigInt()
	p := new(big.Int).Mul(x.bigInt(), y.bigInt())
	var r big.Int
	p.QuoRem(p, d, &r)
	if r.Lsh(&r, 1).Cmp(d) >= 0 {
		p.Add(p, big.NewInt(1))
	}
	return numOfBig(p)
}
