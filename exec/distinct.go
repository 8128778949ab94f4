package exec

import (
	"hash/maphash"

	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/types"
)

// distinctOp removes duplicate rows (NULLs equal each other here). It
// streams: a row is produced the first time it is seen. Once the set of
// seen rows reaches the memory budget, rows already in the set are still
// dropped, and rows not in it go to hash partitions; each partition is
// then deduplicated on its own (recursively). A row equal to one in the
// frozen set never reaches a partition, and equal rows always share a
// partition, so every distinct row is produced exactly once.
type distinctOp struct {
	rs    *runState
	input Operator
	t     ticker

	seed  maphash.Seed
	h     maphash.Hash
	mem   memAccount
	set   map[uint64][][]types.Datum
	src   rowSource
	level int
	spill []*spillFile
	queue []aggPartition
}

func newDistinct(rs *runState, in Operator) *distinctOp {
	d := &distinctOp{rs: rs, input: in, t: ticker{rs: rs}, seed: maphash.MakeSeed(),
		mem: rs.memAccount(rs.workMem), set: make(map[uint64][][]types.Datum)}
	d.h.SetSeed(d.seed)
	d.src = opSource{in}
	return d
}

var _ Operator = (*distinctOp)(nil)

func (d *distinctOp) Next() ([]types.Datum, error) {
	for d.src != nil {
		row, err := d.src.next()
		if err != nil {
			return nil, err
		}
		if row == nil {
			if err := d.nextPartition(); err != nil || d.src == nil {
				return nil, err
			}
			continue
		}
		if err := d.t.tick(); err != nil {
			return nil, err
		}
		key := row
		d.h.Reset()
		for _, v := range key {
			eval.Hash(&d.h, v)
		}
		hash := d.h.Sum64()
		seen := false
		for _, prev := range d.set[hash] {
			if rowsIdentical(prev, key) {
				seen = true
				break
			}
		}
		if seen {
			continue
		}
		sz := rowSize(key) + 32
		if !d.mem.fits(sz) && len(d.set) > 0 && d.level < maxLevels {
			if err := d.spillRow(hash, row); err != nil {
				return nil, err
			}
			continue
		}
		if err := d.mem.grow(sz); err != nil {
			return nil, err
		}
		d.set[hash] = append(d.set[hash], copyRow(key))
		return row, nil
	}
	return nil, nil
}

func (d *distinctOp) spillRow(hash uint64, row []types.Datum) error {
	if d.spill == nil {
		d.spill = make([]*spillFile, fanout)
	}
	p := partOf(hash, d.level)
	if d.spill[p] == nil {
		f, err := newSpillFile(d.rs.ctx.TempDir)
		if err != nil {
			return err
		}
		d.spill[p] = f
	}
	return d.spill[p].write(row)
}

// nextPartition switches to the next spilled partition with an empty set,
// or sets src to nil when there is none.
func (d *distinctOp) nextPartition() error {
	for _, f := range d.spill {
		if f != nil {
			d.queue = append(d.queue, aggPartition{file: f, level: d.level + 1})
		}
	}
	d.spill = nil
	if cur, ok := d.src.(*partitionSource); ok {
		_ = cur.file.close()
	}
	d.src = nil
	if len(d.queue) == 0 {
		return nil
	}
	p := d.queue[len(d.queue)-1]
	d.queue = d.queue[:len(d.queue)-1]
	r, err := p.file.reader()
	if err != nil {
		_ = p.file.close()
		return err
	}
	d.src = &partitionSource{file: p.file, r: r}
	d.level = p.level
	d.set = make(map[uint64][][]types.Datum)
	d.mem.reset()
	return nil
}

func (d *distinctOp) Close() error {
	err := d.input.Close()
	closeFiles(d.spill)
	for _, p := range d.queue {
		_ = p.file.close()
	}
	if cur, ok := d.src.(*partitionSource); ok {
		_ = cur.file.close()
	}
	d.spill, d.queue, d.set, d.src = nil, nil, nil, nil
	d.mem.reset()
	return err
}

// partitionSource reads a partition file it owns.
type partitionSource struct {
	file *spillFile
	r    *spillReader
}

func (p *partitionSource) next() ([]types.Datum, error) { return p.r.next() }

// distinctOnOp produces the first row of each run of input rows that are
// equal (NULLs too) in cols: SELECT DISTINCT ON over sorted input.
type distinctOnOp struct {
	input Operator
	cols  []int
	prev  []types.Datum
	seen  bool
}

func (d *distinctOnOp) Next() ([]types.Datum, error) {
	for {
		row, err := d.input.Next()
		if row == nil || err != nil {
			return nil, err
		}
		key := make([]types.Datum, len(d.cols))
		for i, c := range d.cols {
			key[i] = row[c]
		}
		if d.seen && rowsIdentical(d.prev, key) {
			continue
		}
		d.prev, d.seen = copyRow(key), true
		return row, nil
	}
}

func (d *distinctOnOp) Close() error { return d.input.Close() }
