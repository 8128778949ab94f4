package types

import (
	"net/netip"
	"strconv"
	"strings"
)

// inet and cidr values. A KindBytes datum of family Inet or Cidr holds
// the value in a form whose byte order is PostgreSQL's network_cmp
// order, so comparison, hashing and the bytes key encoding need nothing
// of their own:
//
//	family  1 byte: 4 or 6 (IPv4 sorts before IPv6)
//	network 4 or 16 bytes: the address with the bits right of the mask cleared
//	bits    1 byte: the netmask length, 0..32 or 0..128
//	address 4 or 16 bytes: the whole address
//
// network_cmp compares the first min(bits) bits of the addresses, then
// the netmask lengths, then the whole addresses. Byte order agrees: if
// the addresses differ within the shorter mask, the networks differ
// there too; if not, the value with the longer mask has a network that
// is equal or larger (its extra bits can only be ones), and when the
// networks are equal the lengths decide, then the addresses.

// InetValue is an inet or cidr value taken apart.
type InetValue struct {
	Addr netip.Addr // an IPv4 address is 4 bytes (Is4), never 4-in-6
	Bits int        // the netmask length
}

// MaxBits is the length of the value's address in bits: 32 or 128.
func (v InetValue) MaxBits() int { return v.Addr.BitLen() }

// Network is the address with the bits right of the mask cleared.
func (v InetValue) Network() netip.Addr {
	p, _ := v.Addr.Prefix(v.Bits)
	return p.Addr()
}

// NewInet returns the datum of v.
func NewInet(v InetValue) Datum {
	n := v.Network().AsSlice()
	a := v.Addr.AsSlice()
	b := make([]byte, 0, 2+2*len(a))
	fam := byte(4)
	if len(a) == 16 {
		fam = 6
	}
	b = append(b, fam)
	b = append(b, n...)
	b = append(b, byte(v.Bits))
	b = append(b, a...)
	return Datum{Kind: KindBytes, S: string(b)}
}

// InetOf takes an inet or cidr datum apart; ok is false when d does not
// hold one.
func InetOf(d Datum) (InetValue, bool) {
	if d.Kind != KindBytes {
		return InetValue{}, false
	}
	s := d.S
	var n int
	switch {
	case len(s) == 10 && s[0] == 4:
		n = 4
	case len(s) == 34 && s[0] == 6:
		n = 16
	default:
		return InetValue{}, false
	}
	a, ok := netip.AddrFromSlice([]byte(s[2+n:]))
	bits := int(s[1+n])
	if !ok || bits > 8*n {
		return InetValue{}, false
	}
	return InetValue{Addr: a, Bits: bits}, true
}

// InetError says why ParseInet refused its text: a syntax error, or
// (for cidr) bits set right of the mask.
type InetError int

const (
	InetSyntax      InetError = iota + 1 // invalid input syntax for type inet/cidr
	InetHostBitsSet                      // invalid cidr value: Value has bits set to right of mask.
)

// ParseInet reads inet (cidr false) or cidr text as PostgreSQL's
// inet_in and cidr_in do: an IPv4 address in dotted decimal, or an IPv6
// address, optionally followed by /bits. inet needs all four IPv4
// octets unless /bits is given; cidr may abbreviate them and then takes
// a classful default mask wide enough for the octets given, and refuses
// bits set right of the mask. No whitespace is allowed.
func ParseInet(s string, cidr bool) (InetValue, InetError) {
	addrText, bitsText, hasBits := strings.Cut(s, "/")
	bits := -1
	if hasBits {
		if bitsText == "" || len(bitsText) > 3 {
			return InetValue{}, InetSyntax
		}
		n, err := strconv.Atoi(bitsText)
		if err != nil || n < 0 || bitsText[0] == '+' || bitsText[0] == '-' {
			return InetValue{}, InetSyntax
		}
		bits = n
	}
	var v InetValue
	if strings.Contains(addrText, ":") {
		if strings.Contains(addrText, "%") {
			return InetValue{}, InetSyntax
		}
		a, err := netip.ParseAddr(addrText)
		if err != nil {
			return InetValue{}, InetSyntax
		}
		if bits < 0 {
			bits = 128
		}
		v = InetValue{Addr: a, Bits: bits}
	} else {
		var oct [4]byte
		parts := strings.Split(addrText, ".")
		if len(parts) > 4 || (!cidr && !hasBits && len(parts) != 4) {
			return InetValue{}, InetSyntax
		}
		for i, p := range parts {
			if p == "" || len(p) > 3 {
				return InetValue{}, InetSyntax
			}
			n, err := strconv.Atoi(p)
			if err != nil || n > 255 || p[0] == '+' || p[0] == '-' {
				return InetValue{}, InetSyntax
			}
			oct[i] = byte(n)
		}
		if bits < 0 {
			bits = 32
			if cidr {
				bits = classfulBits(oct[0], len(parts))
			}
		}
		v = InetValue{Addr: netip.AddrFrom4(oct), Bits: bits}
	}
	if v.Bits > v.MaxBits() {
		return InetValue{}, InetSyntax
	}
	if cidr && v.Network() != v.Addr {
		return InetValue{}, InetHostBitsSet
	}
	return v, 0
}

