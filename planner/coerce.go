package planner

import (
	"errors"

	"math"
	"strconv"
	"strings"
	"time"

	"github.com/cockroachdb/apd/v3"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// coerce converts x to t where PostgreSQL converts implicitly: an untyped
// literal or NULL to any type, a number to another numeric type, text to
// text, a date to a timestamp. Anything else is 42804.
func coerce(x Expr, t types.T) (Expr, error) {
	xt := x.Type()
	if xt == t {
		return x, nil
	}
	if xt.IsArray() && t.IsArray() {
		// Arrays convert implicitly where their elements do.
		if xt.Elem == t.Elem && t.Width == 0 {
			return x, nil
		}
		if _, err := coerce(&Const{T: xt.ElemType()}, t.ElemType()); err != nil {
			return nil, pgerror.Newf(pgerror.DatatypeMismatch, "expression is of type %s but type %s was expected", xt, t)
		}
		return &Cast{X: x, T: t}, nil
	}
	switch {
	case xt.Family == types.Unknown:
		if c, ok := x.(*Const); ok {
			return castConst(c, t)
		}
		if p, ok := x.(*Param); ok {
			return &Cast{X: p, T: t}, nil
		}
		return &Cast{X: x, T: t}, nil
	case xt.Family == t.Family && t.Width == 0 && (t.Scale == 0 || t.Family == types.Numeric):
		return x, nil
	case isNumeric(xt.Family) && isNumeric(t.Family),
		isText(xt.Family) && isText(t.Family),
		xt.Family == types.Date && (t.Family == types.Timestamp || t.Family == types.TimestampTZ),
		xt.Family == types.Timestamp && t.Family == types.TimestampTZ,
		xt.Family == types.TimestampTZ && t.Family == types.Timestamp,
		xt.Family == types.Time && t.Family == types.Interval,
		xt.Family == types.Cidr && t.Family == types.Inet,
		isOIDAlias(xt.Family) && (isInteger(t.Family) || isOIDAlias(t.Family)),
		isInteger(xt.Family) && isOIDAlias(t.Family),
		xt.Family == t.Family && isDatetime(t.Family):
		if c, ok := x.(*Const); ok {
			return castConst(c, t)
		}
		return &Cast{X: x, T: t}, nil
	}
	if t.Family == types.Bool {
		return nil, pgerror.Newf(pgerror.DatatypeMismatch, "argument must be type boolean, not type %s", xt)
	}
	return nil, pgerror.Newf(pgerror.DatatypeMismatch, "expression is of type %s but type %s was expected", xt, t)
}

// assign converts a value for storing into a column of type t (INSERT,
// UPDATE): implicit coercions plus any type to text, as PostgreSQL's
// assignment casts allow.
func assign(x Expr, t types.T) (Expr, error) {
	// The column's width is checked when the row is written (22001), not
	// by a cast here, which would silently truncate.
	if isText(t.Family) {
		t = types.T{Family: t.Family}
	}
	if t.Family == types.Record && t.Comp != nil {
		// ROW(...) into a column of a composite type: field by field,
		// as PostgreSQL casts it (42846 for the wrong number of them).
		if f, ok := x.(*Func); ok && f.Name == RowFunc {
			return castRow(x, t) // usertype.go
		}
	}
	if t.IsArray() && t.Elem != types.Enum && t.Elem != types.Record {
		// So are its elements' widths, scales and ranges (exec's
		// assignValue), never cut by a cast here.
		t = types.T{Family: types.Array, Elem: t.Elem}
	}
	if isText(t.Family) && x.Type().Family != types.Unknown && !isText(x.Type().Family) {
		return &Cast{X: x, T: t}, nil
	}
	if t.Family == types.Cidr && x.Type().Family == types.Inet {
		return &Cast{X: x, T: t}, nil // inet to cidr is an assignment cast
	}
	e, err := coerce(x, t)
	if err != nil {
		if !pgerror.HasCode(err, pgerror.DatatypeMismatch) {
			return nil, err // a constant that does not convert: 22P02, 22003
		}
		return nil, pgerror.Newf(pgerror.DatatypeMismatch, "column is of type %s but expression is of type %s", t, x.Type())
	}
	return e, nil
}

// assignError is the error for storing an expression of type xt into
// column col of type t: assign's own error when it is about the value
// (22P02, 22003), else a 42804 naming the column.
func assignError(err error, col string, t, xt types.T) error {
	if !pgerror.HasCode(err, pgerror.DatatypeMismatch) {
		return err
	}
	return pgerror.Newf(pgerror.DatatypeMismatch, "column %q is of type %s but expression is of type %s", col, t, xt)
}

// castConst converts a constant at plan time where that is simple and
// exact; other conversions become a Cast evaluated at run time.
func castConst(c *Const, t types.T) (Expr, error) {
	if t.IsArray() && c.Value.Kind == types.KindText && !(t.Scale > 0 && (t.Family == types.Timestamp || t.Family == types.TimestampTZ || t.Family == types.Time)) {
		return arrayConst(c, t)
	}
	v, ok, err := constValue(c.Value, t)
	if err != nil {
		return nil, err
	}
	if !ok {
		return &Cast{X: c, T: t}, nil
	}
	return &Const{Value: v, T: t}, nil
}

// constValue is castConst's conversion of the value v of a constant to
// type t, made at plan time; ok is false when it is left to a Cast at run
// time. An array type from text is arrayConst's, not constValue's.
func constValue(v types.Datum, t types.T) (_ types.Datum, ok bool, _ error) {
	if t.Scale > 0 && (t.Family == types.Timestamp || t.Family == types.TimestampTZ || t.Family == types.Time) {
		return types.Datum{}, false, nil // rounded to the precision at run time
	}
	if v.Kind == types.KindText && (t.Family == types.Date || t.Family == types.Timestamp) && isRelative(v.S) {
		return types.Datum{}, false, nil // 'now', 'today': the session's clock and zone at run time
	}
	if v.Kind == types.KindNull {
		return types.Datum{}, true, nil
	}
	switch {
	case t.Family == types.Enum:
		return enumConst(v, t)
	case t.Family == types.Numeric && t.Width > 0:
		return types.Datum{}, false, nil // NUMERIC(p, s) rounds and checks at run time
	case v.Kind == types.KindText && t.Family == types.UUID:
		u, ok := types.ParseUUID(v.S)
		if !ok {
			return types.Datum{}, false, pgerror.Newf(pgerror.InvalidTextRepresentation, "invalid input syntax for type uuid: %q", v.S)
		}
		return types.NewText(u), true, nil
	case v.Kind == types.KindText && (t.Family == types.Inet || t.Family == types.Cidr):
		d, err := ParseInetDatum(v.S, t.Family)
		if err != nil {
			return types.Datum{}, false, err
		}
		return d, true, nil
	case v.Kind == types.KindText && t.Family == types.Numeric:
		var x apd.Decimal
		if !types.ParseDecimal(v.S, &x) {
			return types.Datum{}, false, pgerror.Newf(pgerror.InvalidTextRepresentation, "invalid input syntax for type numeric: %q", v.S)
		}
		return types.NewDecimal(&x), true, nil
	case v.Kind == types.KindInt && t.Family == types.Numeric:
		var x apd.Decimal
		x.SetInt64(v.I)
		return types.NewDecimal(&x), true, nil
	case v.Kind == types.KindDecimal && t.Family == types.Numeric:
		return v, true, nil
	case v.Kind == types.KindDecimal && t.Family == types.Float8:
		f := types.DecimalFloat(v)
		if (math.IsInf(f, 0) || f == 0) && !types.DecimalIsSpecialOrZero(v) {
			return types.Datum{}, false, nil // out of range: the run-time cast says so (22003)
		}
		return types.NewFloat(f), true, nil
	case v.Kind == types.KindText && isInteger(t.Family):
		i, err := strconv.ParseInt(strings.TrimSpace(v.S), 10, 64)
		if err != nil {
			if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
				return types.Datum{}, false, pgerror.Newf(pgerror.NumericValueOutOfRange, "value %q is out of range for type %s", v.S, t)
			}
			return types.Datum{}, false, pgerror.Newf(pgerror.InvalidTextRepresentation, "invalid input syntax for type %s: %q", t, v.S)
		}
		if checkIntRange(i, t) != nil {
			// int2in's and int4in's wording for text out of range.
			return types.Datum{}, false, pgerror.Newf(pgerror.NumericValueOutOfRange, "value %q is out of range for type %s", v.S, t)
		}
		return types.NewInt(i), true, nil
	case v.Kind == types.KindText && t.Family == types.Float4:
		// float4in rounds once, to float32; out of range and underflow
		// are left to the cast at run time, which knows float4's errors.
		f, err := strconv.ParseFloat(strings.TrimSpace(v.S), 32)
		if err != nil || math.IsInf(f, 0) || f == 0 || strings.ContainsAny(v.S, "_xXpP") {
			return types.Datum{}, false, nil
		}
		return types.NewFloat(f), true, nil
	case v.Kind == types.KindText && t.Kind() == types.KindFloat:
		// Out of range, underflow to zero and bad input are left to the
		// cast at run time, which knows float8in's errors.
		f, err := strconv.ParseFloat(strings.TrimSpace(v.S), 64)
		if err != nil || math.IsInf(f, 0) || f == 0 || strings.ContainsAny(v.S, "_xXpP") {
			return types.Datum{}, false, nil
		}
		return types.NewFloat(f), true, nil
	case v.Kind == types.KindText && isText(t.Family) && t.Width == 0:
		return v, true, nil
	case v.Kind == types.KindText && t.Family == types.Bool:
		switch strings.ToLower(strings.TrimSpace(v.S)) {
		case "t", "true", "y", "yes", "on", "1":
			return types.NewBool(true), true, nil
		case "f", "false", "n", "no", "off", "0":
			return types.NewBool(false), true, nil
		}
		return types.Datum{}, false, pgerror.Newf(pgerror.InvalidTextRepresentation, "invalid input syntax for type boolean: %q", v.S)
	case v.Kind == types.KindText && t.Family == types.Date:
		d, err := types.ParseDate(v.S)
		if err != nil {
			return types.Datum{}, false, dateTimeError(err, "date", v.S)
		}
		return types.NewDate(d), true, nil
	case v.Kind == types.KindText && t.Family == types.TimestampTZ && !hasOwnZone(v.S):
		return types.Datum{}, false, nil // read in the session's time zone at run time
	case v.Kind == types.KindText && (t.Family == types.Timestamp || t.Family == types.TimestampTZ):
		us, err := types.ParseTimestampIn(v.S, time.UTC, t.Family == types.TimestampTZ)
		if err != nil {
			return types.Datum{}, false, dateTimeError(err, t.String(), v.S)
		}
		return types.NewTimestamp(us), true, nil
	case v.Kind == types.KindText && t.Family == types.Interval:
		iv, err := types.ParseIntervalQualified(v.S, int(t.Width>>4), int(t.Width&15), int(t.Scale)-1)
		switch {
		case errors.Is(err, types.ErrIntervalOverflow):
			return types.Datum{}, false, pgerror.New("22008", "interval out of range")
		case errors.Is(err, types.ErrIntervalRange):
			return types.Datum{}, false, pgerror.Newf("22015", "interval field value out of range: %q", v.S)
		case err != nil:
			return types.Datum{}, false, pgerror.Newf(pgerror.InvalidDatetimeFormat, "invalid input syntax for type interval: %q", v.S)
		}
		return types.NewInterval(iv), true, nil
	case v.Kind == types.KindText && t.Family == types.Time:
		us, err := types.ParseTime(v.S)
		switch {
		case errors.Is(err, types.ErrTimeRange):
			return types.Datum{}, false, pgerror.Newf("22008", "date/time field value out of range: %q", v.S)
		case err != nil:
			return types.Datum{}, false, pgerror.Newf(pgerror.InvalidDatetimeFormat, "invalid input syntax for type time: %q", v.S)
		}
		return types.NewTime(us), true, nil
	case v.Kind == types.KindInt && isInteger(t.Family):
		if err := checkIntRange(v.I, t); err != nil {
			return types.Datum{}, false, err
		}
		return v, true, nil
	case v.Kind == types.KindInt && t.Family == types.Float4:
		return types.NewFloat(float64(float32(v.I))), true, nil // one rounding, as PostgreSQL's i8tof
	case v.Kind == types.KindInt && t.Kind() == types.KindFloat:
		return types.NewFloat(float64(v.I)), true, nil
	case v.Kind == types.KindFloat && t.Family == types.Float4:
		g := float64(float32(v.F))
		if math.IsInf(g, 0) != math.IsInf(v.F, 0) || (g == 0 && v.F != 0) {
			return types.Datum{}, false, nil // overflow or underflow: 22003 at run time
		}
		return types.NewFloat(g), true, nil
	case v.Kind == types.KindFloat && t.Kind() == types.KindFloat:
		return v, true, nil
	}
	return types.Datum{}, false, nil
}

