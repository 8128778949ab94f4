package types

import "strconv"

// Family is a SQL type as PostgreSQL names it. Each family has one Kind and
// one PostgreSQL type OID (what the wire server puts in RowDescription).
type Family uint8

const (
	Unknown Family = iota // a literal whose type is not yet known ('abc' before coercion)
	Bool
	Int2
	Int4
	Int8
	Float4
	Float8
	Numeric
	Text
	Varchar
	Char // CHAR(n), PostgreSQL's bpchar
	Bytea
	Date
	Timestamp
	TimestampTZ
	UUID  // KindText holding the canonical form, lower-case 8-4-4-4-12 hex (its order is the bytes')
	JSON  // KindText: the input text, validated
	JSONB // KindText: the normalised text (keys sorted and unique, PostgreSQL's spacing)
	Interval
	Time  // time without time zone
	Array // KindArray: an array of T.Elem, of any dimensions (array.go)
	// Families added after Array keep the numbers of those before it,
	// which stored catalogs hold.
	Inet // KindBytes: an address with a netmask length, in its sortable form (inet.go)
	Cidr // KindBytes: a network (no bits right of the mask), as Inet
	// Int2Vector and OidVector are KindText holding the canonical text,
	// the numbers separated by single spaces ("11 22 33"): values are
	// equal when their text is, and the planner refuses to order them.
	Int2Vector
	OidVector
	TimeTZ // KindBytes: time with time zone, in its sortable form (timetz.go)
	// Record is a composite value (record.go): a user's composite type
	// (CREATE TYPE ... AS, T.Comp) or the anonymous record.
	Record
	// RegClass and RegType are OIDs (KindInt) of a relation and of a
	// type: they compare as integers, and a query's output shows the
	// object's name (the planner maps them at the top of a plan).
	RegClass
	RegType
	// Enum is a value of an enum type (CREATE TYPE ... AS ENUM, enum.go):
	// KindBytes holding its label's sort key; T.Enum describes the type.
	Enum
)

type familyInfo struct {
	name string
	kind Kind
	oid  uint32
}

var families = [...]familyInfo{
	Unknown:     {"unknown", KindNull, 705},
	Bool:        {"boolean", KindBool, 16},
	Int2:        {"smallint", KindInt, 21},
	Int4:        {"integer", KindInt, 23},
	Int8:        {"bigint", KindInt, 20},
	Float4:      {"real", KindFloat, 700},
	Float8:      {"double precision", KindFloat, 701},
	Numeric:     {"numeric", KindDecimal, 1700},
	Text:        {"text", KindText, 25},
	Varchar:     {"character varying", KindText, 1043},
	Char:        {"character", KindText, 1042},
	Bytea:       {"bytea", KindBytes, 17},
	Date:        {"date", KindDate, 1082},
	Timestamp:   {"timestamp without time zone", KindTimestamp, 1114},
	TimestampTZ: {"timestamp with time zone", KindTimestamp, 1184},
	UUID:        {"uuid", KindText, 2950},
	JSON:        {"json", KindText, 114},
	JSONB:       {"jsonb", KindText, 3802},
	Interval:    {"interval", KindInterval, 1186},
	Time:        {"time without time zone", KindTime, 1083},
	Array:       {"array", KindArray, 0},
	Inet:        {"inet", KindBytes, 869},
	Cidr:        {"cidr", KindBytes, 650},
	Int2Vector:  {"int2vector", KindText, 22},
	OidVector:   {"oidvector", KindText, 30},
	TimeTZ:      {"time with time zone", KindBytes, 1266},
	Record:      {"record", KindRecord, 2249},
	RegClass:    {"regclass", KindInt, 2205},
	RegType:     {"regtype", KindInt, 2206},
	Enum:        {"anyenum", KindBytes, 3500},
}

// Kind is the physical form of the family's values.
func (f Family) Kind() Kind { return families[f].kind }

// OID is the PostgreSQL type OID of the family.
func (f Family) OID() uint32 { return families[f].oid }

// String is the family's name as PostgreSQL's format_type prints it.
func (f Family) String() string {
	if int(f) < len(families) {
		return families[f].name
	}
	return "family(" + strconv.Itoa(int(f)) + ")"
}

// FamilyByOID returns the family with the given PostgreSQL OID.
func FamilyByOID(oid uint32) (Family, bool) {
	for f, info := range families {
		if info.oid == oid && Family(f) != Unknown && Family(f) != Array {
			return Family(f), true
		}
	}
	return Unknown, false
}

// T is a SQL type: a family and, for VARCHAR(n) and CHAR(n), a width
// (0 means unbounded); for NUMERIC(p, s), Width is the precision p (0:
// unconstrained) and Scale the scale s; for an enum, Width is the enum
// type's OID (which a stored catalog keeps: Enum is not serialized). An
// array type has Family Array, its elements' family in Elem, and their
// Width and Scale.
type T struct {
	Family Family
	Elem   Family `json:",omitempty"`
	Width  int32
	Scale  int32
	// Comp describes a composite type (Family Record, or an array whose
	// Elem is Record); nil for the anonymous record. It is shared and
	// read-only; the catalog owns the type, so it is never serialized.
	Comp *Composite `json:"-"`
	// Enum describes an enum type (Family Enum, or an array whose Elem
	// is Enum): shared and read-only like Comp; the catalog attaches it
	// to the columns of the type (catalog.Catalog resolves Width).
	Enum *EnumType `json:"-"`
}

func (t T) String() string {
	if t.Family == Record && t.Comp != nil {
		return t.Comp.Name
	}
	if t.Family == Enum && t.Enum != nil {
		return t.Enum.Name
	}
	if t.Family == Array {
		return t.ElemType().String() + "[]"
	}
	if t.Width > 0 && (t.Family == Varchar || t.Family == Char) {
		return t.Family.String() + "(" + strconv.Itoa(int(t.Width)) + ")"
	}
	if t.Width > 0 && t.Family == Numeric {
		return "numeric(" + strconv.Itoa(int(t.Width)) + "," + strconv.Itoa(int(t.Scale)) + ")"
	}
	return t.Family.String()
}

// Kind is the physical form of values of type t.
func (t T) Kind() Kind { return t.Family.Kind() }

// Typmod is the type modifier PostgreSQL records for t (atttypmod, and
// RowDescription's): n+4 for VARCHAR(n) and CHAR(n), (p<<16 | s&0x7ff)+4
// for NUMERIC(p, s) (a negative scale in 11 bits, two's complement), -1
// for none.
func (t T) Typmod() int32 {
	if t.Family == Array {
		t = t.ElemType()
	}
	switch {
	case t.Width > 0 && (t.Family == Varchar || t.Family == Char):
		return t.Width + 4
	case t.Width > 0 && t.Family == Numeric:
		return (t.Width<<16 | t.Scale&0x7ff) + 4
	case t.Scale > 0 && (t.Family == Timestamp || t.Family == TimestampTZ || t.Family == Time):
		return t.Scale - 1
	case t.Family == Interval && (t.Width > 0 || t.Scale > 0):
		return intervalTypmod(int(t.Width>>4), int(t.Width&15), int(t.Scale)-1)
	}
	return -1
}
