package index

import (
	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
)

// ScanMasterRaw opens a kv iterator over the master records of t whose
// primary key lies in sp, for readers that decode keys and values
// themselves (exec's batch scan): positioning, Key/Value ownership and
// Close are kv.Iterator's. A master key is the table's space
// (encoding.EncodeUvarintAsc(t.ID)) followed by the primary-key columns
// (encoding.DecodeKeyDatum each, t.PrimaryKey order); its value is a row
// value (encoding.DecodeRow) over the IDs ValueLayout returns.
func ScanMasterRaw(r kv.Reader, t *catalog.Table, sp Span) (kv.Iterator, error) {
	lo, hi := spanBounds(t.ID, sp, t.PrimaryKeyDesc)
	return r.NewIter(kv.IterOptions{LowerBound: lo, UpperBound: hi})
}

// ValueLayout returns the table ordinals and column IDs of the columns a
// master value of t holds, in ID order (the order of the row value). The
// slices are shared: do not modify them.
func ValueLayout(t *catalog.Table) (ords []int, ids []uint32) {
	l := layoutOf(t)
	return l.valueOrds, l.valueIDs
}

// ScanIndexRaw opens a kv iterator over the entries of idx (unique or
// key+id form) whose indexed values lie in sp, for readers that decode
// entries themselves (exec's batch index scan) with EntryPK and
// IncludedLayout: positioning, Key/Value ownership and Close are
// kv.Iterator's. An entry's key is idx's space
// (encoding.EncodeUvarintAsc(idx.ID)) followed by the indexed columns
// (encoding.DecodeKeyDatum each, idx.Columns order).
func ScanIndexRaw(r kv.Reader, idx *catalog.Index, sp Span) (kv.Iterator, error) {
	if idx.Form == catalog.FormInverted {
		return nil, pgerror.Newf(pgerror.Internal, "index.ScanIndexRaw: index %q has the inverted form", idx.Name)
	}
	lo, hi := spanBounds(idx.ID, sp, idx.Desc)
	return r.NewIter(kv.IterOptions{LowerBound: lo, UpperBound: hi})
}

// EntryPK splits what follows the indexed columns of a unique or key+id
// entry of idx — rest, the key's remaining bytes, and value, the entry's
// value — into the primary key's key encoding (t.PrimaryKey order) and
// the included values' row encoding (IncludedLayout's IDs; empty when
// idx includes nothing).
func EntryPK(t *catalog.Table, idx *catalog.Index, rest, value []byte) (pk, inc []byte, err error) {
	if idx.Form == catalog.FormUnique {
		return splitUniqueValue(t, idx, value)
	}
	return rest, value, nil
}

// IncludedLayout returns the table ordinals and column IDs of the
// included values an entry of idx holds in its row encoding (nil when
// none: no INCLUDE, or every included column is in the key). The slices
// are shared: do not modify them.
func IncludedLayout(t *catalog.Table, idx *catalog.Index) (ords []int, ids []uint32) {
	l := includeOf(t, idx)
	if l == nil {
		return nil, nil
	}
	return l.ords, l.ids
}
