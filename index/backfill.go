package index

import (
	"fmt"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// backfillBatch is how many rows Backfill reads before writing their
// entries; the master iterator is closed while it writes.
const backfillBatch = 512

// Backfill writes idx's entry for every existing row of t (after
// catalog.CreateIndex, in the same writer). For a unique index two rows
// with equal non-NULL values fail it with 23505 and nothing more should
// be committed. progress, if not nil, is told how many rows are done
// after each batch of them (pg_stat_progress_create_index, kvsql
// check's progress line).
func Backfill(rw kv.ReadWriter, t *catalog.Table, idx *catalog.Index, progress func(done int64)) error {
	var after []types.Datum // primary key of the last row done
	var done int64
	for {
		sp := Span{}
		if after != nil {
			sp = Span{Lo: after, LoExcl: true}
		}
		rows, err := readRows(rw, t, sp, backfillBatch)
		if err != nil {
			return err
		}
		for _, row := range rows {
			if err := checkUnique(rw, t, idx, row, nil); err != nil {
				pe := pgerror.Newf(pgerror.UniqueViolation, "could not create unique index %q", idx.Name).OnTable(t.Name)
				pe.Constraint = idx.Name
				cols, vals := formatTuple(t, idx.Columns, row)
				pe.Detail = fmt.Sprintf("Key (%s)=(%s) is duplicated.", cols, vals)
				return pe
			}
			if err := putEntry(rw, t, idx, row); err != nil {
				return err
			}
		}
		if done += int64(len(rows)); progress != nil {
			progress(done)
		}
		if len(rows) < backfillBatch {
			return nil
		}
		last := rows[len(rows)-1]
		after = make([]types.Datum, len(t.PrimaryKey))
		for i, o := range t.PrimaryKey {
			after[i] = last[o]
		}
	}
}

// readRows copies up to n rows of sp out of the master file.
func readRows(r kv.Reader, t *catalog.Table, sp Span, n int) ([][]types.Datum, error) {
	it, err := ScanMaster(r, t, sp, false)
	if err != nil {
		return nil, err
	}
	var rows [][]types.Datum
	for len(rows) < n && it.Next() {
		rows = append(rows, append([]types.Datum(nil), it.Row()...))
	}
	err = it.Err()
	if cerr := it.Close(); err == nil {
		err = cerr
	}
	return rows, err
}
