package encoding

// This file holds the tagged integer body shared by INT, DATE and
// TIMESTAMP key values. The layout (ascending) is:
//
//	v in [0, 63]                 tagIntZero+v                      1 byte
//	v >= 64, n = bytes(v)        tagIntPos1+n-1, v big-endian (n)  2..9 bytes
//	v < 0,   n = bytes(^v) or 1  tagIntNeg1-(n-1), low n bytes of v big-endian
//
// Within one tag, the big-endian bytes order the values; between tags,
// the tag orders them. Only the shortest form is accepted when decoding.

// appendIntAsc appends the tagged ascending encoding of v.
func appendIntAsc(b []byte, v int64) []byte {
	if v >= 0 {
		if v <= intInlineMax {
			return append(b, tagIntZero+byte(v))
		}
		n := byteLen(uint64(v))
		b = append(b, tagIntPos1+byte(n-1))
		return appendBigEndian(b, uint64(v), n)
	}
	n := max(byteLen(uint64(^v)), 1)
	b = append(b, tagIntNeg1-byte(n-1))
	return appendBigEndian(b, uint64(v), n)
}

// isIntTag reports whether t (an ascending tag) starts an integer.
func isIntTag(t byte) bool { return t >= tagIntNeg8 && t <= tagIntPos8 }

// decodeIntBody decodes the integer whose ascending tag t has already been
// read; b holds the bytes after the tag, each to be XORed with mask.
func decodeIntBody(t byte, b []byte, mask byte) (rest []byte, v int64, err error) {
	switch {
	case t >= tagIntZero && t <= tagIntZero+intInlineMax:
		return b, int64(t - tagIntZero), nil
	case t >= tagIntPos1 && t <= tagIntPos8:
		n := int(t-tagIntPos1) + 1
		u, err := readBigEndian(b, n, mask)
		if err != nil {
			return nil, 0, err
		}
		switch {
		case n == 1 && u <= intInlineMax, n > 1 && u>>(8*(n-1)) == 0:
			return nil, 0, corruptf("int: non-canonical %d-byte form of %d", n, u)
		case u>>63 != 0:
			return nil, 0, corruptf("int: positive value out of range")
		}
		return b[n:], int64(u), nil
	case t >= tagIntNeg8 && t <= tagIntNeg1:
		n := int(tagIntNeg1-t) + 1
		u, err := readBigEndian(b, n, mask)
		if err != nil {
			return nil, 0, err
		}
		if n > 1 && byte(u>>(8*(n-1))) == 0xff {
			return nil, 0, corruptf("int: non-canonical %d-byte negative form", n)
		}
		if n < 8 {
			u |= ^uint64(0) << (8 * n) // sign-extend
		} else if u>>63 == 0 {
			return nil, 0, corruptf("int: negative value out of range")
		}
		return b[n:], int64(u), nil
	}
	return nil, 0, corruptf("int: bad tag 0x%02x", t)
}
