package eval

import (
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"math"
	"strings"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// byteaFunc runs PostgreSQL's binary string functions: encode/decode in
// the hex, base64 and escape formats, the SHA-2 digests, get_byte and
// set_byte, and float4send and float8send (IEEE 754 bits, big-endian). Arguments are non-NULL; ok is false for other names.
func byteaFunc(e *planner.Func, args []types.Datum) (d types.Datum, ok bool, err error) {
	switch e.Name {
	case "encode":
		s, err := encodeBytea(args[0].S, args[1].S)
		return types.NewText(s), true, err
	case "decode":
		b, err := decodeBytea(args[0].S, args[1].S)
		return types.NewBytes(b), true, err
	case "float4send":
		return types.NewBytes(binary.BigEndian.AppendUint32(nil, math.Float32bits(float32(args[0].F)))), true, nil
	case "float8send":
		return types.NewBytes(binary.BigEndian.AppendUint64(nil, math.Float64bits(args[0].F))), true, nil
	case "sha224":
		h := sha256.Sum224([]byte(args[0].S))
		return types.NewBytes(h[:]), true, nil
	case "sha256":
		h := sha256.Sum256([]byte(args[0].S))
		return types.NewBytes(h[:]), true, nil
	case "sha384":
		h := sha512.Sum384([]byte(args[0].S))
		return types.NewBytes(h[:]), true, nil
	case "sha512":
		h := sha512.Sum512([]byte(args[0].S))
		return types.NewBytes(h[:]), true, nil
	case "get_byte", "set_byte":
		n := args[1].I
		if n < 0 || n >= int64(len(args[0].S)) {
			return types.Null, true, pgerror.Newf("2202E", "index %d out of valid range, 0..%d", n, len(args[0].S)-1)
		}
		if e.Name == "get_byte" {
			return types.NewInt(int64(args[0].S[n])), true, nil
		}
		b := []byte(args[0].S)
		b[n] = byte(args[2].I)
		return types.NewBytes(b), true, nil
	}
	return types.Null, false, nil
}

func unknownEncoding(format string) error {
	return pgerror.Newf(pgerror.InvalidParameterValue, "unrecognized encoding: %q", format)
}

// encodeBytea is encode(data, format).
func encodeBytea(b, format string) (string, error) {
	switch strings.ToLower(format) {
	case "hex":
		return hex.EncodeToString([]byte(b)), nil
	case "base64":
		// PostgreSQL breaks base64 lines at 76 characters.
		s := base64.StdEncoding.EncodeToString([]byte(b))
		var out strings.Builder
		for len(s) > 76 {
			out.WriteString(s[:76])
			out.WriteByte('\n')
			s = s[76:]
		}
		out.WriteString(s)
		return out.String(), nil
	case "escape":
		// NUL and bytes with the high bit set as \ooo, backslash doubled.
		var out strings.Builder
		for i := 0; i < len(b); i++ {
			switch c := b[i]; {
			case c == '\\':
				out.WriteString(`\\`)
			case c == 0 || c >= 0x80:
				out.WriteByte('\\')
				out.WriteByte('0' + c>>6)
				out.WriteByte('0' + c>>3&7)
				out.WriteByte('0' + c&7)
			default:
				out.WriteByte(c)
			}
		}
		return out.String(), nil
	}
	return "", unknownEncoding(format)
}

// decodeBytea is decode(text, format).
func decodeBytea(s, format string) ([]byte, error) {
	switch strings.ToLower(format) {
	case "hex":
		b, err := hex.DecodeString(strings.Map(func(r rune) rune {
			if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, s))
		if err != nil {
			return nil, pgerror.Newf(pgerror.InvalidParameterValue, "invalid hexadecimal data: %v", err)
		}
		return b, nil
	case "base64":
		b, err := base64.StdEncoding.DecodeString(strings.Map(func(r rune) rune {
			if r == ' ' || r == '\t' || r == '\n' || r == '\r' {
				return -1
			}
			return r
		}, s))
		if err != nil {
			return nil, pgerror.New(pgerror.InvalidParameterValue, "invalid base64 end sequence")
		}
		return b, nil
	case "escape":
		d, err := parseBytea(s)
		if err != nil {
			return nil, err
		}
		return []byte(d.S), nil
	}
	return nil, unknownEncoding(format)
}