// classfulBits is cidr's netmask for an IPv4 network written without
// one: its class's (A /8, B /16, C /24, D /8, above that /32), widened
// to cover the octets written; 224 alone is /4.
func classfulBits(first byte, octets int) int {
	var bits int
	switch {
	case first >= 240:
		bits = 32
	case first >= 224:
		bits = 8
	case first >= 192:
		bits = 24
	case first >= 128:
		bits = 16
	default:
		bits = 8
	}
	bits = max(bits, 8*octets)
	if bits == 8 && first == 224 {
		bits = 4 // class D with nothing more written
	}
	return bits
}

// AppendInet appends v as PostgreSQL prints it: the address, then /bits
// unless bits is the whole address and withBits is false (inet's output
// leaves a host's mask out, cidr's and text(inet) always show it).
func AppendInet(b []byte, v InetValue, withBits bool) []byte {
	if v.Addr.Is4() {
		b = v.Addr.AppendTo(b)
	} else {
		b = appendIPv6(b, v.Addr.As16())
	}
	if withBits || v.Bits != v.MaxBits() {
		b = append(b, '/')
		b = strconv.AppendInt(b, int64(v.Bits), 10)
	}
	return b
}

// appendIPv6 writes an IPv6 address as PostgreSQL's inet_net_ntop does
// (BIND's algorithm): lower-case hex groups, the longest run of two or
// more zero groups (the first if tied) as "::", and an embedded IPv4
// address in dotted form after six zero groups or after ::ffff:.
func appendIPv6(b []byte, a [16]byte) []byte {
	var w [8]int
	for i := range w {
		w[i] = int(a[2*i])<<8 | int(a[2*i+1])
	}
	bestBase, bestLen, curBase, curLen := -1, 0, -1, 0
	for i := range w {
		if w[i] == 0 {
			if curBase < 0 {
				curBase, curLen = i, 1
			} else {
				curLen++
			}
			continue
		}
		if curBase >= 0 {
			if bestBase < 0 || curLen > bestLen {
				bestBase, bestLen = curBase, curLen
			}
			curBase = -1
		}
	}
	if curBase >= 0 && (bestBase < 0 || curLen > bestLen) {
		bestBase, bestLen = curBase, curLen
	}
	if bestBase >= 0 && bestLen < 2 {
		bestBase = -1
	}
	for i := 0; i < 8; i++ {
		if bestBase >= 0 && i >= bestBase && i < bestBase+bestLen {
			if i == bestBase {
				b = append(b, ':')
			}
			continue
		}
		if i != 0 {
			b = append(b, ':')
		}
		if i == 6 && bestBase == 0 && (bestLen == 6 || (bestLen == 5 && w[5] == 0xffff)) {
			return netip.AddrFrom4([4]byte{a[12], a[13], a[14], a[15]}).AppendTo(b)
		}
		b = strconv.AppendInt(b, int64(w[i]), 16)
	}
	if bestBase >= 0 && bestBase+bestLen == 8 {
		b = append(b, ':')
	}
	return b
}
