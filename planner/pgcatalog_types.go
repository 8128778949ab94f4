package planner

import (
	"strconv"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/types"
)

// pgType is one row of the virtual pg_type: a builtin PostgreSQL type
// kvsql has (or that catalog queries mention), with its real OID.
type pgType struct {
	oid      int64
	name     string // typname
	format   string // format_type(oid, -1)
	len      int    // typlen: -1 variable length
	byval    bool
	category string // typcategory
	elem     int64  // typelem: element type of an array type
	array    int64  // typarray: the array type of this type
	align    string
}

// pgTypes lists the types in OID order. Array types print as elem[].
var pgTypes = []pgType{
	{16, "bool", "boolean", 1, true, "B", 0, 1000, "c"},
	{17, "bytea", "bytea", -1, false, "U", 0, 1001, "i"},
	{18, "char", `"char"`, 1, true, "Z", 0, 1002, "c"},
	{19, "name", "name", 64, false, "S", 0, 1003, "c"},
	{20, "int8", "bigint", 8, true, "N", 0, 1016, "d"},
	{21, "int2", "smallint", 2, true, "N", 0, 1005, "s"},
	{22, "int2vector", "int2vector", -1, false, "A", 21, 1006, "i"},
	{23, "int4", "integer", 4, true, "N", 0, 1007, "i"},
	{25, "text", "text", -1, false, "S", 0, 1009, "i"},
	{26, "oid", "oid", 4, true, "N", 0, 1028, "i"},
	{114, "json", "json", -1, false, "U", 0, 199, "i"},
	{199, "_json", "json[]", -1, false, "A", 114, 0, "i"},
	{30, "oidvector", "oidvector", -1, false, "A", 26, 1013, "i"},
	{700, "float4", "real", 4, true, "N", 0, 1021, "i"},
	{701, "float8", "double precision", 8, true, "N", 0, 1022, "d"},
	{705, "unknown", "unknown", -2, false, "X", 0, 0, "c"},
	{1000, "_bool", "boolean[]", -1, false, "A", 16, 0, "i"},
	{1001, "_bytea", "bytea[]", -1, false, "A", 17, 0, "i"},
	{1005, "_int2", "smallint[]", -1, false, "A", 21, 0, "i"},
	{1007, "_int4", "integer[]", -1, false, "A", 23, 0, "i"},
	{1009, "_text", "text[]", -1, false, "A", 25, 0, "i"},
	{1014, "_bpchar", "character[]", -1, false, "A", 1042, 0, "i"},
	{1015, "_varchar", "character varying[]", -1, false, "A", 1043, 0, "i"},
	{1016, "_int8", "bigint[]", -1, false, "A", 20, 0, "d"},
	{1021, "_float4", "real[]", -1, false, "A", 700, 0, "i"},
	{1022, "_float8", "double precision[]", -1, false, "A", 701, 0, "d"},
	{1028, "_oid", "oid[]", -1, false, "A", 26, 0, "i"},
	{1042, "bpchar", "bpchar", -1, false, "S", 0, 1014, "i"},
	{1043, "varchar", "character varying", -1, false, "S", 0, 1015, "i"},
	{1082, "date", "date", 4, true, "D", 0, 1182, "i"},
	{1114, "timestamp", "timestamp without time zone", 8, true, "D", 0, 1115, "d"},
	{1115, "_timestamp", "timestamp without time zone[]", -1, false, "A", 1114, 0, "d"},
	{1182, "_date", "date[]", -1, false, "A", 1082, 0, "i"},
	{1083, "time", "time without time zone", 8, true, "D", 0, 1183, "d"},
	{1183, "_time", "time without time zone[]", -1, false, "A", 1083, 0, "d"},
	{1186, "interval", "interval", 16, false, "T", 0, 1187, "d"},
	{1187, "_interval", "interval[]", -1, false, "A", 1186, 0, "d"},
	{1184, "timestamptz", "timestamp with time zone", 8, true, "D", 0, 1185, "d"},
	{1185, "_timestamptz", "timestamp with time zone[]", -1, false, "A", 1184, 0, "d"},
	{1231, "_numeric", "numeric[]", -1, false, "A", 1700, 0, "i"},
	{1700, "numeric", "numeric", -1, false, "N", 0, 1231, "i"},
	{2205, "regclass", "regclass", 4, true, "N", 0, 0, "i"},
	{2950, "uuid", "uuid", 16, false, "U", 0, 2951, "c"},
	{2951, "_uuid", "uuid[]", -1, false, "A", 2950, 0, "i"},
	{3802, "jsonb", "jsonb", -1, false, "U", 0, 3807, "i"},
	{3807, "_jsonb", "jsonb[]", -1, false, "A", 3802, 0, "i"},
	{2206, "regtype", "regtype", 4, true, "N", 0, 0, "i"},
	{869, "inet", "inet", -1, false, "I", 0, 1041, "i"},
	{1041, "_inet", "inet[]", -1, false, "A", 869, 0, "i"},
	{650, "cidr", "cidr", -1, false, "I", 0, 651, "i"},
	{651, "_cidr", "cidr[]", -1, false, "A", 650, 0, "i"},
	{1266, "timetz", "time with time zone", 12, false, "D", 0, 1270, "d"},
	{1270, "_timetz", "time with time zone[]", -1, false, "A", 1266, 0, "d"},
	{1006, "_int2vector", "int2vector[]", -1, false, "A", 22, 0, "i"},
	{1013, "_oidvector", "oidvector[]", -1, false, "A", 30, 0, "i"},
}