func checkIntRange(i int64, t types.T) error {
	switch t.Family {
	case types.Int2:
		if i < math.MinInt16 || i > math.MaxInt16 {
			return pgerror.New(pgerror.NumericValueOutOfRange, "smallint out of range")
		}
	case types.Int4:
		if i < math.MinInt32 || i > math.MaxInt32 {
			return pgerror.New(pgerror.NumericValueOutOfRange, "integer out of range")
		}
	}
	return nil
}

// typeFromName maps a type name (canonical PostgreSQL names from the
// dialect layer, plus SQLite's and MySQL's spellings) to a type.
func typeFromName(name string, length, scale *int) (types.T, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	if elem, ok := strings.CutSuffix(n, "[]"); ok || len(n) > 1 && n[0] == '_' {
		// name[], or PostgreSQL's internal array name (_int4).
		if !ok {
			elem = n[1:]
		}
		et, err := typeFromName(elem, length, scale)
		if err != nil {
			return et, err
		}
		if types.ArrayOID(et.Family) == 0 {
			return types.T{}, pgerror.Newf(pgerror.UndefinedObject, "type %q does not exist", name)
		}
		return types.ArrayOf(et), nil
	}
	width := int32(0)
	if length != nil {
		width = int32(*length)
	}
	switch n {
	case "smallint", "int2", "smallserial", "serial2", "tinyint":
		return tInt2, nil
	case "integer", "int", "int4", "serial", "serial4", "mediumint", "signed", "signed integer":
		return tInt4, nil
	case "bigint", "int8", "bigserial", "serial8", "unsigned", "unsigned integer":
		return tInt8, nil
	case "real", "float4":
		return types.T{Family: types.Float4}, nil
	case "float":
		if length != nil && *length <= 24 {
			return types.T{Family: types.Float4}, nil
		}
		return tFloat8, nil
	case "double precision", "double", "float8":
		return tFloat8, nil
	case "numeric", "decimal", "dec":
		return numericType(name, length, scale)
	case "uuid":
		return types.T{Family: types.UUID}, nil
	case "inet":
		return types.T{Family: types.Inet}, nil
	case "cidr":
		return types.T{Family: types.Cidr}, nil
	case "int2vector":
		return types.T{Family: types.Int2Vector}, nil
	case "oidvector":
		return types.T{Family: types.OidVector}, nil
	case "json":
		return types.T{Family: types.JSON}, nil
	case "jsonb":
		return types.T{Family: types.JSONB}, nil
	case "text", "clob", "string", "name":
		return tText, nil
	case "varchar", "character varying", "nvarchar", "varchar2", "nchar varying":
		return types.T{Family: types.Varchar, Width: width}, nil
	case "char", "character", "bpchar", "nchar":
		if length == nil && n != "bpchar" {
			width = 1
		}
		return types.T{Family: types.Char, Width: width}, nil
	case "boolean", "bool":
		return tBool, nil
	case "bytea", "blob", "binary", "varbinary":
		return tBytea, nil
	case "date":
		return tDate, nil
	case "timestamp", "timestamp without time zone", "datetime":
		return withPrecision(tTS, length)
	case "timestamptz", "timestamp with time zone":
		return withPrecision(tTSTZ, length)
	case "interval":
		if length != nil {
			return types.T{Family: types.Interval, Scale: int32(*length) + 1}, nil
		}
		return tInterval, nil
	case "time", "time without time zone":
		return withPrecision(tTime, length)
	case "timetz", "time with time zone":
		if length != nil {
			return types.T{}, pgerror.New(pgerror.FeatureNotSupported, "time with time zone with a precision is not supported")
		}
		return types.T{Family: types.TimeTZ}, nil
	case "regclass":
		return types.T{Family: types.RegClass}, nil
	case "regtype":
		return types.T{Family: types.RegType}, nil
	case "oid", "regproc", "regprocedure", "regnamespace":
		return tInt8, nil
	}
	if from, to, ok := types.IntervalQualifier(n); ok {
		t := types.T{Family: types.Interval, Width: int32(from<<4 | to)}
		if length != nil {
			t.Scale = int32(*length) + 1
		}
		return t, nil
	}
	return types.T{}, pgerror.Newf(pgerror.UndefinedObject, "type %q does not exist", name)
}

