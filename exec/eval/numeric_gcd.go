package eval

import (
	"math/big"

	"github.com/cockroachdb/apd/v3"

	"github.com/kvsql/kvsql/types"
)

// decimalGCDLCM is gcd and lcm on numeric arguments as PostgreSQL 15
// computes them: NaN when either is NaN or infinite; otherwise exact, on
// the values scaled to integers by the larger display scale, and shown
// with that scale, never negative (lcm of anything with 0 is 0).
func decimalGCDLCM(name string, a, b types.Datum) (types.Datum, error) {
	var x, y apd.Decimal
	if err := toDecimal(a, &x); err != nil {
		return types.Null, err
	}
	if err := toDecimal(b, &y); err != nil {
		return types.Null, err
	}
	if x.Form != apd.Finite || y.Form != apd.Finite {
		return types.Datum{Kind: types.KindDecimal, S: "NaN"}, nil
	}
	scale := max(scaleOf(&x), scaleOf(&y))
	xi, yi := scaledInt(&x, scale), scaledInt(&y, scale)
	xi.Abs(xi)
	yi.Abs(yi)
	r := new(big.Int)
	switch {
	case name == "gcd":
		r.GCD(nil, nil, xi, yi)
	case xi.Sign() == 0 || yi.Sign() == 0:
	default:
		g := new(big.Int).GCD(nil, nil, xi, yi)
		r.Mul(xi.Quo(xi, g), yi)
	}
	var res apd.Decimal
	res.Coeff.SetMathBigInt(r)
	res.Exponent = -scale
	return decimalResult(&res)
}

// scaledInt is x·10^scale as an integer (x has at most scale fractional
// digits).
func scaledInt(x *apd.Decimal, scale int32) *big.Int {
	n := x.Coeff.MathBigInt()
	if e := int64(x.Exponent) + int64(scale); e > 0 {
		n.Mul(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(e), nil))
	}
	if x.Negative {
		n.Neg(n)
	}
	return n
}
