package eval

import (
	"math"
	"math/big"
	"strconv"
)

// PostgreSQL 12+ prints float4 and float8 (extra_float_digits = 1, the
// default) with Ryu's shortest digits, as modified in src/common/d2s.c
// and f2s.c: STRICTLY_SHORTEST is 0 there, so the digits are the fewest
// that lie strictly between the value's two rounding boundaries (the
// midpoints to its neighbours), never on a boundary, even where
// round-half-even would read a boundary back as the value. Of those, the
// one nearest the value is printed (ties to even). Go's strconv shortest
// formatting differs only there: it accepts a boundary when the
// mantissa is even (4611686016279904256 is 4.611686016279904e+18 in Go,
// 4.6116860162799043e+18 in PostgreSQL).
//
// The layout is printf's %g thresholds: fixed point when the decimal
// exponent is in [-4, 15) for float8 and [-4, 6) for float4, else
// d.ddde+XX with at least two exponent digits.

// appendShortestFloat appends PostgreSQL's text for a finite, non-zero f
// of bitSize 64 (float8) or 32 (float4, f already a float32 value).
func appendShortestFloat(b []byte, f float64, bitSize int) []byte {
	if f < 0 {
		b = append(b, '-')
		f = -f
	}
	digits, exp := shortestDigits(f, bitSize)
	maxExp := 15
	if bitSize == 32 {
		maxExp = 6
	}
	// exp is the decimal exponent of the first digit.
	if exp < -4 || exp >= maxExp {
		b = append(b, digits[0])
		if len(digits) > 1 {
			b = append(b, '.')
			b = append(b, digits[1:]...)
		}
		b = append(b, 'e')
		if exp < 0 {
			b = append(b, '-')
			exp = -exp
		} else {
			b = append(b, '+')
		}
		if exp < 10 {
			b = append(b, '0')
		}
		return strconv.AppendInt(b, int64(exp), 10)
	}
	switch {
	case exp < 0: // 0.000ddd
		b = append(b, '0', '.')
		for i := -1; i > exp; i-- {
			b = append(b, '0')
		}
		return append(b, digits...)
	case exp+1 >= len(digits): // ddd000
		b = append(b, digits...)
		for i := len(digits); i <= exp; i++ {
			b = append(b, '0')
		}
		return b
	}
	b = append(b, digits[:exp+1]...)
	b = append(b, '.')
	return append(b, digits[exp+1:]...)
}

// shortestDigits returns PostgreSQL's digits for a finite positive f and
// the decimal exponent of the first one. strconv's shortest digits are
// PostgreSQL's unless they could lie on a rounding boundary: that needs
// an even mantissa (else strconv excludes the boundaries too) and a
// boundary with a short decimal form: digits ending in 5, or a value past
// 2^53 (2^24 for float4), where the boundaries are integers. Those few
// values are computed exactly (shortestExact).
func shortestDigits(f float64, bitSize int) ([]byte, int) {
	digits, exp := strconvDigits(f, bitSize)
	mantissa, big := math.Float64bits(f)&(1<<52-1), f >= 1<<53
	if bitSize == 32 {
		mantissa, big = uint64(math.Float32bits(float32(f))&(1<<23-1)), f >= 1<<24
	}
	if mantissa&1 == 1 {
		return digits, exp
	}
	if fraction := len(digits)-1 > exp; fraction && digits[len(digits)-1] != '5' || !fraction && !big {
		return digits, exp
	}
	return shortestExact(f, bitSize)
}

// strconvDigits returns strconv's shortest digits of a finite positive f
// and the decimal exponent of the first one.
func strconvDigits(f float64, bitSize int) ([]byte, int) {
	var buf [32]byte
	e := strconv.AppendFloat(buf[:0], f, 'e', -1, bitSize)
	digits := make([]byte, 0, 17)
	for _, c := range e {
		if c == 'e' {
			break
		}
		if c != '.' {
			digits = append(digits, c)
		}
	}
	return digits, decimalExponent(e)
}

// shortestExact computes PostgreSQL's digits for a finite positive f in
// exact arithmetic: the coarsest power of ten 10^q with a multiple c·10^q
// strictly between the rounding boundaries, and of those multiples the
// nearest to f (ties to even), as Ryu's d2d/f2d with acceptBounds false.
func shortestExact(f float64, bitSize int) ([]byte, int) {
	// f = m2·2^e2. The boundaries are (4·m2 - 1 - mmShift)·2^(e2-2) and
	// (4·m2 + 2)·2^(e2-2): half an ulp either side, but a quarter below a
	// power of two above the subnormals (the ulp below is half as big).
	mbits, bias, ebits := 52, 1023, 11
	u := math.Float64bits(f)
	if bitSize == 32 {
		mbits, bias, ebits = 23, 127, 8
		u = uint64(math.Float32bits(float32(f)))
	}
	ieeeMantissa, ieeeExponent := u&(1<<mbits-1), int(u>>mbits)&(1<<ebits-1)
	m2, e2 := ieeeMantissa, 1-bias-mbits
	if ieeeExponent != 0 {
		m2 |= 1 << mbits
		e2 = ieeeExponent - bias - mbits
	}
	mmShift := uint64(1)
	if ieeeMantissa == 0 && ieeeExponent > 1 {
		mmShift = 0
	}
	e2 -= 2
	mv := new(big.Int).SetUint64(4 * m2)
	mp := new(big.Int).SetUint64(4*m2 + 2)
	mm := new(big.Int).SetUint64(4*m2 - 1 - mmShift)
	// x·2^e2 / 10^q as num/den.
	scaled := func(x *big.Int, q int) (num, den *big.Int) {
		num, den = new(big.Int).Set(x), big.NewInt(1)
		if e2 >= 0 {
			num.Lsh(num, uint(e2))
		} else {
			den.Lsh(den, uint(-e2))
		}
		p := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(max(q, -q))), nil)
		if q >= 0 {
			den.Mul(den, p)
		} else {
			num.Mul(num, p)
		}
		return num, den
	}
	one := big.NewInt(1)
	top := int(math.Floor(math.Log10(f))) + 2
	for q := top; q > top-40; q-- {
		// lo, hi: the smallest and largest multiples strictly inside.
		num, den := scaled(mm, q)
		lo := num.Quo(num, den)
		lo.Add(lo, one)
		num, den = scaled(mp, q)
		hi, r := new(big.Int).QuoRem(num, den, new(big.Int))
		if r.Sign() == 0 {
			hi.Sub(hi, one)
		}
		if lo.Cmp(hi) > 0 {
			continue
		}
		num, den = scaled(mv, q)
		c, r := new(big.Int).QuoRem(num, den, new(big.Int))
		r.Lsh(r, 1)
		if x := r.Cmp(den); x > 0 || (x == 0 && c.Bit(0) == 1) {
			c.Add(c, one)
		}
		if c.Cmp(lo) < 0 {
			c = lo
		} else if c.Cmp(hi) > 0 {
			c = hi
		}
		digits := []byte(c.String())
		exp := q + len(digits) - 1
		for len(digits) > 1 && digits[len(digits)-1] == '0' {
			digits = digits[:len(digits)-1]
		}
		return digits, exp
	}
	return strconvDigits(f, bitSize) // unreachable: 17 digits always fit
}