// numericType is NUMERIC, NUMERIC(p) or NUMERIC(p, s), with
// PostgreSQL's limits on p and s (22023).
func numericType(name string, precision, scale *int) (types.T, error) {
	if precision == nil {
		return types.T{Family: types.Numeric}, nil
	}
	p, s := *precision, 0
	if scale != nil {
		s = *scale
	}
	if p < 1 || p > types.MaxNumericPrecision {
		return types.T{}, pgerror.Newf(pgerror.InvalidParameterValue, "NUMERIC precision %d must be between 1 and %d", p, types.MaxNumericPrecision)
	}
	// PostgreSQL 15 allows a negative scale (rounding to tens, hundreds,
	// ...) and a scale above the precision (only leading fractional zeros).
	if s < types.MinNumericScale || s > types.MaxNumericScale {
		return types.T{}, pgerror.Newf(pgerror.InvalidParameterValue, "NUMERIC scale %d must be between %d and %d", s, types.MinNumericScale, types.MaxNumericScale)
	}
	return types.T{Family: types.Numeric, Width: int32(p), Scale: int32(s)}, nil
}

// TypeFromName maps a SQL type name (as the dialect layer canonicalizes
// it) to a type; 42704 for an unknown name.
func TypeFromName(name string, length, scale *int) (types.T, error) {
	return typeFromName(name, length, scale)
}
