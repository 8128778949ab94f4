package exec

import (
	"math"
	"sort"

	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
)

// windowOp computes window functions (planner.Window) over input sorted
// by partition then order: it reads one partition at a time into memory,
// computes every function's value for each of its rows, and produces
// each row followed by those values.
type windowOp struct {
	rs    *runState
	env   *eval.Env
	node  *planner.Window
	input Operator
	t     ticker

	pending []types.Datum // the first row of the next partition
	pkey    []types.Datum // its partition key
	done    bool

	mem  memAccount      // the current partition's rows (it does not spill)
	rows [][]types.Datum // the current partition
	key  []types.Datum   // each row's last ORDER BY value (RANGE offsets)
	vals [][]types.Datum // per function, per row
	pos  int             // next row to produce
	out  []types.Datum
}

func newWindow(rs *runState, env *eval.Env, n *planner.Window, in Operator) *windowOp {
	return &windowOp{rs: rs, env: env, node: n, input: in, t: ticker{rs: rs}, mem: rs.heldAccount()}
}

func (o *windowOp) Next() ([]types.Datum, error) {
	for o.pos >= len(o.rows) {
		if o.done {
			return nil, nil
		}
		if err := o.readPartition(); err != nil {
			return nil, err
		}
		if len(o.rows) == 0 {
			return nil, nil
		}
		if err := o.compute(); err != nil {
			return nil, err
		}
	}
	row := o.rows[o.pos]
	o.out = append(o.out[:0], row...)
	for f := range o.node.Funcs {
		o.out = append(o.out, o.vals[f][o.pos])
	}
	o.pos++
	return o.out, nil
}

// readPartition reads the rows of the next partition.
func (o *windowOp) readPartition() error {
	o.rows, o.pos = o.rows[:0], 0
	o.mem.reset()
	if o.pending != nil {
		if err := o.mem.grow(rowSize(o.pending)); err != nil {
			return err
		}
		o.rows = append(o.rows, o.pending)
		o.pending = nil
	}
	key := o.pkey
	for {
		row, err := o.input.Next()
		if err != nil {
			return err
		}
		if row == nil {
			o.done = true
			return nil
		}
		if err := o.t.tick(); err != nil {
			return err
		}
		row = copyRow(row)
		if err := o.mem.grow(rowSize(row)); err != nil {
			return err
		}
		k, err := evalAll(o.env, o.node.Partition, row)
		if err != nil {
			return err
		}
		if len(o.rows) == 0 {
			key = k
			o.rows = append(o.rows, row)
			continue
		}
		if !rowsIdentical(key, k) {
			o.pending, o.pkey = row, k
			return nil
		}
		o.rows = append(o.rows, row)
	}
}

func evalAll(env *eval.Env, es []planner.Expr, row []types.Datum) ([]types.Datum, error) {
	out := make([]types.Datum, len(es))
	for i, e := range es {
		d, err := eval.Eval(env, e, row)
		if err != nil {
			return nil, err
		}
		out[i] = d
	}
	return out, nil
}

// peers describes the current partition's peer groups (rows with equal
// ORDER BY values; all its rows without an ORDER BY).
type peers struct {
	first, last []int // per row: its group's first and last row
	group       []int // per row: its group's number, from 0
	groupFirst  []int // per group: its first row
	groupLast   []int // per group: its last row
}

