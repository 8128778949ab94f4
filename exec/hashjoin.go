package exec

import (
	"hash/maphash"

	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// Grace hash join parameters: a spilled join splits each side into
// fanout partitions by hash, and splits a partition again (with the next
// hash bits) while it is still over budget, at most maxLevels times;
// after that the partition is loaded whatever its size (a skewed key).
const (
	fanout    = 16
	fanBits   = 4
	maxLevels = 4
)

// hashEntry is one build row in the hash table: the build row extended
// with its key values, the hash of those keys, and whether a probe row
// matched it (for the joins that produce unmatched build rows).
type hashEntry struct {
	row     []types.Datum
	hash    uint64
	matched bool
}

// joinTask is one partition pair of a spilled join.
type joinTask struct {
	build, probe *spillFile
	level        int
}

// hashJoinOp is an equi-join. It loads the build side (the right input
// if BuildRight, else the left) into a hash table keyed by the join keys
// and streams the probe side through it. Rows whose keys contain a NULL
// never match.
//
// When the build side outgrows the memory budget the join becomes a grace
// hash join: both sides are partitioned by key hash into spill files and
// joined one partition pair at a time. Rows that must appear unmatched
// (the left side's in LEFT and ANTI joins, both sides' in FULL joins) are
// produced whichever side is the build side: unmatched probe rows as they
// stream, unmatched build rows after their partition's probe rows are
// done, rows with a NULL key at the end.
type hashJoinOp struct {
	rs   *runState
	env  *eval.Env
	node *planner.Join
	t    ticker

	left, right Operator
	lw, rw      int
	buildLeft   bool
	build       *keyedSource // the build operator, keys appended
	probe       *keyedSource

	seed  maphash.Seed
	h     maphash.Hash
	mem   memAccount
	table map[uint64][]int32
	ents  []hashEntry

	opened  bool
	parts   []*spillFile // build partitions while loading spills
	tasks   []joinTask
	nulls   [2]*rowBuffer // rows with a NULL key to produce unmatched: [0] left, [1] right
	cur     rowSource     // the probe rows of the current table
	curTask joinTask

	// Probe state: the current probe row, the bucket being walked, and
	// whether any build row matched it.
	prow    []types.Datum
	bucket  []int32
	bi      int
	matched bool
	// Post-probe states.
	unmatchedPos int         // next table entry to check for unmatched output
	nullSide     int         // the nulls buffer being emitted
	nullIter     *bufferIter // emitting nulls[nullSide]
	phase        int
	out          []types.Datum
}

const (
	hjProbe     = iota // streaming probe rows through the table
	hjUnmatched        // producing unmatched build (left) rows
	hjNextTask         // loading the next partition pair
	hjNulls            // producing left rows with NULL keys
	hjDone
)

var _ Operator = (*hashJoinOp)(nil)

func newHashJoin(rs *runState, env *eval.Env, n *planner.Join, left, right Operator, lw, rw int) *hashJoinOp {
	j := &hashJoinOp{rs: rs, env: env, node: n, t: ticker{rs: rs}, left: left, right: right,
		lw: lw, rw: rw, buildLeft: !n.BuildRight, seed: maphash.MakeSeed(),
		mem: rs.memAccount(rs.workMem), table: make(map[uint64][]int32)}
	j.h.SetSeed(j.seed)
	if j.buildLeft {
		j.build = &keyedSource{env: env, op: left, keys: n.LeftKeys, width: lw}
		j.probe = &keyedSource{env: env, op: right, keys: n.RightKeys, width: rw}
	} else {
		j.build = &keyedSource{env: env, op: right, keys: n.RightKeys, width: rw}
		j.probe = &keyedSource{env: env, op: left, keys: n.LeftKeys, width: lw}
	}
	j.out = make([]types.Datum, lw+rw)
	return j
}

// keepsUnmatched reports whether rows of the left (or right) side without
// a match are produced: the left side's in LEFT and ANTI joins, both
// sides' in FULL joins.
func (j *hashJoinOp) keepsUnmatched(left bool) bool {
	switch j.node.Type {
	case planner.LeftJoin, planner.AntiJoin:
		return left
	case planner.FullJoin:
		return true
	}
	return false
}

func (j *hashJoinOp) Next() ([]types.Datum, error) {
	if !j.opened {
		j.opened = true
		if err := j.open(); err != nil {
			return nil, err
		}
	}
	for {
		switch j.phase {
		case hjProbe:
			row, err := j.probeNext()
			if row != nil || err != nil {
				return row, err
			}
			j.phase, j.unmatchedPos = hjUnmatched, 0
		case hjUnmatched:
			if j.keepsUnmatched(j.buildLeft) {
				for j.unmatchedPos < len(j.ents) {
					e := &j.ents[j.unmatchedPos]
					j.unmatchedPos++
					if !e.matched {
						return j.unmatched(j.buildLeft, e.row), nil
					}
				}
			}
			j.phase = hjNextTask
		case hjNextTask:
			if len(j.tasks) == 0 {
				j.phase = hjNulls
				continue
			}
			if err := j.startTask(); err != nil {
				return nil, err
			}
		case hjNulls:
			if j.nullSide > 1 {
				j.phase = hjDone
				continue
			}
			if j.nulls[j.nullSide] == nil {
				j.nullSide++
				continue
			}
			if j.nullIter == nil {
				j.nullIter = j.nulls[j.nullSide].iter()
			}
			row, err := j.nullIter.next()
			if err != nil {
				return nil, err
			}
			if row == nil {
				j.nullSide, j.nullIter = j.nullSide+1, nil
				continue
			}
			return j.unmatched(j.nullSide == 0, row), nil
		default:
			return nil, nil
		}
	}
}

// unmatched is the output for a row of the left (or right) side without
// a match: padded with NULLs on the other side, or the bare left row for
// an ANTI join. row may carry its keys after the side's columns.
func (j *hashJoinOp) unmatched(left bool, row []types.Datum) []types.Datum {
	if !left {
		clear(j.out[:j.lw])
		copy(j.out[j.lw:], row[:j.rw])
		return j.out
	}
	copy(j.out, row[:j.lw])
	if j.node.Type == planner.AntiJoin {
		return j.out[:j.lw]
	}
	clear(j.out[j.lw:])
	return j.out
}

// open loads the build side; if it spilled, it also partitions the probe
// side and queues the partition pairs.
func (j *hashJoinOp) open() error {
	for {
		row, err := j.build.next()
		if err != nil {
			return err
		}
		if row == nil {
			break
		}
		if err := j.t.tick(); err != nil {
			return err
		}
		if j.build.nullKey {
			if j.keepsUnmatched(j.buildLeft) {
				if err := j.addNull(j.buildLeft, row); err != nil {
					return err
				}
			}
			continue
		}
		if err := j.addBuild(copyRow(row), 0); err != nil {
			return err
		}
	}
	if j.parts == nil {
		j.cur = j.probe
		return nil
	}
	// Spilled: partition the probe side like the build side.
	probeParts, err := j.partitionSource(j.probe, 0, true)
	if err != nil {
		return err
	}
	for i := range j.parts {
		j.tasks = append(j.tasks, joinTask{build: j.parts[i], probe: probeParts[i], level: 1})
	}
	j.parts = nil
	j.phase = hjNextTask
	return nil
}

func (j *hashJoinOp) addNull(left bool, row []types.Datum) error {
	side := 1
	if left {
		side = 0
	}
	if j.nulls[side] == nil {
		j.nulls[side] = newRowBuffer(j.rs, j.rs.workMem/8)
	}
	return j.nulls[side].add(row)
}

// addBuild adds an extended build row (owned by the table from now on) to
// the table, or to a build partition once the table has spilled.
func (j *hashJoinOp) addBuild(row []types.Datum, level int) error {
	hash := j.hashKeys(row[j.build.width:])
	if j.parts != nil {
		return j.parts[partOf(hash, level)].write(row)
	}
	sz := rowSize(row) + 32
	if !j.mem.fits(sz) && level < maxLevels && len(j.ents) > 0 {
		// Over budget: move the table into partitions.
		j.parts = make([]*spillFile, fanout)
		for i := range j.parts {
			f, err := newSpillFile(j.rs.ctx.TempDir)
			if err != nil {
				return err
			}
			j.parts[i] = f
		}
		for i := range j.ents {
			e := &j.ents[i]
			if err := j.parts[partOf(e.hash, level)].write(e.row); err != nil {
				return err
			}
		}
		j.resetTable()
		return j.parts[partOf(hash, level)].write(row)
	}
	if err := j.mem.grow(sz); err != nil {
		return err
	}
	j.table[hash] = append(j.table[hash], int32(len(j.ents)))
	j.ents = append(j.ents, hashEntry{row: row, hash: hash})
	return nil
}

func (j *hashJoinOp) resetTable() {
	j.ents = nil
	j.table = make(map[uint64][]int32)
	j.mem.reset()
}

// partitionSource writes the rows of src into fanout partition files by
// key hash at level. Rows with a NULL key are dropped, or kept as
// unmatched rows when keepNulls (src is the level-0 probe side) and the
// join produces the probe side's unmatched rows.
func (j *hashJoinOp) partitionSource(src rowSource, level int, keepNulls bool) ([]*spillFile, error) {
	parts := make([]*spillFile, fanout)
	for i := range parts {
		f, err := newSpillFile(j.rs.ctx.TempDir)
		if err != nil {
			closeFiles(parts)
			return nil, err
		}
		parts[i] = f
	}
	for {
		row, err := src.next()
		if err != nil {
			closeFiles(parts)
			return nil, err
		}
		if row == nil {
			return parts, nil
		}
		if err := j.t.tick(); err != nil {
			closeFiles(parts)
			return nil, err
		}
		keys := row[len(row)-len(j.node.LeftKeys):]
		if hasNull(keys) {
			if keepNulls && j.keepsUnmatched(!j.buildLeft) {
				if err := j.addNull(!j.buildLeft, row); err != nil {
					closeFiles(parts)
					return nil, err
				}
			}
			continue
		}
		if err := parts[partOf(j.hashKeys(keys), level)].write(row); err != nil {
			closeFiles(parts)
			return nil, err
		}
	}
}

// startTask pops a partition pair: it splits it further if its build
// side is still over budget, otherwise loads the build side into the
// table and starts probing.
func (j *hashJoinOp) startTask() error {
	t := j.tasks[len(j.tasks)-1]
	j.tasks = j.tasks[:len(j.tasks)-1]
	j.closeTask()
	j.curTask = t
	j.resetTable()
	if t.build.size > j.mem.limit && t.level < maxLevels {
		br, err := t.build.reader()
		if err != nil {
			return err
		}
		pr, err := t.probe.reader()
		if err != nil {
			return err
		}
		bparts, err := j.partitionSource(br, t.level, false)
		if err != nil {
			return err
		}
		pparts, err := j.partitionSource(pr, t.level, false)
		if err != nil {
			closeFiles(bparts)
			return err
		}
		for i := range bparts {
			j.tasks = append(j.tasks, joinTask{build: bparts[i], probe: pparts[i], level: t.level + 1})
		}
		j.closeTask()
		return nil
	}
	br, err := t.build.reader()
	if err != nil {
		return err
	}
	for {
		row, err := br.next()
		if err != nil {
			return err
		}
		if row == nil {
			break
		}
		if err := j.t.tick(); err != nil {
			return err
		}
		hash := j.hashKeys(row[j.build.width:])
		if err := j.mem.grow(rowSize(row) + 32); err != nil {
			return err
		}
		j.table[hash] = append(j.table[hash], int32(len(j.ents)))
		j.ents = append(j.ents, hashEntry{row: copyRow(row), hash: hash})
	}
	pr, err := t.probe.reader()
	if err != nil {
		return err
	}
	j.cur = pr
	j.phase = hjProbe
	return nil
}

// closeTask releases the current partition pair's files.
func (j *hashJoinOp) closeTask() {
	_ = j.curTask.build.close()
	_ = j.curTask.probe.close()
	j.curTask = joinTask{}
}

// probeNext produces the next output row of the probe phase, or nil when
// the current probe source is exhausted.
func (j *hashJoinOp) probeNext() ([]types.Datum, error) {
	typ := j.node.Type
	for {
		if j.prow != nil {
			for j.bi < len(j.bucket) {
				e := &j.ents[j.bucket[j.bi]]
				j.bi++
				if !keysEqual(e.row[j.build.width:], j.prow[j.probe.width:]) {
					continue
				}
				if j.buildLeft && typ == planner.SemiJoin && e.matched {
					continue
				}
				var left, right []types.Datum
				if j.buildLeft {
					left, right = e.row[:j.lw], j.prow[:j.rw]
				} else {
					left, right = j.prow[:j.lw], e.row[:j.rw]
				}
				copy(j.out, left)
				copy(j.out[j.lw:], right)
				ok, err := passes(j.env, j.node.On, j.out)
				if err != nil {
					return nil, err
				}
				if !ok {
					continue
				}
				j.matched = true
				e.matched = true
				switch typ {
				case planner.InnerJoin, planner.LeftJoin, planner.FullJoin:
					return j.out, nil
				case planner.SemiJoin:
					if !j.buildLeft {
						j.bi = len(j.bucket) // one output per left row
					}
					return j.out[:j.lw], nil
				case planner.AntiJoin:
					if !j.buildLeft {
						j.bi = len(j.bucket)
					}
				}
			}
			// Bucket done: an unmatched probe row may be due.
			prow, matched := j.prow, j.matched
			j.prow = nil
			if !matched && j.keepsUnmatched(!j.buildLeft) {
				return j.unmatched(!j.buildLeft, prow), nil
			}
		}
		row, err := j.cur.next()
		if err != nil || row == nil {
			return nil, err
		}
		if err := j.t.tick(); err != nil {
			return nil, err
		}
		j.prow, j.matched, j.bi, j.bucket = row, false, 0, nil
		keys := row[j.probe.width:]
		if !hasNull(keys) {
			j.bucket = j.table[j.hashKeys(keys)]
		}
	}
}

func (j *hashJoinOp) hashKeys(keys []types.Datum) uint64 {
	j.h.Reset()
	for _, d := range keys {
		eval.Hash(&j.h, d)
	}
	return j.h.Sum64()
}

func (j *hashJoinOp) Close() error {
	err := closeAll(j.left, j.right)
	j.closeTask()
	for _, t := range j.tasks {
		_ = t.build.close()
		_ = t.probe.close()
	}
	closeFiles(j.parts)
	for _, b := range j.nulls {
		if b != nil {
			_ = b.close()
		}
	}
	j.tasks, j.parts, j.nulls, j.ents, j.table = nil, nil, [2]*rowBuffer{}, nil, nil
	j.mem.reset()
	return err
}

// partOf picks a hash's partition at a level, using different hash bits
// at each level (the table's own buckets use the whole hash).
func partOf(hash uint64, level int) int {
	return int(hash>>(64-fanBits*(level+1))) & (fanout - 1)
}

func closeFiles(fs []*spillFile) {
	for _, f := range fs {
		_ = f.close()
	}
}

// keyedSource adapts an operator to a rowSource of extended rows: the
// input row followed by its evaluated key expressions. nullKey tells
// whether the last row's keys contain a NULL. The returned row is reused.
type keyedSource struct {
	env     *eval.Env
	op      Operator
	keys    []planner.Expr
	width   int
	buf     []types.Datum
	nullKey bool
}

func (s *keyedSource) next() ([]types.Datum, error) {
	row, err := s.op.Next()
	if row == nil || err != nil {
		return nil, err
	}
	s.buf = append(s.buf[:0], row[:s.width]...)
	for _, k := range s.keys {
		d, err := eval.Eval(s.env, k, row)
		if err != nil {
			return nil, err
		}
		s.buf = append(s.buf, d)
	}
	s.nullKey = hasNull(s.buf[s.width:])
	return s.buf, nil
}

func hasNull(row []types.Datum) bool {
	for i := range row {
		if row[i].IsNull() {
			return true
		}
	}
	return false
}

// keysEqual compares two non-NULL key lists with SQL equality.
func keysEqual(a, b []types.Datum) bool {
	for i := range a {
		if !eval.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}
