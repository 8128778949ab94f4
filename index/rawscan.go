package index

import (
	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/kv"
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
