package eval

import (
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// appendEnumLabel appends the label of the enum value d (its sort key,
// types.EnumType): what enum_out shows. A key the type does not know
// (a type whose descriptor is missing from T) shows as its bytes' hex.
func appendEnumLabel(b []byte, d types.Datum, t types.T) []byte {
	if t.Enum != nil {
		if l, ok := t.Enum.Label(d.S); ok {
			return append(b, l...)
		}
	}
	b = append(b, '\\', 'x')
	const digits = "0123456789abcdef"
	for i := 0; i < len(d.S); i++ {
		b = append(b, digits[d.S[i]>>4], digits[d.S[i]&15])
	}
	return b
}

// castToEnum reads text as enum_in does (the label, exactly: 22P02
// otherwise) and keeps a value of the same enum type. The planner
// refuses casts between different enum types and from other types.
func castToEnum(d types.Datum, from, to types.T) (types.Datum, error) {
	if to.Enum == nil {
		return types.Null, pgerror.Newf(pgerror.Internal, "enum type %d has no labels", to.Width)
	}
	if from.Family == types.Enum && d.Kind == types.KindBytes {
		if from.Enum != nil && from.Enum.OID != to.Enum.OID {
			return types.Null, pgerror.Newf(codeCannotCoerce, "cannot cast type %s to %s", from, to)
		}
		return d, nil
	}
	if d.Kind != types.KindText {
		return types.Null, pgerror.Newf(codeCannotCoerce, "cannot cast type %s to %s", from, to)
	}
	return EnumIn(d.S, to)
}

// EnumIn is the enum value of type t whose label is s; 22P02 (invalid
// input value for enum) when t has no such label.
func EnumIn(s string, t types.T) (types.Datum, error) {
	if t.Enum != nil {
		if k, ok := t.Enum.Key(s); ok {
			return types.NewEnum(k), nil
		}
	}
	return types.Null, pgerror.Newf(pgerror.InvalidTextRepresentation, "invalid input value for enum %s: %q", t, s)
}

// enumRange is enum_range(lo, hi) (planner.EnumRangeFunc): args are lo,
// hi and the array of all the type's values in order; it returns those
// from lo to hi inclusive, a NULL bound meaning the first or last.
func enumRange(args []types.Datum) (types.Datum, error) {
	all, err := types.ArrayElems(nil, args[2])
	if err != nil {
		return types.Null, err
	}
	out := make([]types.Datum, 0, len(all))
	for _, v := range all {
		if !args[0].IsNull() && v.S < args[0].S || !args[1].IsNull() && v.S > args[1].S {
			continue
		}
		out = append(out, v)
	}
	return types.NewArray(out), nil
}
