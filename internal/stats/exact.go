package stats

import (
	"math"
	"math/big"
	"math/bits"
)

// exactSums holds the exact sums of a set of finite float64 values over one common
// power-of-two denominator: value i = m_i · 2^exp, sum = Σ m_i · 2^exp,
// sumSq = Σ m_i² · 2^(2·exp).
type exactSums struct {
	n     int
	exp   int
	sum   big.Int
	sumSq big.Int
}

// nonFinite reports the IEEE result of summing values when some are NaN or infinite, as
// math.fsum does (it returns NaN where fsum raises for inf + -inf). ok is false when every
// value is finite.
func nonFinite(values []float64) (result float64, ok bool) {
	var pos, neg, nan bool
	for _, v := range values {
		switch {
		case math.IsNaN(v):
			nan = true
		case math.IsInf(v, 1):
			pos = true
		case math.IsInf(v, -1):
			neg = true
		}
	}
	switch {
	case nan || (pos && neg):
		return math.NaN(), true
	case pos:
		return math.Inf(1), true
	case neg:
		return math.Inf(-1), true
	}
	return 0, false
}

// decompose splits a finite non-zero v into an odd integer mantissa and an exponent with
// v = mant · 2^exp. Stripping trailing zero bits keeps the common denominator small, so
// integral values such as token counts stay tiny integers.
func decompose(v float64) (mant int64, exp int) {
	frac, e := math.Frexp(v) // v = frac · 2^e, 0.5 ≤ |frac| < 1, exact for subnormals too
	m := int64(frac * (1 << 53))
	tz := bits.TrailingZeros64(uint64(m))
	return m >> tz, e - 53 + tz
}

// sumsOf computes the exact sums of finite values. When withSquares is false only sum is
// filled in (fsum and the means do not need the squares).
func sumsOf(values []float64, withSquares bool) *exactSums {
	s := &exactSums{n: len(values)}
	first := true
	for _, v := range values {
		if v == 0 {
			continue
		}
		if _, e := decompose(v); first || e < s.exp {
			s.exp, first = e, false
		}
	}
	var term, sq big.Int
	for _, v := range values {
		if v == 0 {
			continue
		}
		m, e := decompose(v)
		term.SetInt64(m)
		term.Lsh(&term, uint(e-s.exp))
		s.sum.Add(&s.sum, &term)
		if withSquares {
			sq.Mul(&term, &term)
			s.sumSq.Add(&s.sumSq, &sq)
		}
	}
	return s
}

// roundScaled returns x · 2^exp rounded once to the nearest float64 (ties to even), with
// overflow to ±Inf and correct subnormal rounding.
func roundScaled(x *big.Int, exp int) float64 {
	if x.Sign() == 0 {
		return 0
	}
	var f big.Float
	f.SetInt(x) // precision grows to fit x, so this is exact
	f.SetMantExp(&f, exp)
	r, _ := f.Float64()
	return r
}

// mean returns the exact mean sum / n rounded once (Python statistics.mean).
func (s *exactSums) mean() float64 {
	num := new(big.Int).Set(&s.sum)
	den := big.NewInt(int64(s.n))
	// Move the power of two into the numerator or the denominator so the rational is exact.
	if s.exp >= 0 {
		num.Lsh(num, uint(s.exp))
	} else {
		den.Lsh(den, uint(-s.exp))
	}
	r, _ := new(big.Rat).SetFrac(num, den).Float64()
	return r
}

// sampleStdDev returns the correctly rounded square root of the exact sample variance.
//
// With m_i the scaled integers, S = Σ m_i and Q = Σ m_i², the sum of squared deviations from
// the exact mean is (n·Q − S²)/n · 2^(2·exp), so the variance is
// P/D · 2^(2·exp) with P = n·Q − S² and D = n·(n−1), and the stddev is √(P/D) · 2^exp.
func (s *exactSums) sampleStdDev() float64 {
	if s.n < 2 {
		return 0
	}
	n := big.NewInt(int64(s.n))
	p := new(big.Int).Mul(n, &s.sumSq)
	p.Sub(p, new(big.Int).Mul(&s.sum, &s.sum))
	if p.Sign() <= 0 { // all values equal (P is never negative, by Cauchy–Schwarz)
		return 0
	}
	d := new(big.Int).Mul(n, big.NewInt(int64(s.n-1)))
	root, k := sqrtFracRTO(p, d)
	return roundScaled(root, s.exp+k)
}

// sqrtBits is the minimum width of the integer square root before the final rounding; any
// width ≥ 53+2 makes round-to-odd followed by round-to-nearest a correct rounding.
const sqrtBits = 64

// sqrtFracRTO returns r and k with √(p/d) ≈ r · 2^k, where r has at least sqrtBits bits and
// is rounded to odd: its lowest bit is set whenever the root is inexact. Rounding r · 2^k to
// float64 then gives the correctly rounded root (the same scheme as CPython's
// _float_sqrt_of_frac).
func sqrtFracRTO(p, d *big.Int) (*big.Int, int) {
	// Choose k so that p/d · 4^(−k) has about 2·sqrtBits bits.
	k := (p.BitLen() - d.BitLen() - 2*sqrtBits - 2) / 2
	num, den := new(big.Int).Set(p), new(big.Int).Set(d)
	if k >= 0 {
		den.Lsh(den, uint(2*k))
	} else {
		num.Lsh(num, uint(-2*k))
	}
	q, rem := new(big.Int).QuoRem(num, den, new(big.Int))
	root := new(big.Int).Sqrt(q) // floor(√q) == floor(√(num/den))
	exact := rem.Sign() == 0
	if exact {
		sq := new(big.Int).Mul(root, root)
		exact = sq.Cmp(q) == 0
	}
	if !exact {
		root.SetBit(root, 0, 1)
	}
	return root, k
}
