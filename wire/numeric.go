package wire

import (
	"encoding/binary"
	"strconv"
	"strings"

	"github.com/kvsql/kvsql/pgerror"
)

// PostgreSQL's binary NUMERIC is a header of four 16-bit fields followed by
// base-10000 digits, most significant first:
//
//	ndigits int16   number of base-10000 digits that follow
//	weight  int16   power of 10000 of the first digit (123.45 → 0)
//	sign    uint16  0x0000 positive, 0x4000 negative, 0xC000 NaN,
//	                0xD000 +Infinity, 0xF000 -Infinity
//	dscale  int16   decimal digits after the point, for display
//	digits  []int16 each 0..9999
//
// 123.45 is ndigits=2 weight=0 sign=0 dscale=2 digits=[123, 4500].
const (
	numericPos    = 0x0000
	numericNeg    = 0x4000
	numericNaN    = 0xC000
	numericPInf   = 0xD000
	numericNInf   = 0xF000
	numericHeader = 8
)

// appendNumericBinary encodes a NUMERIC value, given as its text
// ("-123.45", "NaN", "Infinity"), in PostgreSQL's binary NUMERIC format.
func appendNumericBinary(b []byte, s string) []byte {
	header := func(ndigits, weight int, sign uint16, dscale int) []byte {
		b = binary.BigEndian.AppendUint16(b, uint16(ndigits))
		b = binary.BigEndian.AppendUint16(b, uint16(int16(weight)))
		b = binary.BigEndian.AppendUint16(b, sign)
		return binary.BigEndian.AppendUint16(b, uint16(dscale))
	}
	switch s {
	case "NaN":
		return header(0, 0, numericNaN, 0)
	case "Infinity":
		return header(0, 0, numericPInf, 0)
	case "-Infinity":
		return header(0, 0, numericNInf, 0)
	}
	sign := uint16(numericPos)
	if strings.HasPrefix(s, "-") {
		sign, s = numericNeg, s[1:]
	}
	intPart, frac, _ := strings.Cut(s, ".")
	dscale := len(frac)
	intPart = strings.TrimLeft(intPart, "0")
	// Pad both parts to whole groups of four decimal digits.
	if r := len(intPart) % 4; r != 0 {
		intPart = strings.Repeat("0", 4-r) + intPart
	}
	if r := len(frac) % 4; r != 0 {
		frac += strings.Repeat("0", 4-r)
	}
	all := intPart + frac
	digits := make([]uint16, 0, len(all)/4)
	for i := 0; i+4 <= len(all); i += 4 {
		v, _ := strconv.Atoi(all[i : i+4])
		digits = append(digits, uint16(v))
	}
	weight := len(intPart)/4 - 1
	for len(digits) > 0 && digits[0] == 0 {
		digits = digits[1:]
		weight--
	}
	for len(digits) > 0 && digits[len(digits)-1] == 0 {
		digits = digits[:len(digits)-1]
	}
	if len(digits) == 0 {
		return header(0, 0, numericPos, dscale)
	}
	b = header(len(digits), weight, sign, dscale)
	for _, d := range digits {
		b = binary.BigEndian.AppendUint16(b, d)
	}
	return b
}

// decodeNumericBinary reads PostgreSQL's binary NUMERIC into its text,
// exactly, with the display scale the value carries.
func decodeNumericBinary(raw []byte) (string, error) {
	bad := func(why string) (string, error) {
		return "", pgerror.Newf(pgerror.ProtocolViolation, "invalid binary numeric: %s", why)
	}
	if len(raw) < numericHeader {
		return bad("short header")
	}
	ndigits := int(int16(binary.BigEndian.Uint16(raw[0:])))
	weight := int(int16(binary.BigEndian.Uint16(raw[2:])))
	sign := binary.BigEndian.Uint16(raw[4:])
	dscale := int(int16(binary.BigEndian.Uint16(raw[6:])))
	if ndigits < 0 || len(raw) != numericHeader+2*ndigits {
		return bad("digit count does not match length")
	}
	switch sign {
	case numericNaN:
		return "NaN", nil
	case numericPInf:
		return "Infinity", nil
	case numericNInf:
		return "-Infinity", nil
	case numericPos, numericNeg:
	default:
		return bad("unknown sign")
	}
	if dscale < 0 || dscale > 16383 {
		return bad("display scale out of range")
	}
	// The digits as one decimal string, and where its point falls.
	var sb strings.Builder
	for i := 0; i < ndigits; i++ {
		d := binary.BigEndian.Uint16(raw[numericHeader+2*i:])
		if d > 9999 {
			return bad("digit out of range")
		}
		s := strconv.Itoa(int(d))
		sb.WriteString(strings.Repeat("0", 4-len(s)))
		sb.WriteString(s)
	}
	digits := sb.String()
	point := 4 * (weight + 1) // digits before the point
	var intPart, frac string
	switch {
	case point <= 0:
		frac = strings.Repeat("0", -point) + digits
	case point >= len(digits):
		intPart = digits + strings.Repeat("0", point-len(digits))
	default:
		intPart, frac = digits[:point], digits[point:]
	}
	intPart = strings.TrimLeft(intPart, "0")
	if intPart == "" {
		intPart = "0"
	}
	// The display scale decides the fraction: pad, or drop digits beyond
	// it (PostgreSQL sends none).
	if len(frac) < dscale {
		frac += strings.Repeat("0", dscale-len(frac))
	}
	frac = frac[:dscale]
	out := intPart
	if dscale > 0 {
		out += "." + frac
	}
	if sign == numericNeg && strings.Trim(out, "0.") != "" {
		out = "-" + out
	}
	return out, nil
}
