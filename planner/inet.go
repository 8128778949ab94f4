package planner

import (
	"strings"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// ParseInetDatum reads inet or cidr text (f says which; types.ParseInet)
// with PostgreSQL's errors: 22P02 "invalid input syntax for type inet"
// and, for cidr with bits right of its mask, 22P02 "invalid cidr value".
// The binder folds literals with it; casts and the wire server use it too.
func ParseInetDatum(s string, f types.Family) (types.Datum, error) {
	v, bad := types.ParseInet(s, f == types.Cidr)
	switch bad {
	case types.InetSyntax:
		return types.Null, pgerror.Newf(pgerror.InvalidTextRepresentation, "invalid input syntax for type %s: %q", f, s)
	case types.InetHostBitsSet:
		e := pgerror.Newf(pgerror.InvalidTextRepresentation, "invalid cidr value: %q", s)
		e.Detail = "Value has bits set to right of mask."
		return types.Null, e
	}
	return types.NewInet(v), nil
}

// inetResults are the functions and operators of inet and cidr with
// their result types (cidr's network is cidr; text(inet) is text).
var inetResults = map[string]types.Family{
	"<<": types.Bool, "<<=": types.Bool, ">>": types.Bool, ">>=": types.Bool, "&&": types.Bool,
	"host": types.Text, "text": types.Text, "abbrev": types.Text,
	"masklen": types.Int4, "family": types.Int4,
	"network": types.Cidr, "broadcast": types.Inet, "netmask": types.Inet, "hostmask": types.Inet,
	"set_masklen": types.Inet, "inet_same_family": types.Bool,
	"inet_merge": types.Cidr,
}

func isInet(f types.Family) bool { return f == types.Inet || f == types.Cidr }

// inetCall binds the functions and operators over inet and cidr; ok is
// false when name is not one of them or no argument is an address (an
// untyped literal beside an address is read as inet, as PostgreSQL's
// operators take inet).
func inetCall(name string, args []Expr) (Expr, bool, error) {
	rf, known := inetResults[name]
	if !known {
		return nil, false, nil
	}
	// addrArgs are the leading arguments that are addresses: both of an
	// operator's and inet_same_family's, the first of a function's.
	addrArgs, want := 1, 1
	switch name {
	case "set_masklen":
		want = 2
	case "<<", "<<=", ">>", ">>=", "&&", "inet_same_family", "inet_merge":
		addrArgs, want = 2, 2
	}
	any, allUnknown := false, len(args) >= addrArgs
	for _, a := range args[:min(addrArgs, len(args))] {
		any = any || isInet(a.Type().Family)
		allUnknown = allUnknown && a.Type().Family == types.Unknown
	}
	// A function only of addresses takes an untyped literal as inet (its
	// preferred type); an operator or text() needs a typed side.
	isFunc := name[0] >= 'a' && name[0] <= 'z' && name != "text"
	if !any && !(isFunc && allUnknown) {
		return nil, false, nil
	}
	if len(args) != want {
		return nil, false, nil
	}
	for i := 0; i < addrArgs; i++ {
		f := args[i].Type().Family
		if f == types.Unknown {
			x, err := coerce(args[i], types.T{Family: types.Inet})
			if err != nil {
				return nil, true, err
			}
			args[i] = x
			continue
		}
		if !isInet(f) {
			return nil, true, inetMissing(name, args)
		}
	}
	t := types.T{Family: rf}
	if name == "set_masklen" {
		x, err := coerce(args[1], tInt4)
		if err != nil {
			return nil, true, inetMissing(name, args)
		}
		args[1] = x
		t = types.T{Family: args[0].Type().Family} // set_masklen(cidr) is cidr
	}
	return &Func{Name: name, Args: args, T: t}, true, nil
}

func inetMissing(name string, args []Expr) error {
	names := make([]string, len(args))
	for i, a := range args {
		names[i] = a.Type().String()
	}
	if len(args) == 2 && !(name[0] >= 'a' && name[0] <= 'z') {
		e := pgerror.Newf(pgerror.UndefinedFunction, "operator does not exist: %s %s %s", names[0], name, names[1])
		e.Hint = "No operator matches the given name and argument types. You might need to add explicit type casts."
		return e
	}
	e := pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s) does not exist", name, strings.Join(names, ", "))
	e.Hint = "No function matches the given name and argument types. You might need to add explicit type casts."
	return e
}
