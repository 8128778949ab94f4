package planner

import (
	"slices"
	"strings"

	"github.com/kvsql/kvsql/catalog"
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

// EnumRangeFunc is the function enum_range(lo, hi) binds to: its
// arguments are lo, hi and the array of all the type's values.
const EnumRangeFunc = "kvsql_enum_range"

// enumFunc binds enum_first, enum_last and enum_range over the enum
// type of their arguments (whose values they ignore, but for the
// bounds of enum_range(lo, hi)); ok is false for other names.
func enumFunc(name string, args []Expr) (Expr, bool, error) {
	switch name {
	case "enum_first", "enum_last", "enum_range":
	default:
		return nil, false, nil
	}
	var t types.T
	for _, a := range args {
		if a.Type().Family == types.Enum {
			t = a.Type()
			break
		}
	}
	if t.Enum == nil || len(args) > 2 || len(args) == 2 && name != "enum_range" ||
		len(args) == 2 && args[0].Type().Family != types.Unknown && args[1].Type().Family != types.Unknown && args[0].Type().Width != args[1].Type().Width {
		var ts []string
		for _, a := range args {
			ts = append(ts, a.Type().String())
		}
		e := pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s) does not exist", name, strings.Join(ts, ", "))
		e.Hint = "No function matches the given name and argument types. You might need to add explicit type casts."
		return nil, true, e
	}
	keys := t.Enum.Keys
	switch {
	case name == "enum_first" || name == "enum_last":
		if len(keys) == 0 {
			return nil, true, pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "enum %s contains no values", t)
		}
		k := keys[0]
		if name == "enum_last" {
			k = keys[len(keys)-1]
		}
		return &Const{Value: types.NewEnum(k), T: t}, true, nil
	}
	all := make([]types.Datum, len(keys))
	for i, k := range keys {
		all[i] = types.NewEnum(k)
	}
	at := types.ArrayOf(t)
	allConst := &Const{Value: types.NewArray(all), T: at}
	if len(args) == 1 {
		return allConst, true, nil
	}
	bounds := make([]Expr, 2)
	for i, a := range args {
		x, err := coerce(a, t)
		if err != nil {
			return nil, true, err
		}
		bounds[i] = x
	}
	return &Func{Name: EnumRangeFunc, Args: []Expr{bounds[0], bounds[1], allConst}, T: at}, true, nil
}

// userPgType describes the user type (or array of one) with OID oid as
// pg_attribute's columns need it: an enum is 4 bytes by value, as
// PostgreSQL stores its OID; arrays and composites vary in length.
func (g *vgen) userPgType(oid int64) pgType {
	u := g.cat.UserTypeByOID(g.db, uint64(oid))
	switch {
	case u == nil:
		return pgType{oid: oid}
	case uint64(oid) == u.ArrayOID():
		return pgType{oid: oid, name: "_" + u.Name, len: -1, category: "A", elem: int64(u.OID()), align: "i"}
	case u.Kind == "e":
		return pgType{oid: oid, name: u.Name, len: 4, byval: true, category: "E", array: int64(u.ArrayOID()), align: "i"}
	case u.Kind == "d":
		// A domain is stored as its base type: its length, alignment
		// and category are the base's.
		base, _, err := g.b.userType(u, 0)
		if err != nil {
			return pgType{oid: oid, name: u.Name}
		}
		bt, ok := pgTypeByOID(columnTypeOID(base))
		if !ok {
			bt = g.userPgType(columnTypeOID(base))
		}
		bt.oid, bt.name, bt.array, bt.elem = oid, u.Name, int64(u.ArrayOID()), 0
		return bt
	}
	return pgType{oid: oid, name: u.Name, len: -1, category: "C", array: int64(u.ArrayOID()), align: "d"}
}

// userTypeNames maps the OIDs of the database's user types and of
// their array types to the names format_type and regtype show: the bare
// name when the search path finds the type by it, else qualified by
// its schema (pg_dump, which empties the search path, reads
// public.mood).
func (b *binder) userTypeNames() map[int64]string {
	names := map[int64]string{}
	for _, u := range b.p.Catalog.UserTypes(b.p.DB) {
		n := quoteIdent(u.Name)
		if key, ok := b.p.LookupTypeKey(u.Name); !ok || key != u.Key() {
			n = quoteIdent(catalog.SchemaName(u.Schema)) + "." + n
		}
		names[int64(u.OID())] = n
		names[int64(u.ArrayOID())] = n + "[]"
	}
	return names
}

// formatTypeCall binds format_type(oid, typmod) when the database has
// user types: a CASE naming them (the catalog is the planner's), else
// eval's format_type.
func (b *binder) formatTypeCall(args []Expr) (Expr, bool, error) {
	names := b.userTypeNames()
	if len(args) != 2 || len(names) == 0 {
		return nil, false, nil
	}
	c, err := newOIDCase(args[0], tText)
	if err != nil {
		return nil, false, nil
	}
	oids := make([]int64, 0, len(names))
	for oid := range names {
		oids = append(oids, oid)
	}
	slices.Sort(oids)
	for _, oid := range oids {
		c.add(oid, textConst(names[oid]))
	}
	c.c.Else = &Func{Name: "format_type", Args: args, T: tText}
	return c.expr(), true, nil
}

// pgEnumOIDBase numbers pg_enum's rows: label i (in the order added) of
// the type with OID t is pgEnumOIDBase + t*1024 + i. kvsql's own OIDs
// (key space ids) stay far below it.
const pgEnumOIDBase = 1 << 30

// pgEnum lists the labels of the database's enum types (pg_enum: oid,
// enumtypid, enumsortorder, enumlabel), which drivers and psql's \dT+
// join to pg_type.
func pgEnum(g *vgen) [][]Expr {
	var out [][]Expr
	for _, u := range g.cat.UserTypes(g.db) {
		if u.Kind != "e" {
			continue
		}
		for i, l := range u.Labels {
			out = append(out, vrow(int64(pgEnumOIDBase+u.ID*1024+uint64(i)), int64(u.OID()), l.Sort, l.Label))
		}
	}
	return out
}

// typeVisibleCall binds pg_type_is_visible(oid) when the database has
// user types: false for one the search path does not find by its bare
// name (psql's \dT lists only visible types), else eval's answer.
func (b *binder) typeVisibleCall(args []Expr) (Expr, bool, error) {
	us := b.p.Catalog.UserTypes(b.p.DB)
	if len(args) != 1 || len(us) == 0 {
		return nil, false, nil
	}
	c, err := newOIDCase(args[0], tBool)
	if err != nil {
		return nil, false, nil
	}
	for _, u := range us {
		key, ok := b.p.LookupTypeKey(u.Name)
		visible := &Const{Value: types.NewBool(ok && key == u.Key()), T: tBool}
		c.add(int64(u.OID()), visible)
		c.add(int64(u.ArrayOID()), visible)
	}
	c.c.Else = &Func{Name: "pg_type_is_visible", Args: args, T: tBool}
	return c.expr(), true, nil
}
