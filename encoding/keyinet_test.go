package encoding

import (
	"bytes"
	"cmp"
	"math/rand/v2"
	"net/netip"
	"testing"

	"github.com/kvsql/kvsql/types"
)

// networkCmp is PostgreSQL's network_cmp, written from its definition:
// IPv4 before IPv6; then the first min(bits) bits of the addresses; then
// the netmask lengths; then the whole addresses.
func networkCmp(a, b types.InetValue) int {
	if a.Addr.Is4() != b.Addr.Is4() {
		if a.Addr.Is4() {
			return -1
		}
		return 1
	}
	bitAt := func(x netip.Addr, i int) int { return int(x.AsSlice()[i/8]>>(7-i%8)) & 1 }
	for i := 0; i < min(a.Bits, b.Bits); i++ {
		if d := bitAt(a.Addr, i) - bitAt(b.Addr, i); d != 0 {
			return d
		}
	}
	if a.Bits != b.Bits {
		return a.Bits - b.Bits
	}
	return a.Addr.Compare(b.Addr)
}

// randInet draws addresses from a few shared prefixes, so that pairs
// often agree on their first bits and differ in the netmask or the host
// part, where the sortable form has to get network_cmp's order right.
func randInet(r *rand.Rand) types.InetValue {
	v6 := r.IntN(4) == 0
	n := 4
	if v6 {
		n = 16
	}
	b := make([]byte, n)
	for i := range b {
		switch r.IntN(4) {
		case 0:
			b[i] = byte(r.IntN(256))
		case 1:
			b[i] = 0xff
		case 2:
			b[i] = byte(r.IntN(2)) << 7
		}
	}
	a, _ := netip.AddrFromSlice(b)
	return types.InetValue{Addr: a, Bits: r.IntN(8*n + 1)}
}

// TestKeyInetOrder checks that inet keys, as bytes, sort in PostgreSQL's
// network_cmp order in both directions, and decode back to the value.
func TestKeyInetOrder(t *testing.T) {
	r := newRand(t)
	for range 20000 {
		a, b := randInet(r), randInet(r)
		if r.IntN(3) == 0 {
			b = types.InetValue{Addr: a.Addr, Bits: r.IntN(a.Addr.BitLen() + 1)} // same address, other mask
		}
		want := networkCmp(a, b)
		da, db := types.NewInet(a), types.NewInet(b)
		for _, dir := range dirs {
			ka, kb := EncodeKeyDatum(nil, da, dir), EncodeKeyDatum(nil, db, dir)
			got := bytes.Compare(ka, kb)
			if dir == Descending {
				got = -got
			}
			if sign(got) != sign(want) {
				t.Fatalf("%v: %v/%d vs %v/%d: bytes say %d, network_cmp %d", dir, a.Addr, a.Bits, b.Addr, b.Bits, got, want)
			}
			rest, d, _, err := DecodeKeyDatum(append(ka, 0x7f))
			if err != nil || !bytes.Equal(rest, []byte{0x7f}) {
				t.Fatalf("decode %x: rest %x, %v", ka, rest, err)
			}
			v, ok := types.InetOf(d)
			if !ok || v != a {
				t.Fatalf("decode %x: %v/%d, want %v/%d", ka, v.Addr, v.Bits, a.Addr, a.Bits)
			}
		}
	}
}

// timetzCmp is PostgreSQL's timetz_cmp_internal: the times moved to UTC
// (time plus the zone's seconds west), then the zones.
func timetzCmp(a, b types.TimeTZValue) int {
	ta, tb := a.Micros-int64(a.Offset)*1e6, b.Micros-int64(b.Offset)*1e6
	if ta != tb {
		return cmp.Compare(ta, tb)
	}
	return cmp.Compare(-a.Offset, -b.Offset)
}

// TestKeyTimeTZOrder checks that timetz keys sort in timetz_cmp order in
// both directions and decode back to the value.
func TestKeyTimeTZOrder(t *testing.T) {
	r := newRand(t)
	quarters := types.MaxTimeTZOffset / 900 // zones in steps of 15 minutes
	randTZ := func() types.TimeTZValue {
		return types.TimeTZValue{Micros: int64(r.IntN(49)) * 1800e6, Offset: (r.IntN(2*quarters+1) - quarters) * 900}
	}
	for range 20000 {
		a, b := randTZ(), randTZ()
		want := timetzCmp(a, b)
		for _, dir := range dirs {
			ka, kb := EncodeKeyDatum(nil, types.NewTimeTZ(a), dir), EncodeKeyDatum(nil, types.NewTimeTZ(b), dir)
			got := bytes.Compare(ka, kb)
			if dir == Descending {
				got = -got
			}
			if sign(got) != sign(want) {
				t.Fatalf("%v: %+v vs %+v: bytes say %d, timetz_cmp %d", dir, a, b, got, want)
			}
			_, d, _, err := DecodeKeyDatum(ka)
			if v, ok := types.TimeTZOf(d); err != nil || !ok || v != a {
				t.Fatalf("decode %x: %+v (%v)", ka, v, err)
			}
		}
	}
}
