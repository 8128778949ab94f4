package planner

import (
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// Enum types (types.EnumType): a value is its label's sort key, so the
// planner converts labels to keys where it can (constants) and leaves
// the rest to eval's casts, which read the labels from the type.

// enumConst is constValue for a constant read as the enum type t: its
// label's key (22P02 for no label of t).
func enumConst(v types.Datum, t types.T) (types.Datum, bool, error) {
	switch {
	case v.Kind == types.KindBytes:
		return v, true, nil // a value of t already
	case v.Kind != types.KindText:
		return types.Datum{}, false, nil
	case t.Enum == nil:
		return types.Datum{}, false, pgerror.Newf(pgerror.Internal, "enum type %d has no labels", t.Width)
	}
	if k, ok := t.Enum.Key(v.S); ok {
		return types.NewEnum(k), true, nil
	}
	return types.Datum{}, false, pgerror.Newf(pgerror.InvalidTextRepresentation, "invalid input value for enum %s: %q", t, v.S)
}

// enumCastAllowed refuses the explicit casts PostgreSQL has no cast for
// (42846) where an enum is on either side: an enum converts only to its
// own type and to and from the string types (text I/O), an untyped
// literal to any enum. Arrays follow their elements.
func enumCastAllowed(from, to types.T) error {
	f, t := from, to
	if f.IsArray() && t.IsArray() {
		f, t = f.ElemType(), t.ElemType()
	}
	if f.Family != types.Enum && t.Family != types.Enum {
		return nil
	}
	switch {
	case f.Family == types.Unknown,
		f.Family == types.Enum && t.Family == types.Enum && f.Width == t.Width,
		f.Family == types.Enum && isText(t.Family),
		isText(f.Family) && t.Family == types.Enum:
		return nil
	}
	return pgerror.Newf("42846", "cannot cast type %s to %s", from, to)
}
