package encoding

import (
	"github.com/cockroachdb/apd/v3"
	"github.com/kvsql/kvsql/types"
)

// Decimal keys. A finite non-zero value is written as 0.d1d2...dn × 10^e
// with d1 and dn non-zero, so values equal as numbers (1.5 and 1.50)
// have one encoding and a display scale never reaches a key. The tag
// gives the sign class; a positive value follows with e as a tagged int
// and its digits as bytes 0x01..0x0a, ended by 0x00; a negative value
// follows with -e and its digits as bytes 0x0b..0x02 (9 down to 0), ended
// by 0x0c, so that a larger magnitude sorts first. Between two positive
// values the larger exponent wins, then the first larger digit, and a
// prefix (0.12 against 0.123) sorts first through its lower terminator.
const (
	decPosTerm byte = 0x00
	decNegTerm byte = 0x0c
)

// appendDecimalAsc appends the ascending encoding of a KindDecimal datum.
func appendDecimalAsc(b []byte, d types.Datum) []byte {
	var x apd.Decimal
	d.Decimal(&x)
	switch {
	case x.Form == apd.NaN || x.Form == apd.NaNSignaling:
		return append(b, tagDecNaN)
	case x.Form == apd.Infinite && x.Negative:
		return append(b, tagDecNegInf)
	case x.Form == apd.Infinite:
		return append(b, tagDecPosInf)
	case x.IsZero():
		return append(b, tagDecZero)
	}
	digits := x.Coeff.Append(make([]byte, 0, 24), 10)
	n := len(digits)
	for n > 1 && digits[n-1] == '0' {
		n--
	}
	e := int64(x.Exponent) + int64(len(digits))
	if x.Negative {
		b = appendIntAsc(append(b, tagDecNeg), -e)
		for _, c := range digits[:n] {
			b = append(b, 0x0b-(c-'0'))
		}
		return append(b, decNegTerm)
	}
	b = appendIntAsc(append(b, tagDecPos), e)
	for _, c := range digits[:n] {
		b = append(b, c-'0'+1)
	}
	return append(b, decPosTerm)
}

// decodeDecimalBody decodes what follows a decimal tag t (already read,
// ascending form); b's bytes are XORed with mask.
func decodeDecimalBody(t byte, b []byte, mask byte) (rest []byte, d types.Datum, err error) {
	var x apd.Decimal
	switch t {
	case tagDecNaN:
		return b, types.Datum{Kind: types.KindDecimal, S: "NaN"}, nil
	case tagDecNegInf:
		return b, types.Datum{Kind: types.KindDecimal, S: "-Infinity"}, nil
	case tagDecPosInf:
		return b, types.Datum{Kind: types.KindDecimal, S: "Infinity"}, nil
	case tagDecZero:
		return b, types.Datum{Kind: types.KindDecimal, S: "0"}, nil
	}
	if len(b) == 0 || !isIntTag(b[0]^mask) {
		return nil, types.Null, corruptf("decimal: missing exponent")
	}
	rest, e, err := decodeIntBody(b[0]^mask, b[1:], mask)
	if err != nil {
		return nil, types.Null, err
	}
	neg := t == tagDecNeg
	if neg {
		e = -e
	}
	var digits []byte
	for i := 0; ; i++ {
		if i == len(rest) {
			return nil, types.Null, corruptf("decimal: missing terminator")
		}
		c := rest[i] ^ mask
		switch {
		case !neg && c == decPosTerm, neg && c == decNegTerm:
			rest = rest[i+1:]
		case !neg && c >= 0x01 && c <= 0x0a:
			digits = append(digits, '0'+c-1)
			continue
		case neg && c >= 0x02 && c <= 0x0b:
			digits = append(digits, '0'+0x0b-c)
			continue
		default:
			return nil, types.Null, corruptf("decimal: bad digit byte 0x%02x", c)
		}
		break
	}
	if len(digits) == 0 || digits[0] == '0' || digits[len(digits)-1] == '0' {
		return nil, types.Null, corruptf("decimal: non-canonical digits")
	}
	exp := e - int64(len(digits))
	if exp < -(1<<30) || exp > 1<<30 {
		return nil, types.Null, corruptf("decimal: exponent out of range")
	}
	if _, ok := x.Coeff.SetString(string(digits), 10); !ok {
		return nil, types.Null, corruptf("decimal: bad digits")
	}
	x.Exponent, x.Negative = int32(exp), neg
	if x.Exponent > 0 {
		// Integers print without an exponent: scale them out.
		var ten apd.BigInt
		ten.Exp(apd.NewBigInt(10), apd.NewBigInt(int64(x.Exponent)), nil)
		x.Coeff.Mul(&x.Coeff, &ten)
		x.Exponent = 0
	}
	return rest, types.NewDecimal(&x), nil
}
