package index

import (
	"bytes"
	"fmt"
	"strings"
	"sync"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/encoding"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// layout is what the read and write paths precompute per table: the
// master value's column IDs and ordinals. Tables are immutable, so the
// layout is cached by pointer.
type layout struct {
	valueIDs  []uint32
	valueOrds []int
}

var layouts sync.Map // *catalog.Table → *layout

func layoutOf(t *catalog.Table) *layout {
	if l, ok := layouts.Load(t); ok {
		return l.(*layout)
	}
	l := &layout{valueOrds: t.ValueColumns()}
	for _, o := range l.valueOrds {
		l.valueIDs = append(l.valueIDs, t.Columns[o].ID)
	}
	layouts.Store(t, l)
	return l
}

// incLayout is an index's INCLUDE columns as its entries' values hold
// them (catalog.Index.IncludeLayout), cached per table and index.
type incLayout struct {
	ords []int
	ids  []uint32
}

type incKey struct {
	t   *catalog.Table
	idx *catalog.Index
}

var incLayouts sync.Map // incKey → *incLayout

// includeOf returns idx's included columns, nil when it has none.
func includeOf(t *catalog.Table, idx *catalog.Index) *incLayout {
	if len(idx.Include) == 0 {
		return nil
	}
	k := incKey{t, idx}
	if l, ok := incLayouts.Load(k); ok {
		return l.(*incLayout) // nil when nothing is stored
	}
	l := &incLayout{}
	l.ords, l.ids = idx.IncludeLayout(t)
	if len(l.ords) == 0 {
		l = nil // every included column is in the key
	}
	incLayouts.Store(k, l)
	return l
}

// appendIncluded appends the row encoding of row's included values in
// idx (nothing when idx includes no column).
func appendIncluded(b []byte, t *catalog.Table, idx *catalog.Index, row []types.Datum) []byte {
	l := includeOf(t, idx)
	if l == nil {
		return b
	}
	var stack [8]types.Datum
	vals := stack[:0]
	for _, o := range l.ords {
		vals = append(vals, row[o])
	}
	return encoding.EncodeRow(b, l.ids, vals)
}

// splitUniqueValue splits the value of a unique entry into the primary
// key's key encoding and the included values' row encoding.
func splitUniqueValue(t *catalog.Table, idx *catalog.Index, v []byte) (pk, inc []byte, err error) {
	if includeOf(t, idx) == nil {
		return v, nil, nil
	}
	return splitAfter(v, len(t.PrimaryKey))
}

// decodeIncluded fills row's included columns from inc, an entry's
// included values (a NULL is absent from the encoding: it stays NULL).
func decodeIncluded(t *catalog.Table, idx *catalog.Index, inc []byte, row []types.Datum) error {
	l := includeOf(t, idx)
	if l == nil {
		return nil
	}
	for _, o := range l.ords {
		row[o] = types.Null
	}
	return encoding.DecodeRowInto(inc, l.ids, l.ords, row)
}

func dir(desc []bool, i int) encoding.Direction {
	if i < len(desc) && desc[i] {
		return encoding.Descending
	}
	return encoding.Ascending
}

// appendPK appends the key encoding of the primary key values pk (one per
// t.PrimaryKey entry): the tail of a master key after its space.
func appendPK(b []byte, t *catalog.Table, pk []types.Datum) []byte {
	for i := range t.PrimaryKey {
		b = encoding.EncodeKeyDatum(b, pk[i], dir(t.PrimaryKeyDesc, i))
	}
	return b
}

// appendRowPK is appendPK taking the values from a full row.
func appendRowPK(b []byte, t *catalog.Table, row []types.Datum) []byte {
	for i, o := range t.PrimaryKey {
		b = encoding.EncodeKeyDatum(b, row[o], dir(t.PrimaryKeyDesc, i))
	}
	return b
}

// MasterKey returns the master key of the row with primary key pk.
func MasterKey(b []byte, t *catalog.Table, pk []types.Datum) []byte {
	return appendPK(encoding.EncodeUvarintAsc(b, t.ID), t, pk)
}

// MasterKeyOfRow returns the master key of row, a full row of t.
func MasterKeyOfRow(b []byte, t *catalog.Table, row []types.Datum) []byte {
	return masterKeyOfRow(b, t, row)
}

func masterKeyOfRow(b []byte, t *catalog.Table, row []types.Datum) []byte {
	return appendRowPK(encoding.EncodeUvarintAsc(b, t.ID), t, row)
}

// masterValue encodes the row's non-key columns.
func masterValue(b []byte, t *catalog.Table, row []types.Datum) []byte {
	return masterValueOf(b, layoutOf(t), row)
}

// masterValueOf is masterValue with t's layout already looked up (an
// Inserter keeps it: the lookup was 2% of a COPY's server CPU).
func masterValueOf(b []byte, l *layout, row []types.Datum) []byte {
	var stack [16]types.Datum
	vals := stack[:0]
	for _, o := range l.valueOrds {
		vals = append(vals, row[o])
	}
	return encoding.EncodeRow(b, l.valueIDs, vals)
}

// appendIndexValues appends the key encoding of row's indexed values and
// reports whether any is NULL.
func appendIndexValues(b []byte, idx *catalog.Index, row []types.Datum) ([]byte, bool) {
	anyNull := false
	for i, o := range idx.Columns {
		anyNull = anyNull || row[o].IsNull()
		b = encoding.EncodeKeyDatum(b, row[o], dir(idx.Desc, i))
	}
	return b, anyNull
}

// entryKey returns the key of row's entry in idx and the entry's value.
// For the inverted form it returns the chunk key (the primary key goes
// into the op log, see inverted.go). inc is the row encoding of the
// INCLUDE columns' values (empty without them).
//
//	unique:   /idx/vals            → pk inc (/idx/vals/pk when any val is
//	                                      NULL, unless NULLS NOT DISTINCT)
//	keyid:    /idx/vals/pk         → inc
//	inverted: /idx/vals/chunk      → op log of pks
func entryKey(t *catalog.Table, idx *catalog.Index, row []types.Datum) (key, value []byte) {
	key, anyNull := appendIndexValues(encoding.EncodeUvarintAsc(nil, idx.ID), idx, row)
	switch idx.Form {
	case catalog.FormUnique:
		value = appendRowPK(nil, t, row)
		if anyNull && !idx.NullsNotDistinct {
			// NULLs never conflict: the pk makes each such entry
			// distinct. Under NULLS NOT DISTINCT they do, as values.
			key = append(key, value...)
		}
		value = appendIncluded(value, t, idx, row)
	case catalog.FormKeyID:
		key = appendRowPK(key, t, row)
		value = appendIncluded([]byte{}, t, idx, row)
	case catalog.FormInverted:
		pk := appendRowPK(nil, t, row)
		key = encoding.EncodeKeyDatum(key, types.NewInt(int64(chunkOf(pk))), encoding.Ascending)
		value = pk
	}
	return key, value
}

// entries calls fn with the key and value of each of row's entries in
// idx: one, except in an element index, which has one per distinct
// non-NULL element of the array (none for an empty or NULL array), or
// per leaf of a jsonb document, keyed as the row with the element in the
// column's place.
func entries(t *catalog.Table, idx *catalog.Index, row []types.Datum, fn func(key, value []byte) error) error {
	if !t.Covers(idx, row) {
		return nil // a partial index holds only the rows its predicate accepts
	}
	if !idx.Elements {
		return fn(entryKey(t, idx, row))
	}
	c := idx.Columns[0]
	if row[c].IsNull() {
		return nil
	}
	var elems []types.Datum
	if t.Columns[c].Type.Family == types.JSONB {
		// A jsonb document's elements are its leaves (types.JSONLeaves).
		leaves, ok := types.JSONLeaves(row[c].S)
		if !ok {
			return encoding.ErrCorrupt
		}
		for _, l := range leaves {
			elems = append(elems, types.NewText(l))
		}
	} else {
		var err error
		if row[c].Kind != types.KindArray {
			return nil
		}
		if elems, err = types.ArrayElems(nil, row[c]); err != nil {
			return encoding.ErrCorrupt
		}
	}
	er := append([]types.Datum(nil), row...)
	seen := map[string]bool{}
	for _, e := range elems {
		if e.IsNull() {
			continue
		}
		er[c] = e
		key, value := entryKey(t, idx, er)
		if seen[string(key)] {
			continue
		}
		seen[string(key)] = true
		if err := fn(key, value); err != nil {
			return err
		}
	}
	return nil
}

// decodePK decodes n key-encoded values from b, returning the rest.
func decodeN(b []byte, n int, out []types.Datum) ([]byte, error) {
	for i := 0; i < n; i++ {
		var err error
		if b, out[i], _, err = encoding.DecodeKeyDatum(b); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// pkSpanOf returns the prefix of k holding its first n values and the
// rest.
func splitAfter(b []byte, n int) (head, rest []byte, err error) {
	rest = b
	for i := 0; i < n; i++ {
		if rest, _, _, err = encoding.DecodeKeyDatum(rest); err != nil {
			return nil, nil, err
		}
	}
	return b[:len(b)-len(rest)], rest, nil
}

// prettyPK renders key-encoded primary key bytes as the master key they
// form.
func prettyPK(t *catalog.Table, pk []byte) string {
	return encoding.Pretty(append(encoding.EncodeUvarintAsc(nil, t.ID), pk...))
}

// formatTuple renders values as PostgreSQL does in error details:
// (1, abc).
func formatTuple(t *catalog.Table, ords []int, row []types.Datum) (cols, vals string) {
	var c, v []string
	for _, o := range ords {
		if g := t.Columns[o].Generated; g != "" {
			c = append(c, g) // an index over an expression names the expression
		} else {
			c = append(c, t.Columns[o].Name)
		}
		d := row[o]
		switch d.Kind {
		case types.KindNull:
			v = append(v, "null")
		case types.KindText:
			v = append(v, d.S)
		default:
			v = append(v, strings.Trim(d.String(), "'"))
		}
	}
	return strings.Join(c, ", "), strings.Join(v, ", ")
}

func uniqueViolation(t *catalog.Table, name string, ords []int, row []types.Datum) error {
	cols, vals := formatTuple(t, ords, row)
	err := pgerror.Newf(pgerror.UniqueViolation, "duplicate key value violates unique constraint %q", name).OnTable(t.Name)
	err.Detail = fmt.Sprintf("Key (%s)=(%s) already exists.", cols, vals)
	err.Constraint = name
	return err
}

// NotNullViolation is the 23502 error of a NULL in column col of t.
func NotNullViolation(t *catalog.Table, col int) error {
	e := pgerror.Newf(pgerror.NotNullViolation, "null value in column %q of relation %q violates not-null constraint", t.Columns[col].Name, t.Name).OnTable(t.Name)
	e.Column = t.Columns[col].Name
	return e
}

// checkRow validates a row's width and NOT NULL columns.
func checkRow(t *catalog.Table, row []types.Datum) error {
	if len(row) != len(t.Columns) {
		return pgerror.Newf(pgerror.Internal, "index: row of %d values for table %q with %d columns", len(row), t.Name, len(t.Columns))
	}
	for i := range t.Columns {
		if t.Columns[i].NotNull && row[i].IsNull() {
			return NotNullViolation(t, i)
		}
	}
	return nil
}

func sameKey(a, b []byte) bool { return bytes.Equal(a, b) }