// storage is typstorage as PostgreSQL has it: 'x' (extended: compressible,
// out-of-line) for variable-length types except numeric ('m', main), 'p'
// (plain) for fixed-length ones.
func (t pgType) storage() string {
	if t.oid == 1700 {
		return "m" // numeric: main (compressible, kept inline)
	}
	if t.len == -1 {
		return "x"
	}
	return "p"
}

// pgTypeByOID returns the builtin type with that OID.
func pgTypeByOID(oid int64) (pgType, bool) {
	for _, t := range pgTypes {
		if t.oid == oid {
			return t, true
		}
	}
	return pgType{}, false
}

// FormatTypeName is format_type(oid, NULL), the name a regtype prints
// (pg_typeof's answer): no modifier, and bpchar is "character", where
// format_type(oid, -1) says "bpchar".
func FormatTypeName(oid int64) string {
	if oid == 1042 {
		return "character"
	}
	return FormatType(oid, -1)
}

// FormatType is PostgreSQL's format_type(oid, typmod): the SQL name of a
// type with its modifier, "character varying(10)", "numeric(10,2)",
// "integer[]". typmod is -1 (or any negative value) for none. Unknown
// OIDs give "???", as PostgreSQL prints them.
func FormatType(oid, typmod int64) string {
	t, ok := pgTypeByOID(oid)
	if !ok {
		return "???"
	}
	if typmod < 0 {
		return t.format
	}
	if t.category == "A" && t.elem != 0 {
		return FormatType(t.elem, typmod) + "[]"
	}
	switch oid {
	case 1043:
		return "character varying(" + strconv.FormatInt(typmod-4, 10) + ")"
	case 1042:
		return "character(" + strconv.FormatInt(typmod-4, 10) + ")"
	case 1700:
		m := typmod - 4
		return "numeric(" + strconv.FormatInt(m>>16, 10) + "," + strconv.FormatInt((m&0x7ff^0x400)-0x400, 10) + ")" // the scale: 11 bits, signed
	case 1114:
		return "timestamp(" + strconv.FormatInt(typmod, 10) + ") without time zone"
	case 1184:
		return "timestamp(" + strconv.FormatInt(typmod, 10) + ") with time zone"
	case 1083:
		return "time(" + strconv.FormatInt(typmod, 10) + ") without time zone"
	case 1186:
		return "interval" + types.IntervalTypmodSuffix(int32(typmod))
	}
	return t.format
}

// columnTypeOID is the pg_type OID of a column of type t.
// attType is the pg_attribute atttypid and atttypmod of column c: its
// domain's (or the domain's array type's), whose own typmod is the
// domain's, when it was declared with one; else its type's.
func (g *vgen) attType(c catalog.Column) (oid, mod int64) {
	if c.Domain != 0 {
		if u := g.cat.UserTypeByOID(g.db, uint64(c.Domain)); u != nil {
			if base, _, err := g.b.userType(u, 0); err == nil {
				if c.Type.IsArray() && !base.IsArray() {
					return int64(u.ArrayOID()), -1
				}
				return int64(u.OID()), -1
			}
		}
	}
	return columnTypeOID(c.Type), typmod(c.Type)
}

func columnTypeOID(t types.T) int64 {
	if t.Family == types.Unknown {
		return 25
	}
	return int64(t.OID())
}
