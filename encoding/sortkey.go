package encoding

import "github.com/kvsql/kvsql/types"

// Sort keys (normalized keys). A sort operator encodes each row's ORDER BY
// values once into bytes and then sorts with bytes.Compare instead of
// comparing Datums key by key. A sort key is not a storage key: it is
// never decoded, and it must make values equal exactly when SQL's
// comparison does, where a storage key must tell apart values that SQL
// calls equal but that print differently. Per ORDER BY item:
//
//	NULL:     0x00 (NULLS FIRST) or 0x02 (NULLS LAST)
//	non-NULL: 0x01, then the value's ascending key encoding (key.go),
//	          complemented for DESC
//
// The value encodings are prefix-free, so the items concatenate. Two
// differences from EncodeKeyDatum: an interval writes only its comparison
// value (PostgreSQL's interval_cmp_value), not the months and days that
// keep '1 mon' and '30 days' apart; and the NULL byte is outside the
// value so that NULLS FIRST/LAST combine freely with ASC/DESC.
const (
	sortNullFirst byte = 0x00
	sortValue     byte = 0x01
	sortNullLast  byte = 0x02
)

// SortKeyKind reports whether AppendSortKey encodes values of kind k in
// the order of SQL's comparison (eval.Compare) between two values of that
// same kind. jsonb text (types.TextJSONB), arrays and records are not:
// their comparison is not bytewise on any encoding kept here. Values of
// different kinds (an int beside a float) are not comparable through
// their sort keys either: a caller checks each key column holds one kind.
func SortKeyKind(d types.Datum) bool {
	switch d.Kind {
	case types.KindBool, types.KindInt, types.KindFloat, types.KindBytes,
		types.KindDate, types.KindTimestamp, types.KindTime, types.KindDecimal,
		types.KindInterval:
		return true
	case types.KindText:
		return d.I == 0
	}
	return false
}

// AppendSortKey appends the sort-key item of d (see the package comment
// above) to b. d must be NULL or of a kind SortKeyKind accepts; other
// kinds are encoded with the storage key encoding, whose order the caller
// must not rely on.
func AppendSortKey(b []byte, d types.Datum, desc, nullsFirst bool) []byte {
	if d.Kind == types.KindNull {
		if nullsFirst {
			return append(b, sortNullFirst)
		}
		return append(b, sortNullLast)
	}
	b = append(b, sortValue)
	start := len(b)
	if d.Kind == types.KindInterval {
		days, rem := d.Interval().CmpKey()
		b = appendIntAsc(append(b, tagInterval), days)
		b = appendIntAsc(b, rem)
	} else {
		b = appendKeyAsc(b, d)
	}
	if desc {
		invert(b[start:])
	}
	return b
}
