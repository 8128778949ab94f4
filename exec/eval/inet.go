package eval

import (
	"math/bits"
	"net/netip"
	"strconv"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// castToInet converts text, inet or cidr to inet or cidr: text is read
// as the target type's input; inet to cidr clears the bits right of the
// mask (PostgreSQL's cidr(inet)); cidr to inet keeps the value.
func castToInet(d types.Datum, from, to types.T) (types.Datum, error) {
	switch {
	case d.Kind == types.KindText:
		return planner.ParseInetDatum(d.S, to.Family)
	case from.Family == types.Inet || from.Family == types.Cidr:
		v, ok := types.InetOf(d)
		if !ok {
			break
		}
		if to.Family == types.Cidr {
			v.Addr = v.Network()
		}
		return types.NewInet(v), nil
	}
	return types.Null, cannotCast(from, to)
}

// inetFunc runs the functions and operators over inet and cidr on
// non-NULL arguments (bound by the planner's inetCall); ok is false for
// other calls.
func inetFunc(e *planner.Func, args []types.Datum) (d types.Datum, ok bool, err error) {
	if len(e.Args) == 0 || !isInetType(e.Args[0].Type()) {
		return types.Null, false, nil
	}
	a, ok := types.InetOf(args[0])
	if !ok {
		return types.Null, false, nil
	}
	if len(args) == 2 && isInetType(e.Args[1].Type()) {
		b, ok := types.InetOf(args[1])
		if !ok {
			return types.Null, false, nil
		}
		return inetBinary(e.Name, a, b)
	}
	switch e.Name {
	case "host":
		return types.NewText(string(types.AppendInet(nil, types.InetValue{Addr: a.Addr, Bits: a.MaxBits()}, false))), true, nil
	case "text":
		return types.NewText(string(types.AppendInet(nil, a, true))), true, nil
	case "abbrev":
		if e.Args[0].Type().Family == types.Cidr {
			return types.NewText(abbrevCidr(a)), true, nil
		}
		return types.NewText(string(types.AppendInet(nil, a, false))), true, nil
	case "masklen":
		return types.NewInt(int64(a.Bits)), true, nil
	case "family":
		if a.Addr.Is4() {
			return types.NewInt(4), true, nil
		}
		return types.NewInt(6), true, nil
	case "network":
		return types.NewInet(types.InetValue{Addr: a.Network(), Bits: a.Bits}), true, nil
	case "broadcast":
		return types.NewInet(types.InetValue{Addr: orBytes(a.Network(), hostmask(a)), Bits: a.Bits}), true, nil
	case "netmask":
		return types.NewInet(types.InetValue{Addr: mask(a), Bits: a.MaxBits()}), true, nil
	case "hostmask":
		return types.NewInet(types.InetValue{Addr: hostmask(a), Bits: a.MaxBits()}), true, nil
	case "set_masklen":
		n := args[1].I
		if n == -1 {
			n = int64(a.MaxBits())
		}
		if n < 0 || n > int64(a.MaxBits()) {
			return types.Null, true, pgerror.Newf(pgerror.InvalidParameterValue, "invalid mask length: %d", args[1].I)
		}
		v := types.InetValue{Addr: a.Addr, Bits: int(n)}
		if e.T.Family == types.Cidr {
			v.Addr = v.Network()
		}
		return types.NewInet(v), true, nil
	}
	return types.Null, false, nil
}

func isInetType(t types.T) bool { return t.Family == types.Inet || t.Family == types.Cidr }

// inetBinary runs the operators and functions of two addresses: <<
// (a is inside network b), <<= (inside or equal), >> and >>= (the
// reverse), && (either contains the other), inet_same_family and
// inet_merge (the smallest network holding both).
func inetBinary(name string, a, b types.InetValue) (types.Datum, bool, error) {
	same := a.Addr.Is4() == b.Addr.Is4()
	switch name {
	case "inet_same_family":
		return types.NewBool(same), true, nil
	case "inet_merge":
		if !same {
			return types.Null, true, pgerror.New(pgerror.InvalidParameterValue, "cannot merge addresses from different families")
		}
		bits := min(a.Bits, b.Bits, commonPrefix(a.Addr, b.Addr))
		v := types.InetValue{Addr: a.Addr, Bits: bits}
		v.Addr = v.Network()
		return types.NewInet(v), true, nil
	}
	// within reports whether x lies in network y (its first y.Bits bits).
	within := func(x, y types.InetValue) bool {
		return same && commonPrefix(x.Addr, y.Addr) >= y.Bits
	}
	switch name {
	case "<<":
		return types.NewBool(b.Bits < a.Bits && within(a, b)), true, nil
	case "<<=":
		return types.NewBool(b.Bits <= a.Bits && within(a, b)), true, nil
	case ">>":
		return types.NewBool(a.Bits < b.Bits && within(b, a)), true, nil
	case ">>=":
		return types.NewBool(a.Bits <= b.Bits && within(b, a)), true, nil
	case "&&":
		return types.NewBool(same && commonPrefix(a.Addr, b.Addr) >= min(a.Bits, b.Bits)), true, nil
	}
	return types.Null, false, nil
}

// commonPrefix is the number of leading bits two addresses of one family
// share.
func commonPrefix(x, y netip.Addr) int {
	xs, ys := x.AsSlice(), y.AsSlice()
	for i := range xs {
		if d := xs[i] ^ ys[i]; d != 0 {
			return 8*i + bits.LeadingZeros8(d)
		}
	}
	return 8 * len(xs)
}

// mask is v's netmask as an address: Bits ones, then zeros.
func mask(v types.InetValue) netip.Addr {
	b := make([]byte, v.MaxBits()/8)
	for i := range b {
		switch n := v.Bits - 8*i; {
		case n >= 8:
			b[i] = 0xff
		case n > 0:
			b[i] = byte(0xff << (8 - n))
		}
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}

// hostmask is the complement of v's netmask.
func hostmask(v types.InetValue) netip.Addr {
	b := mask(v).AsSlice()
	for i := range b {
		b[i] = ^b[i]
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}

func orBytes(x, y netip.Addr) netip.Addr {
	xs, ys := x.AsSlice(), y.AsSlice()
	for i := range xs {
		xs[i] |= ys[i]
	}
	a, _ := netip.AddrFromSlice(xs)
	return a
}

// abbrevCidr is abbrev(cidr): an IPv4 network with only the octets its
// mask covers ("10.1/16"); an IPv6 network as cidr prints it.
func abbrevCidr(v types.InetValue) string {
	if !v.Addr.Is4() {
		return string(types.AppendInet(nil, v, true))
	}
	o := v.Addr.As4()
	var b []byte
	n := (v.Bits + 7) / 8
	if n == 0 {
		b = append(b, '0')
	}
	for i := 0; i < n; i++ {
		if i > 0 {
			b = append(b, '.')
		}
		b = strconv.AppendInt(b, int64(o[i]), 10)
	}
	b = append(b, '/')
	return string(strconv.AppendInt(b, int64(v.Bits), 10))
}
