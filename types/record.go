package types

// Composite values. A composite type (CREATE TYPE name AS (a int, b
// text)) is T{Family: Record, Comp: c}, c describing its fields; the
// anonymous record type has a nil Comp. Its values are KindRecord datums
// whose S holds the field values in the array element form (AppendArray:
// a count, then each field as a kind byte and payload), so a record is
// as immutable and as cheap to copy as an array. The field types live in
// the T, not in the value: formatting a record needs its type.

// Composite describes a composite type: its name as format_type prints
// it, its OIDs (the type's and its array type's) and its fields in
// order. A Composite is shared by every T that names the type and is
// read-only once built.
type Composite struct {
	Name     string
	OID      uint32
	ArrayOID uint32
	Fields   []Field
}

// Field is one attribute of a composite type.
type Field struct {
	Name string
	T    T
}

// RecordOf is the type of values of the composite type c.
func RecordOf(c *Composite) T { return T{Family: Record, Comp: c} }

// NewRecord returns the record datum whose fields are vals.
func NewRecord(vals []Datum) Datum {
	return Datum{Kind: KindRecord, S: string(AppendArray(nil, vals))}
}

// RecordFields decodes the fields of the record datum d, appending them
// to dst.
func RecordFields(dst []Datum, d Datum) ([]Datum, error) {
	if d.Kind != KindRecord {
		return dst, errBadArray
	}
	return ArrayElems(dst, Datum{Kind: KindArray, S: d.S})
}

// IsRecord reports whether t is a composite type (named or anonymous).
func (t T) IsRecord() bool { return t.Family == Record }

// Same reports whether t and u are the same type: equal, or composite
// types of one OID (each plan resolves a composite type afresh, so two
// plans' Ts differ in Comp's address) whose fields are the same.
func (t T) Same(u T) bool {
	if t == u {
		return true
	}
	if t.Enum != nil && u.Enum != nil {
		// Two versions of one enum type (ALTER TYPE ... ADD VALUE made
		// the newer): the same type.
		return t.Family == u.Family && t.Enum.OID == u.Enum.OID
	}
	if t.Comp == nil || u.Comp == nil || t.Comp.OID != u.Comp.OID || len(t.Comp.Fields) != len(u.Comp.Fields) {
		return false
	}
	tc, uc := t, u
	tc.Comp, uc.Comp = nil, nil
	if tc != uc {
		return false
	}
	for i, f := range t.Comp.Fields {
		if g := u.Comp.Fields[i]; f.Name != g.Name || !f.T.Same(g.T) {
			return false
		}
	}
	return true
}
