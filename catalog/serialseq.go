package catalog

import (
	"errors"

	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/types"
)

// Serial sequences. PostgreSQL backs a serial or identity column with a
// sequence named table_column_seq; kvsql backs it with a counter of the
// table (NextSequence). So that clients which read or set that sequence
// (pg_dump's SELECT last_value FROM t_id_seq and setval, nextval on a
// serial's sequence, the catalog views) find it, each such column has a
// synthetic Sequence: never stored, described from the column, its
// counter the column's.

// serialSeqOIDBase + table ID * 1024 + attribute number is a serial
// sequence's ID (OID); it fits in 32 bits, as clients keep OIDs.
const serialSeqOIDBase = 0x78000000

// SerialSequences returns the synthetic sequences of db's serial and
// identity columns (not the hidden row ids), tables in name order.
func (c *Catalog) SerialSequences(db string) []*Sequence {
	tables, err := c.Tables(db)
	if err != nil {
		return nil
	}
	var out []*Sequence
	for _, t := range tables {
		attnum := 0
		for _, col := range t.Columns {
			if col.Hidden {
				continue
			}
			attnum++
			if col.Serial {
				out = append(out, serialSequence(t, col, attnum))
			}
		}
	}
	return out
}

func serialSequence(t *Table, col Column, attnum int) *Sequence {
	typ := "bigint"
	switch col.Type.Family {
	case types.Int2:
		typ = "smallint"
	case types.Int4:
		typ = "integer"
	}
	_, hi, _ := SequenceTypeBounds(typ)
	return &Sequence{
		ID: serialSeqOIDBase + t.ID*1024 + uint64(attnum), Name: SerialSequenceName(t.Name, col.Name), Schema: t.Schema,
		Type: typ, Start: 1, Increment: 1, Min: 1, Max: hi, Cache: 1,
		OwnedTable: t.Key(), OwnedColumn: col.Name,
		SerialTable: t.ID, SerialColumn: col.ID, Identity: col.IdentityAlways || col.IdentityByDefault,
	}
}

// SerialSequenceID is the ID of the synthetic sequence of column col of
// t (a serial or identity column, not hidden).
func SerialSequenceID(t *Table, col int) uint64 {
	attnum := 0
	for i := 0; i <= col; i++ {
		if !t.Columns[i].Hidden {
			attnum++
		}
	}
	return serialSeqOIDBase + t.ID*1024 + uint64(attnum)
}

// SerialSequenceName is PostgreSQL's name for the sequence of a serial
// column: table_column_seq.
func SerialSequenceName(table, column string) string { return table + "_" + column + "_seq" }

// SerialSequence returns the synthetic sequence of db called name, or nil.
func (c *Catalog) SerialSequence(db, name string) *Sequence {
	for _, s := range c.SerialSequences(db) {
		if s.Key() == name {
			return s
		}
	}
	return nil
}

// SerialSequenceByID returns the synthetic sequence of db with that ID,
// or nil.
func (c *Catalog) SerialSequenceByID(db string, id uint64) *Sequence {
	if id < serialSeqOIDBase {
		return nil
	}
	for _, s := range c.SerialSequences(db) {
		if s.ID == id {
			return s
		}
	}
	return nil
}

// ReadSerialCounter returns the next value the counter of column colID of
// table tableID hands out (1 when it never did).
func ReadSerialCounter(r kv.Reader, tableID uint64, colID uint32) (int64, error) {
	v, err := r.Get(SequenceKey(tableID, colID))
	if errors.Is(err, kv.ErrNotFound) {
		return 1, nil
	}
	if err != nil {
		return 0, err
	}
	n, err := getUint64(v)
	return int64(n), err
}

// WriteSerialCounter sets the next value the counter of column colID of
// table tableID hands out.
func WriteSerialCounter(w kv.Writer, tableID uint64, colID uint32, next int64) error {
	return w.Set(SequenceKey(tableID, colID), putUint64(uint64(next)))
}
