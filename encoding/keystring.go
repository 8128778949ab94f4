package encoding

import (
	"bytes"
	"strings"
)

// appendEscaped appends s in its ascending escaped form: each 0x00 byte
// becomes 0x00 0xFF and the value ends with 0x00 0x01. Because the
// terminator is smaller than every escaped or plain continuation, a string
// sorts before its extensions, and a tuple ("a", "b") sorts before
// ("ab", "").
func appendEscaped(b []byte, s string) []byte {
	for {
		i := strings.IndexByte(s, escByte)
		if i < 0 {
			break
		}
		b = append(b, s[:i+1]...)
		b = append(b, escZero)
		s = s[i+1:]
	}
	b = append(b, s...)
	return append(b, escByte, escTerm)
}

// decodeEscaped reverses appendEscaped; b holds the bytes after the tag,
// each to be XORed with mask. It allocates the returned string once (not at
// all for an empty one).
func decodeEscaped(b []byte, mask byte) (rest []byte, s string, err error) {
	esc := escByte ^ mask
	// Pass 1: find the terminator, check every escape, count the length.
	n, pos := 0, 0
	for {
		i := bytes.IndexByte(b[pos:], esc)
		if i < 0 {
			return nil, "", corruptf("string: missing terminator")
		}
		j := pos + i
		if j+1 >= len(b) {
			return nil, "", corruptf("string: truncated escape")
		}
		n += i
		switch b[j+1] ^ mask {
		case escTerm:
			if n == j {
				// No escapes: the data is b[:j] as it stands.
				if mask == 0 {
					return b[j+2:], string(b[:j]), nil
				}
			}
			return b[j+2:], unescape(b[:j], n, mask), nil
		case escZero:
			n++
			pos = j + 2
		default:
			return nil, "", corruptf("string: bad escape 0x00 0x%02x", b[j+1]^mask)
		}
	}
}

// unescape builds the n-byte string held in the (validated) escaped bytes
// b, which exclude the terminator.
func unescape(b []byte, n int, mask byte) string {
	if n == 0 {
		return ""
	}
	var sb strings.Builder
	sb.Grow(n)
	for k := 0; k < len(b); k++ {
		c := b[k] ^ mask
		sb.WriteByte(c)
		if c == escByte {
			k++ // skip the escZero that follows
		}
	}
	return sb.String()
}
