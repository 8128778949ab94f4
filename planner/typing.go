package planner

import "github.com/kvsql/kvsql/types"

// numericRank orders the numeric families for promotion: the common type
// of two numeric types is the one with the higher rank.
func numericRank(f types.Family) int {
	switch f {
	case types.Int2:
		return 1
	case types.Int4:
		return 2
	case types.Int8:
		return 3
	case types.Numeric:
		return 4
	case types.Float4:
		return 5
	case types.Float8:
		return 6
	}
	return 0
}

func isNumeric(f types.Family) bool { return numericRank(f) > 0 }
func isFloat(f types.Family) bool   { return f == types.Float4 || f == types.Float8 }
func isInteger(f types.Family) bool { return f == types.Int2 || f == types.Int4 || f == types.Int8 }
func isText(f types.Family) bool {
	return f == types.Text || f == types.Varchar || f == types.Char
}

// commonType is the type two values are compared or combined in, as
// PostgreSQL resolves UNION, CASE and COALESCE; Unknown (an untyped
// literal or NULL) takes the other side's type.
// sameFields reports whether a and b are record types whose fields have
// the same types: rows of one shape (ROW(1, 'x') and ROW(2, 'y')), which
// keep a's field names.
func sameFields(a, b types.T) bool {
	if a.Family != types.Record || a.Comp == nil || b.Comp == nil || len(a.Comp.Fields) != len(b.Comp.Fields) {
		return false
	}
	for i, f := range a.Comp.Fields {
		if f.T != b.Comp.Fields[i].T {
			return false
		}
	}
	return true
}

func commonType(a, b types.T) types.T {
	switch {
	case a.Family == types.Unknown:
		return b
	case b.Family == types.Unknown:
		return a
	case a.IsArray() || b.IsArray():
		if !a.IsArray() || !b.IsArray() {
			return types.T{}
		}
		e := commonType(a.ElemType(), b.ElemType())
		if e.Family == types.Unknown {
			return types.T{}
		}
		return types.ArrayOf(e)
	case a.Family == types.Enum || b.Family == types.Enum:
		if a.Family == b.Family && a.Width == b.Width {
			return a // one enum type: no other converts to it implicitly
		}
		return types.T{}
	case a.Family == b.Family:
		if a != b && !sameFields(a, b) {
			return types.T{Family: a.Family}
		}
		return a
	case isOIDAlias(a.Family) && (isOIDAlias(b.Family) || isInteger(b.Family)), isInteger(a.Family) && isOIDAlias(b.Family):
		return tInt8 // regclass = oid: OIDs compare as integers
	case isNumeric(a.Family) && isNumeric(b.Family):
		if numericRank(a.Family) >= numericRank(b.Family) {
			return types.T{Family: a.Family}
		}
		return types.T{Family: b.Family}
	case isText(a.Family) && isText(b.Family):
		return tText
	case (a.Family == types.Inet || a.Family == types.Cidr) && (b.Family == types.Inet || b.Family == types.Cidr):
		return types.T{Family: types.Inet} // cidr converts to inet implicitly
	case (a.Family == types.Date || a.Family == types.Timestamp || a.Family == types.TimestampTZ) &&
		(b.Family == types.Date || b.Family == types.Timestamp || b.Family == types.TimestampTZ):
		if a.Family == types.TimestampTZ || b.Family == types.TimestampTZ {
			return tTSTZ
		}
		return tTS
	}
	return types.T{} // no common type; callers report 42804
}

// resultType is commonType for where PostgreSQL's select_common_type
// decides a result's type: UNION, VALUES, CASE (whose ELSE comes first).
// Each string type (text, varchar, char) converts implicitly to the
// others, so among them the first input's type wins: varchar UNION text
// is character varying, text UNION varchar is text. A first char keeps
// commonType's text: PostgreSQL's answer there is bpchar, whose trailing
// blanks DISTINCT and UNION would have to ignore, which they do not here.
func resultType(a, b types.T) types.T {
	if isText(a.Family) && isText(b.Family) && a.Family != b.Family && a.Family != types.Char {
		return withoutTypmod(a)
	}
	return commonType(a, b)
}

