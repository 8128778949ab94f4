package session

import (
	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/pgerror"
)

// Sequences (serial columns and hidden row ids) are counters kept in the
// store. They are reserved in blocks outside any transaction, so a value
// handed out is never handed out again — not after a rollback and not
// after a crash (the reservation is written before any row that uses it,
// and the WAL keeps that order).

type seqKey struct {
	table uint64
	col   uint32
}

type seqBlock struct{ next, end int64 }

const seqBlockSize = 64

// nextVal returns the next value of column col of table t.
func (db *DB) nextVal(t *catalog.Table, col int) (int64, error) {
	k := seqKey{t.ID, t.Columns[col].ID}
	db.seqMu.Lock()
	defer db.seqMu.Unlock()
	b := db.seqCache[k]
	if b == nil || b.next >= b.end {
		first, err := catalog.NextSequence(db.eng, t, k.col, seqBlockSize)
		if err != nil {
			return 0, pgerror.Wrap(err, pgerror.IOError)
		}
		b = &seqBlock{next: first, end: first + seqBlockSize}
		db.seqCache[k] = b
	}
	v := b.next
	b.next++
	return v, nil
}
