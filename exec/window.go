package exec

import (
	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
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

// compute fills vals for the rows of the current partition.
func (o *windowOp) compute() error {
	n := len(o.rows)
	// Peer groups: rows with equal ORDER BY values (all rows without one).
	first, last := make([]int, n), make([]int, n)
	group := make([]int, n) // 1-based peer group number
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
			first[i], group[i] = first[i-1], group[i-1]
		} else {
			first[i] = i
			group[i] = 1
			if i > 0 {
				group[i] = group[i-1] + 1
			}
		}
		prev = keys
	}
	for i := n - 1; i >= 0; i-- {
		if i+1 < n && first[i+1] == first[i] {
			last[i] = last[i+1]
		} else {
			last[i] = i
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
				vals[i] = ranking(fn.Func, i, n, first[i], last[i], group[i])
			}
		case "ntile":
			err = o.ntile(fn, vals)
		case "lag", "lead":
			err = o.lagLead(fn, vals)
		default:
			err = o.framed(fn, vals, first, last)
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

// frameOffset evaluates a ROWS offset.
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
		return 1 << 40, nil
	}
	return int(d.I), nil
}

// bounds returns row i's frame [lo, hi] (empty when lo > hi).
func bounds(f planner.Frame, i, n, first, last, startOff, endOff int) (lo, hi int) {
	at := func(b planner.FrameBound, off int, start bool) int {
		switch b.Kind {
		case planner.UnboundedPreceding:
			return 0
		case planner.UnboundedFollowing:
			return n - 1
		case planner.Preceding:
			return i - off
		case planner.Following:
			return i + off
		}
		if f.Rows {
			return i
		}
		if start {
			return first
		}
		return last
	}
	lo, hi = at(f.Start, startOff, true), at(f.End, endOff, false)
	return max(lo, 0), min(hi, n-1)
}

// framed computes the functions that read a frame: first_value,
// last_value, nth_value and the aggregates. An aggregate whose frames
// all start at the partition's start grows one state row by row;
// otherwise each row's frame is aggregated afresh.
func (o *windowOp) framed(fn *planner.WindowFunc, vals []types.Datum, first, last []int) error {
	n := len(o.rows)
	so, err := o.frameOffset(fn.Frame.Start, true)
	if err != nil {
		return err
	}
	eo, err := o.frameOffset(fn.Frame.End, false)
	if err != nil {
		return err
	}
	bounds := bounds
	if fn.Frame.Start.Target != nil || fn.Frame.End.Target != nil {
		rlo, rhi, err := o.rangeFrames(fn.Frame, first, last)
		if err != nil {
			return err
		}
		bounds = func(f planner.Frame, i, n, first, last, so, eo int) (int, int) {
			return rlo[i], rhi[i]
		}
	}
	switch fn.Func {
	case "first_value", "last_value", "nth_value":
		for i := range vals {
			lo, hi := bounds(fn.Frame, i, n, first[i], last[i], so, eo)
			j := -1
			switch fn.Func {
			case "first_value":
				j = lo
			case "last_value":
				j = hi
			default:
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
				j = lo + int(d.I) - 1
			}
			if lo > hi || j < lo || j > hi {
				vals[i] = types.Null
				continue
			}
			if vals[i], err = eval.Eval(o.env, fn.Args[0], o.rows[j]); err != nil {
				return err
			}
		}
		return nil
	}
	args := make([][]types.Datum, n)
	for i, row := range o.rows {
		if args[i], err = evalAll(o.env, fn.Args, row); err != nil {
			return err
		}
	}
	call := &planner.AggCall{Func: fn.Func, Args: fn.Args, T: fn.T}
	result := func(st aggState) (types.Datum, error) {
		d, err := st.result()
		if err != nil {
			return d, err
		}
		return finalizeAgg(d, fn.T)
	}
	if fn.Frame.Start.Kind == planner.UnboundedPreceding {
		st, err := newAggState(call, o.env.MaxValueSize)
		if err != nil {
			return err
		}
		added := 0
		for i := range vals {
			_, hi := bounds(fn.Frame, i, n, first[i], last[i], so, eo)
			for ; added <= hi; added++ {
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
		lo, hi := bounds(fn.Frame, i, n, first[i], last[i], so, eo)
		st, err := newAggState(call, o.env.MaxValueSize)
		if err != nil {
			return err
		}
		for j := lo; j <= hi; j++ {
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

func (o *windowOp) Close() error {
	o.mem.reset()
	return o.input.Close()
}

// rangeFrames computes every row's frame for RANGE with an offset: a
// bound with a Target reaches the rows whose ORDER BY value is on the
// frame's side of the Target (binary search over the partition's values,
// which are sorted); a NULL value's frame is its peers, and the rows with
// NULL values are outside every other row's offset range.
func (o *windowOp) rangeFrames(f planner.Frame, first, last []int) (lo, hi []int, err error) {
	n := len(o.rows)
	lo, hi = make([]int, n), make([]int, n)
	for _, b := range []planner.FrameBound{f.Start, f.End} {
		if b.Target == nil {
			continue
		}
		d, err := eval.Eval(o.env, b.Offset, nil)
		if err != nil {
			return nil, nil, err
		}
		if d.IsNull() {
			return nil, nil, pgerror.New(pgerror.NullValueNotAllowed, "frame starting offset must not be null")
		}
		if eval.Compare(d, zeroLike(d)) < 0 {
			return nil, nil, pgerror.New(pgerror.InvalidPrecedingFollowing, "invalid preceding or following size in window function")
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
	for i := 0; i < n; i++ {
		lo[i], hi[i] = bounds(f, i, n, first[i], last[i], 0, 0)
		if o.key[i].IsNull() {
			if f.Start.Target != nil {
				lo[i] = first[i]
			}
			if f.End.Target != nil {
				hi[i] = last[i]
			}
			continue
		}
		if f.Start.Target != nil {
			t, err := eval.Eval(o.env, f.Start.Target, o.rows[i])
			if err != nil {
				return nil, nil, err
			}
			// The first non-NULL row not before the target.
			j := nnLo
			for k := nnHi + 1; j < k; {
				m := (j + k) / 2
				if before(o.key[m], t) {
					j = m + 1
				} else {
					k = m
				}
			}
			lo[i] = j
		}
		if f.End.Target != nil {
			t, err := eval.Eval(o.env, f.End.Target, o.rows[i])
			if err != nil {
				return nil, nil, err
			}
			// The last non-NULL row not after the target.
			j := nnLo
			for k := nnHi + 1; j < k; {
				m := (j + k) / 2
				if !before(t, o.key[m]) {
					j = m + 1
				} else {
					k = m
				}
			}
			hi[i] = j - 1
		}
	}
	return lo, hi, nil
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