// withoutTypmod is t without its modifier: no length, precision or scale
// (PostgreSQL's typmod -1).
func withoutTypmod(t types.T) types.T {
	if t.Family == types.Enum || t.Elem == types.Enum {
		return t // Width is the enum's OID, no modifier
	}
	t.Width, t.Scale = 0, 0
	return t
}

// commonTypmod is t, the common type of xs, keeping its modifier only
// when every one of xs has exactly that type, as PostgreSQL's
// select_common_typmod decides the typmod of CASE, COALESCE, GREATEST,
// LEAST and VALUES: coalesce(varchar(3) column, 'NULL') is varchar with
// no length, so 'NULL' is not cut to 'NUL'. An untyped NULL does not
// count: coalesce(column, NULL) stays varchar(3), as in PostgreSQL.
func commonTypmod(t types.T, xs []Expr) types.T {
	if t.Width == 0 && t.Scale == 0 {
		return t
	}
	for _, x := range xs {
		if c, ok := x.(*Const); ok && c.T.Family == types.Unknown && c.Value.IsNull() {
			continue
		}
		if x.Type() != t {
			return withoutTypmod(t)
		}
	}
	return t
}

// compareType is the type a comparison of a and b is done in, as
// PostgreSQL resolves its operators (pg_operator has cross-type
// comparisons within the integers and within the floats, none between
// them): two integers compare exactly, an integer or a numeric compares
// with a numeric as numeric, and any other mix with float4 or float8 is
// done in float8 (int8 9007199254740993 equals float8 9007199254740992).
// Other types compare in their commonType.
func compareType(a, b types.T) types.T {
	if isNumeric(a.Family) && isNumeric(b.Family) && a.Family != b.Family && (isFloat(a.Family) || isFloat(b.Family)) {
		return tFloat8
	}
	return commonType(a, b)
}

// comparable reports whether values of a and b can be compared.
func comparableTypes(a, b types.T) bool {
	if a.Family == types.Unknown || b.Family == types.Unknown {
		return true
	}
	return commonType(a, b).Family != types.Unknown
}

// arithType is the result type of an arithmetic operator over a and b,
// without a modifier (an operator's result has none in PostgreSQL: the
// product of two numeric(20,3) values keeps its six decimals until it
// is stored in a numeric(20,3) column, which rounds it).
func arithType(a, b types.T) types.T {
	return withoutTypmod(arithFamily(a, b))
}

// arithFamily is arithType keeping the operands' modifier.
func arithFamily(a, b types.T) types.T {
	if a.Family == types.Unknown {
		a = b
	}
	if b.Family == types.Unknown {
		b = a
	}
	if a.Family == types.Unknown {
		return tInt4
	}
	if isNumeric(a.Family) && isNumeric(b.Family) && (a.Family == types.Float4) != (b.Family == types.Float4) {
		// real with any other number is done in double precision: of
		// PostgreSQL's operators for it (float4 op float4, float48 and
		// float84 ops) the mixed ones take float8, the preferred type.
		return tFloat8
	}
	if isInteger(a.Family) && isInteger(b.Family) {
		// int2 op int2 is int4 in PostgreSQL (no int2 arithmetic results
		// except for int2 op int2 which is int2; keep PostgreSQL's rule).
		if numericRank(a.Family) >= numericRank(b.Family) {
			return a
		}
		return b
	}
	return commonType(a, b)
}

// nullifType is the type of NULLIF(a, b): the left input type of the =
// operator PostgreSQL chooses for a and b. A float on the right makes an
// integer or numeric left side double precision (float84eq, float8 being
// the preferred type); numeric on the right makes an integer numeric;
// otherwise the left type (or the right, for an untyped left side).
func nullifType(a, b types.T) types.T {
	switch {
	case a.Family == types.Unknown:
		return commonType(a, b)
	case (isInteger(a.Family) || a.Family == types.Numeric) && isFloat(b.Family):
		return tFloat8
	case isInteger(a.Family) && b.Family == types.Numeric:
		return types.T{Family: types.Numeric}
	case isNumeric(a.Family) && isNumeric(b.Family):
		return a
	}
	return commonType(a, b)
}

// isOIDAlias reports whether f is an OID shown as an object's name
// (regclass, regtype).
func isOIDAlias(f types.Family) bool { return f == types.RegClass || f == types.RegType }
