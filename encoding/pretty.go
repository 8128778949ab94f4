package encoding

import (
	"encoding/hex"
	"math"
	"strconv"
	"strings"

	"github.com/kvsql/kvsql/types"
)

// badMarker starts the rendering of bytes Pretty cannot decode.
const badMarker = "!bad:"

// Pretty renders a key for people: the space, then each value, separated
// by slashes, for example
//
//	/52/1/"abc"/NULL/desc(7)/2024-01-02
//
// It needs no schema, because every value's tag names its kind and
// direction. Descending values are wrapped in desc(...). Text is quoted as
// a Go string, bytes as '\x..', floats always show a decimal point or an
// exponent (1.0, 1e+21, NaN, Infinity), timestamps as "2006-01-02
// 15:04:05.999999". Pretty never fails: from the first byte it cannot
// decode, the rest of the key is rendered as /!bad:<hex>. The empty key
// renders as /Min.
func Pretty(key []byte) string {
	if len(key) == 0 {
		return "/Min"
	}
	var sb strings.Builder
	rest, space, err := DecodeUvarintAsc(key)
	if err != nil {
		writeBad(&sb, key)
		return sb.String()
	}
	sb.WriteByte('/')
	sb.WriteString(strconv.FormatUint(space, 10))
	for len(rest) > 0 {
		r, d, dir, err := DecodeKeyDatum(rest)
		if err != nil {
			writeBad(&sb, rest)
			break
		}
		sb.WriteByte('/')
		if dir == Descending {
			sb.WriteString("desc(")
			sb.WriteString(PrettyDatum(d))
			sb.WriteByte(')')
		} else {
			sb.WriteString(PrettyDatum(d))
		}
		rest = r
	}
	return sb.String()
}

// PrettyRow renders a row value as {id:value, ...}, for example
// {1:42, 2:"abc", 4:NULL}. Like Pretty it never fails: undecodable bytes
// end the rendering with !bad:<hex>.
func PrettyRow(value []byte) string {
	ids, vals, err := DecodeRowAll(value)
	var sb strings.Builder
	sb.WriteByte('{')
	for i := range ids {
		if i > 0 {
			sb.WriteString(", ")
		}
		sb.WriteString(strconv.FormatUint(uint64(ids[i]), 10))
		sb.WriteByte(':')
		sb.WriteString(PrettyDatum(vals[i]))
	}
	if err != nil {
		if len(ids) > 0 {
			sb.WriteString(", ")
		}
		// The failing column's offset is not tracked; show the whole value.
		sb.WriteString(badMarker)
		sb.WriteString(hex.EncodeToString(value))
	}
	sb.WriteByte('}')
	return sb.String()
}

// PrettyDatum renders one value as Pretty does. Unlike types.Datum.String
// it keeps kinds apart: a float always has a '.', an exponent, or is
// NaN/Infinity, so 1 (int) and 1.0 (float) differ, and a numeric says
// so (1.50::numeric).
func PrettyDatum(d types.Datum) string {
	if d.Kind == types.KindFloat && !math.IsInf(d.F, 0) && !math.IsNaN(d.F) {
		s := strconv.FormatFloat(d.F, 'g', -1, 64)
		if !strings.ContainsAny(s, ".e") {
			s += ".0"
		}
		return s
	}
	if d.Kind == types.KindDecimal {
		return d.S + "::numeric"
	}
	return d.String()
}

func writeBad(sb *strings.Builder, b []byte) {
	sb.WriteByte('/')
	sb.WriteString(badMarker)
	sb.WriteString(hex.EncodeToString(b))
}
