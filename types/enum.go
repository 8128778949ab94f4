package types

// Enum values. An enum type (CREATE TYPE mood AS ENUM ('sad', 'ok'))
// is T{Family: Enum, Width: oid, Enum: e}. Its values are KindBytes
// datums whose S is the label's sort key: a byte string the catalog
// gives each label once and never changes, chosen so that the keys'
// bytes order is the labels' declared order (NextEnumKey,
// EnumKeyBetween). So keys, row values, comparison, hashing, sorting,
// DISTINCT and arrays all treat an enum value as bytes, a label added
// BEFORE another later sorts where it was declared without rewriting a
// stored value, and RENAME VALUE changes only the catalog. The label is
// looked up (in T.Enum) only to show a value or cast it to text.

// EnumType describes an enum type: its name as format_type prints it,
// its OIDs (the type's and its array type's) and its labels in sort
// order with their sort keys. Shared and read-only once built.
type EnumType struct {
	Name     string
	OID      uint32
	ArrayOID uint32
	// Labels[i]'s sort key is Keys[i]; Keys ascend.
	Labels []string
	Keys   []string
}

// EnumOf is the type of values of the enum type e.
func EnumOf(e *EnumType) T { return T{Family: Enum, Width: int32(e.OID), Enum: e} }

// NewEnum returns the enum datum whose label has sort key key.
func NewEnum(key string) Datum { return Datum{Kind: KindBytes, S: key} }

// Label returns the label whose sort key is key.
func (e *EnumType) Label(key string) (string, bool) {
	lo, hi := 0, len(e.Keys)
	for lo < hi {
		m := (lo + hi) / 2
		if e.Keys[m] < key {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(e.Keys) && e.Keys[lo] == key {
		return e.Labels[lo], true
	}
	return "", false
}

// Key returns the sort key of label.
func (e *EnumType) Key(label string) (string, bool) {
	for i, l := range e.Labels {
		if l == label {
			return e.Keys[i], true
		}
	}
	return "", false
}

// NextEnumKey returns a short sort key above a (a label added after the
// last one; a is "" for the first label): a's bytes up to and including
// its first byte below 0xFF, that byte incremented, or a followed by
// 0x01 when every byte is 0xFF. Keys never end in 0x00, which
// EnumKeyBetween relies on.
func NextEnumKey(a string) string {
	for i := 0; i < len(a); i++ {
		if a[i] < 0xff {
			return a[:i] + string([]byte{a[i] + 1})
		}
	}
	return a + "\x01"
}

// EnumKeyBetween returns a sort key strictly between a and b (a < b as
// bytes; a may be "", below every key; b may be "", above every key),
// not ending in 0x00; "" when a and b are out of order. Reading both
// as base-256 fractions (missing digits 0), it takes the digits they
// share, then the midpoint digit where they first differ; when the two
// digits are adjacent it keeps a's and continues below a alone, with
// no upper bound. There is always room: two keys that differ have a key
// between them, so ADD VALUE BEFORE never renumbers.
func EnumKeyBetween(a, b string) string {
	if b != "" && a >= b {
		return ""
	}
	var out []byte
	bounded := b != ""
	for i := 0; ; i++ {
		da := 0
		if i < len(a) {
			da = int(a[i])
		}
		db := 256
		if bounded && i < len(b) {
			db = int(b[i])
		} else if bounded {
			db = 0
		}
		if da == db {
			out = append(out, byte(da))
			continue
		}
		if mid := (da + db) / 2; mid > da {
			return string(append(out, byte(mid)))
		}
		out = append(out, byte(da))
		bounded = false
	}
}
