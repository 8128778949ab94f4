package wire

import (
	"net/netip"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// PostgreSQL's address family codes in inet's binary form (PGSQL_AF_INET
// and PGSQL_AF_INET6), not the host's AF_ values.
const (
	pgAFInet  = 2
	pgAFInet6 = 3
)

// appendInetBinary appends inet's or cidr's binary form (inet_send):
// family, netmask length, is-cidr flag, address length, address.
func appendInetBinary(b []byte, v types.InetValue, cidr bool) []byte {
	a := v.Addr.AsSlice()
	fam := byte(pgAFInet)
	if len(a) == 16 {
		fam = pgAFInet6
	}
	flag := byte(0)
	if cidr {
		flag = 1
	}
	b = append(b, fam, byte(v.Bits), flag, byte(len(a)))
	return append(b, a...)
}

// decodeInetBinary reads inet_send's form as inet_recv does, with its
// 22P03 errors; the is-cidr flag is ignored, as PostgreSQL ignores it.
func decodeInetBinary(raw []byte, f types.Family) (types.Datum, error) {
	bad := func(what string) error {
		return pgerror.Newf(pgerror.InvalidBinaryRepresentation, "invalid %s in external %q value", what, f.String())
	}
	if len(raw) < 4 {
		return types.Null, bad("length")
	}
	size := 4
	switch raw[0] {
	case pgAFInet:
	case pgAFInet6:
		size = 16
	default:
		return types.Null, bad("address family")
	}
	bits := int(raw[1])
	if bits > 8*size {
		return types.Null, bad("bits")
	}
	if int(raw[3]) != size || len(raw) != 4+size {
		return types.Null, bad("length")
	}
	a, _ := netip.AddrFromSlice(raw[4:])
	v := types.InetValue{Addr: a, Bits: bits}
	if f == types.Cidr && v.Network() != v.Addr {
		e := pgerror.New(pgerror.InvalidBinaryRepresentation, `invalid external "cidr" value`)
		e.Detail = "Value has bits set to right of mask."
		return types.Null, e
	}
	return types.NewInet(v), nil
}