// compute fills vals for the rows of the current partition.
func (o *windowOp) compute() error {
	n := len(o.rows)
	p := &peers{first: make([]int, n), last: make([]int, n), group: make([]int, n)}
	var prev []types.Datum
	o.key = o.key[:0]
	for i, row := range o.rows {
		keys := make([]types.Datum, len(o.node.Order))
		for k, sk := range o.node.Order {
			d, err := eval.Eval(o.env, sk.Expr, row)
			if err != nil {
				return err
			}
			keys[k] = d
		}
		if len(keys) > 0 {
			// The last key: RANGE offsets have one ORDER BY column, after
			// the IS NULL key NULLS FIRST/LAST may add.
			o.key = append(o.key, keys[len(keys)-1])
		}
		if i > 0 && rowsIdentical(prev, keys) {
			p.first[i], p.group[i] = p.first[i-1], p.group[i-1]
		} else {
			p.first[i] = i
			p.group[i] = len(p.groupFirst)
			p.groupFirst = append(p.groupFirst, i)
		}
		prev = keys
	}
	p.groupLast = make([]int, len(p.groupFirst))
	for i := n - 1; i >= 0; i-- {
		if i+1 < n && p.first[i+1] == p.first[i] {
			p.last[i] = p.last[i+1]
		} else {
			p.last[i] = i
			p.groupLast[p.group[i]] = i
		}
	}
	o.vals = make([][]types.Datum, len(o.node.Funcs))
	for f := range o.node.Funcs {
		fn := &o.node.Funcs[f]
		vals := make([]types.Datum, n)
		var err error
		switch fn.Func {
		case "row_number", "rank", "dense_rank", "percent_rank", "cume_dist":
			for i := range vals {
				vals[i] = ranking(fn.Func, i, n, p.first[i], p.last[i], p.group[i]+1)
			}
		case "ntile":
			err = o.ntile(fn, vals)
		case "lag", "lead":
			err = o.lagLead(fn, vals)
		default:
			err = o.framed(fn, vals, p)
		}
		if err != nil {
			return err
		}
		o.vals[f] = vals
	}
	return nil
}

func ranking(fn string, i, n, first, last, group int) types.Datum {
	switch fn {
	case "row_number":
		return types.NewInt(int64(i + 1))
	case "rank":
		return types.NewInt(int64(first + 1))
	case "dense_rank":
		return types.NewInt(int64(group))
	case "percent_rank":
		if n <= 1 {
			return types.NewFloat(0)
		}
		return types.NewFloat(float64(first) / float64(n-1))
	}
	return types.NewFloat(float64(last+1) / float64(n)) // cume_dist
}

// ntile splits the partition into as equal buckets as it can, the first
// ones one row larger, as PostgreSQL does; the bucket count is read on the
// partition's first row.
func (o *windowOp) ntile(fn *planner.WindowFunc, vals []types.Datum) error {
	d, err := eval.Eval(o.env, fn.Args[0], o.rows[0])
	if err != nil || d.IsNull() {
		return err // NULL buckets: NULL for every row
	}
	k := d.I
	if k <= 0 {
		return pgerror.New(pgerror.InvalidArgumentForNtile, "argument of ntile must be greater than zero")
	}
	n := int64(len(vals))
	per, extra := n/k, n%k
	for i := range vals {
		r := int64(i)
		var b int64
		if r < extra*(per+1) {
			b = r/(per+1) + 1
		} else {
			b = (r-extra*(per+1))/per + extra + 1
		}
		vals[i] = types.NewInt(b)
	}
	return nil
}

func (o *windowOp) lagLead(fn *planner.WindowFunc, vals []types.Datum) error {
	for i, row := range o.rows {
		off := int64(1)
		if len(fn.Args) > 1 {
			d, err := eval.Eval(o.env, fn.Args[1], row)
			if err != nil {
				return err
			}
			if d.IsNull() {
				vals[i] = types.Null
				continue
			}
			off = d.I
		}
		j := int64(i) - off
		if fn.Func == "lead" {
			j = int64(i) + off
		}
		var err error
		switch {
		case j >= 0 && j < int64(len(o.rows)):
			vals[i], err = eval.Eval(o.env, fn.Args[0], o.rows[j])
		case len(fn.Args) > 2:
			vals[i], err = eval.Eval(o.env, fn.Args[2], row)
		default:
			vals[i] = types.Null
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// frameOffset evaluates a ROWS or GROUPS offset.
func (o *windowOp) frameOffset(b planner.FrameBound, start bool) (int, error) {
	if b.Offset == nil || b.Target != nil {
		return 0, nil
	}
	d, err := eval.Eval(o.env, b.Offset, nil)
	if err != nil {
		return 0, err
	}
	which := "ending"
	if start {
		which = "starting"
	}
	if d.IsNull() {
		return 0, pgerror.Newf(pgerror.NullValueNotAllowed, "frame %s offset must not be null", which)
	}
	if d.I < 0 {
		return 0, pgerror.Newf(pgerror.InvalidPrecedingFollowing, "frame %s offset must not be negative", which)
	}
	if d.I > 1<<40 {
		return 1 << 40, nil // past any partition
	}
	return int(d.I), nil
}

// frameSet holds the frame of every row of a partition: rows lo[i]
// through hi[i] (none when lo[i] > hi[i]) less those the frame's
// exclusion leaves out.
type frameSet struct {
	lo, hi  []int
	exclude planner.FrameExclusion
	p       *peers
}

// excluded reports whether row j is left out of row i's frame.
func (fs *frameSet) excluded(i, j int) bool {
	switch fs.exclude {
	case parse.ExcludeCurrentRow:
		return j == i
	case parse.ExcludeGroup:
		return j >= fs.p.first[i] && j <= fs.p.last[i]
	case parse.ExcludeTies:
		return j != i && j >= fs.p.first[i] && j <= fs.p.last[i]
	}
	return false
}

// nth returns the k-th row (from 1) of row i's frame, counted from its
// end when fromEnd; ok is false when the frame has fewer rows.
func (fs *frameSet) nth(i, k int, fromEnd bool) (j int, ok bool) {
	lo, hi := fs.lo[i], fs.hi[i]
	if fs.exclude == parse.ExcludeNoOthers {
		j = lo + k - 1
		if fromEnd {
			j = hi - k + 1
		}
		return j, j >= lo && j <= hi
	}
	step := 1
	j = lo
	if fromEnd {
		step, j = -1, hi
	}
	for ; j >= lo && j <= hi; j += step {
		if fs.excluded(i, j) {
			continue
		}
		if k--; k == 0 {
			return j, true
		}
	}
	return 0, false
}

// frames computes the frame of every row of the partition.
func (o *windowOp) frames(f planner.Frame, p *peers) (*frameSet, error) {
	n := len(o.rows)
	fs := &frameSet{lo: make([]int, n), hi: make([]int, n), exclude: f.Exclude, p: p}
	so, err := o.frameOffset(f.Start, true)
	if err != nil {
		return nil, err
	}
	eo, err := o.frameOffset(f.End, false)
	if err != nil {
		return nil, err
	}
	for i := range n {
		fs.lo[i] = boundRow(f, f.Start, so, i, n, p, true)
		fs.hi[i] = boundRow(f, f.End, eo, i, n, p, false)
	}
	if f.Start.Target != nil || f.End.Target != nil {
		if err := o.rangeFrames(f, fs); err != nil {
			return nil, err
		}
	}
	for i := range n {
		fs.lo[i], fs.hi[i] = max(fs.lo[i], 0), min(fs.hi[i], n-1)
	}
	return fs, nil
}

// boundRow is the row where row i's frame starts (start) or ends, off
// being a ROWS or GROUPS offset; it may lie outside the partition (-1 or
// n), making the frame empty. RANGE offsets are rangeFrames' work.
func boundRow(f planner.Frame, b planner.FrameBound, off, i, n int, p *peers, start bool) int {
	switch b.Kind {
	case planner.UnboundedPreceding:
		return 0
	case planner.UnboundedFollowing:
		return n - 1
	case planner.CurrentRow:
		switch {
		case f.Unit == parse.FrameRows:
			return i
		case start:
			return p.first[i]
		}
		return p.last[i]
	}
	if b.Kind == planner.Preceding {
		off = -off
	}
	if f.Unit == parse.FrameRows {
		return min(max(i+off, -1), n)
	}
	// GROUPS: the first or last row of the group off groups away.
	g := p.group[i] + off
	switch {
	case g < 0 && start:
		return 0
	case g < 0:
		return -1
	case g >= len(p.groupFirst) && start:
		return n
	case g >= len(p.groupFirst):
		return n - 1
	case start:
		return p.groupFirst[g]
	}
	return p.groupLast[g]
}

// framed computes the functions that read a frame: first_value,
// last_value, nth_value and the aggregates. An aggregate whose frames
// all start at the partition's start and exclude nothing grows one state
// row by row; otherwise each row's frame is aggregated afresh.
func (o *windowOp) framed(fn *planner.WindowFunc, vals []types.Datum, p *peers) error {
	fs, err := o.frames(fn.Frame, p)
	if err != nil {
		return err
	}
	switch fn.Func {
	case "first_value", "last_value", "nth_value":
		return o.valueAt(fn, vals, fs)
	}
	n := len(o.rows)
	args := make([][]types.Datum, n)
	keep := make([]bool, n) // the rows FILTER passes
	for i, row := range o.rows {
		if args[i], err = evalAll(o.env, fn.Args, row); err != nil {
			return err
		}
		keep[i] = true
		if fn.Filter != nil {
			d, err := eval.Eval(o.env, fn.Filter, row)
			if err != nil {
				return err
			}
			keep[i] = !d.IsNull() && d.Bool()
		}
	}
	call := &planner.AggCall{Func: fn.Func, Args: fn.Args, T: fn.T, User: fn.User}
	result := func(st aggState) (types.Datum, error) {
		d, err := st.result()
		if err != nil {
			return d, err
		}
		return finalizeAgg(d, fn.T)
	}
	if fn.Frame.Start.Kind == planner.UnboundedPreceding && fn.Frame.Exclude == parse.ExcludeNoOthers {
		st, err := newAggState(call, o.env)
		if err != nil {
			return err
		}
		added := 0
		for i := range vals {
			for ; added <= fs.hi[i]; added++ {
				if !keep[added] {
					continue
				}
				if _, err := st.add(args[added]); err != nil {
					return err
				}
			}
			if vals[i], err = result(st); err != nil {
				return err
			}
		}
		return nil
	}
	for i := range vals {
		st, err := newAggState(call, o.env)
		if err != nil {
			return err
		}
		for j := fs.lo[i]; j <= fs.hi[i]; j++ {
			if !keep[j] || fs.excluded(i, j) {
				continue
			}
			if _, err := st.add(args[j]); err != nil {
				return err
			}
		}
		if vals[i], err = result(st); err != nil {
			return err
		}
		if err := o.t.tick(); err != nil {
			return err
		}
	}
	return nil
}

// valueAt computes first_value, last_value and nth_value: the argument
// at a row of the frame, NULL when the frame has no such row.
func (o *windowOp) valueAt(fn *planner.WindowFunc, vals []types.Datum, fs *frameSet) error {
	n := len(o.rows)
	for i := range vals {
		k, fromEnd := 1, fn.Func == "last_value"
		if fn.Func == "nth_value" {
			d, err := eval.Eval(o.env, fn.Args[1], o.rows[i])
			if err != nil {
				return err
			}
			if d.IsNull() {
				vals[i] = types.Null
				continue
			}
			if d.I <= 0 {
				return pgerror.New(pgerror.InvalidArgumentForNthValue, "argument of nth_value must be greater than zero")
			}
			k = int(min(d.I, int64(n)+1))
		}
		j, ok := fs.nth(i, k, fromEnd)
		if !ok {
			vals[i] = types.Null
			continue
		}
		var err error
		if vals[i], err = eval.Eval(o.env, fn.Args[0], o.rows[j]); err != nil {
			return err
		}
	}
	return nil
}

func (o *windowOp) Close() error {
	o.mem.reset()
	return o.input.Close()
}

// rangeFrames sets the bounds of fs that RANGE offsets give: a bound
// with a Target reaches the rows whose ORDER BY value is on the frame's
// side of the Target (binary search over the partition's values, which
// are sorted); a NULL value's frame is its peers, and the rows with NULL
// values are outside every other row's offset range.
func (o *windowOp) rangeFrames(f planner.Frame, fs *frameSet) error {
	n := len(o.rows)
	for _, b := range []planner.FrameBound{f.Start, f.End} {
		if b.Target == nil {
			continue
		}
		d, err := eval.Eval(o.env, b.Offset, nil)
		if err != nil {
			return err
		}
		if d.IsNull() {
			which := "ending"
			if b == f.Start {
				which = "starting"
			}
			return pgerror.Newf(pgerror.NullValueNotAllowed, "frame %s offset must not be null", which)
		}
		if isNaN(d) || eval.Compare(d, zeroLike(d)) < 0 {
			return pgerror.New(pgerror.InvalidPrecedingFollowing, "invalid preceding or following size in window function")
		}
	}
	desc := len(o.node.Order) > 0 && o.node.Order[len(o.node.Order)-1].Desc
	// The rows with non-NULL values: one run, NULLs before or after it.
	nnLo, nnHi := 0, n-1
	for nnLo < n && o.key[nnLo].IsNull() {
		nnLo++
	}
	for nnHi >= 0 && o.key[nnHi].IsNull() {
		nnHi--
	}
	// before reports whether value v lies before target t in the
	// window's order.
	before := func(v, t types.Datum) bool {
		c := eval.Compare(v, t)
		if desc {
			return c > 0
		}
		return c < 0
	}
	for i := range n {
		if o.key[i].IsNull() {
			if f.Start.Target != nil {
				fs.lo[i] = fs.p.first[i]
			}
			if f.End.Target != nil {
				fs.hi[i] = fs.p.last[i]
			}
			continue
		}
		if f.Start.Target != nil {
			t, edge, err := o.rangeTarget(f.Start, i, true, desc)
			if err != nil {
				return err
			}
			// The first non-NULL row not before the target.
			fs.lo[i] = firstRow(nnLo, nnHi, edge, func(m int) bool { return !before(o.key[m], t) })
		}
		if f.End.Target != nil {
			t, edge, err := o.rangeTarget(f.End, i, false, desc)
			if err != nil {
				return err
			}
			// The last non-NULL row not after the target.
			fs.hi[i] = firstRow(nnLo, nnHi, edge, func(m int) bool { return before(t, o.key[m]) }) - 1
		}
	}
	return nil
}

// Where a RANGE bound's target lies when it is no value of the key's type.
const (
	withinValues = iota
	beyondStart  // before every value, in the window's order
	beyondEnd    // after every value
)

// firstRow is the first of rows lo..hi for which ok holds (hi+1 when
// none does; ok is false, then true, over the rows), a target beyond
// either end of the values (edge) answered without a search.
func firstRow(lo, hi, edge int, ok func(m int) bool) int {
	switch edge {
	case beyondStart:
		return lo
	case beyondEnd:
		return hi + 1
	}
	return lo + sort.Search(hi+1-lo, func(x int) bool { return ok(lo + x) })
}

// rangeTarget evaluates bound b's target for row i (b starts the frame
// when start). As PostgreSQL's in_range functions do, a key moved past
// the range of its type lies beyond every value in the bound's direction,
// and an infinite key moved an infinite offset toward the other infinity
// (where the sum is NaN) puts every value in range: the bound is the
// infinity at the frame's outer side.
func (o *windowOp) rangeTarget(b planner.FrameBound, i int, start, desc bool) (types.Datum, int, error) {
	outward := beyondEnd
	if b.Kind == planner.Preceding {
		outward = beyondStart
	}
	t, err := eval.Eval(o.env, b.Target, o.rows[i])
	if err != nil {
		// 22008: datetime field overflow.
		if pgerror.HasCode(err, pgerror.NumericValueOutOfRange) || pgerror.HasCode(err, "22008") {
			return t, outward, nil
		}
		return t, 0, err
	}
	if isNaN(t) && !isNaN(o.key[i]) {
		// Beyond every value but NaN, which sorts after them all.
		return infinity(t, start != desc), withinValues, nil
	}
	return t, withinValues, nil
}

// isNaN reports whether d is a float or numeric NaN.
func isNaN(d types.Datum) bool {
	switch d.Kind {
	case types.KindFloat:
		return math.IsNaN(d.F)
	case types.KindDecimal:
		return d.S == "NaN"
	}
	return false
}

// infinity is the infinity of d's kind, negative when neg.
func infinity(d types.Datum, neg bool) types.Datum {
	if d.Kind == types.KindFloat {
		if neg {
			return types.NewFloat(math.Inf(-1))
		}
		return types.NewFloat(math.Inf(1))
	}
	if neg {
		return types.Datum{Kind: types.KindDecimal, S: "-Infinity"}
	}
	return types.Datum{Kind: types.KindDecimal, S: "Infinity"}
}

// zeroLike is the zero of d's kind, to tell a negative offset.
func zeroLike(d types.Datum) types.Datum {
	switch d.Kind {
	case types.KindFloat:
		return types.NewFloat(0)
	case types.KindDecimal:
		return types.Datum{Kind: types.KindDecimal, S: "0"}
	case types.KindInterval:
		return types.NewInterval(types.IntervalValue{})
	}
	return types.NewInt(0)
}
