package planner

import (
	"strconv"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
	"vitess.io/vitess/go/vt/sqlparser"
)

// WindowFunc is one window function call of a Window node: Func over
// Args (expressions over the Window's input row) in Frame.
//
// Func is a ranking function (row_number, rank, dense_rank, percent_rank,
// cume_dist, ntile), an offset function (lag, lead, first_value,
// last_value, nth_value) or an aggregate (count, count_star, sum, avg,
// min, max).
type WindowFunc struct {
	Func  string
	Args  []Expr
	Frame Frame
	T     types.T
}

// Frame is the set of rows of its partition a window function reads for
// a row: from Start to End, counted in rows (ROWS) or in peer groups of
// equal ORDER BY values (RANGE, whose bounds are unbounded or the
// current row).
type Frame struct {
	Rows       bool
	Start, End FrameBound
}

// FrameBoundKind is where a frame starts or ends.
type FrameBoundKind uint8

const (
	UnboundedPreceding FrameBoundKind = iota
	Preceding                         // Offset rows before (ROWS)
	CurrentRow
	Following // Offset rows after (ROWS)
	UnboundedFollowing
)

// FrameBound is one end of a frame.
type FrameBound struct {
	Kind   FrameBoundKind
	Offset Expr // for Preceding and Following: a non-negative integer (ROWS) or the offset value (RANGE)
	// Target, for a RANGE offset, is the window's one ORDER BY key moved
	// by Offset toward the bound (key - offset for PRECEDING in ascending
	// order): the frame reaches the rows whose key is on this side of it.
	Target Expr
}

// Window computes window functions: its input arrives sorted by
// Partition then Order (a Sort below it, unless the input is in that
// order), and each output row is the input row followed by one value per
// function in Funcs.
type Window struct {
	Input     Node
	Partition []Expr
	Order     []SortKey
	Funcs     []WindowFunc
	Cols      []Column
}

func (n *Window) Columns() []Column { return n.Cols }
func (n *Window) Children() []Node  { return []Node{n.Input} }

// winCollector gathers a query's window function calls while its select
// list and ORDER BY are bound.
type winCollector struct {
	calls []winCall
	named map[string]*sqlparser.WindowSpecification // the WINDOW clause
}

type winCall struct {
	fn        WindowFunc
	partition []Expr
	order     []SortKey
}

// winRef stands for window call i until the Window nodes are planned and
// it becomes a ColRef into their output.
type winRef struct {
	i int
	t types.T
}

func (e *winRef) Type() types.T  { return e.t }
func (e *winRef) String() string { return "win#" + itoa(e.i) }

// windowCall binds a window function call: fn's arguments are bound
// already; over says its window.
func (b *binder) windowCall(s *scope, fn WindowFunc, over *sqlparser.OverClause) (Expr, error) {
	w := s.win
	if w == nil {
		switch ctx := s.aggContext; ctx {
		case "aggregate function calls":
			return nil, pgerror.New(pgerror.GroupingError, "aggregate function calls cannot contain window function calls")
		case "":
			return nil, pgerror.New(pgerror.WindowingError, "window functions are not allowed here")
		default:
			return nil, pgerror.Newf(pgerror.WindowingError, "window functions are not allowed in %s", ctx)
		}
	}
	spec := over.WindowSpec
	if !over.WindowName.IsEmpty() {
		named, ok := w.named[over.WindowName.Lowered()]
		if !ok {
			return nil, pgerror.Newf(pgerror.UndefinedObject, "window %q does not exist", over.WindowName.String())
		}
		spec = named
	}
	call := winCall{fn: fn}
	if spec != nil {
		if !spec.Name.IsEmpty() {
			base, ok := w.named[spec.Name.Lowered()]
			if !ok {
				return nil, pgerror.Newf(pgerror.UndefinedObject, "window %q does not exist", spec.Name.String())
			}
			merged := *spec
			merged.PartitionClause = base.PartitionClause
			if len(merged.OrderClause) == 0 {
				merged.OrderClause = base.OrderClause
			}
			if merged.FrameClause == nil {
				merged.FrameClause = base.FrameClause
			}
			spec = &merged
		}
		s.win = nil // no window functions inside a window's definition
		defer func() { s.win = w }()
		for _, p := range spec.PartitionClause {
			x, err := b.expr(p, s)
			if err != nil {
				return nil, err
			}
			call.partition = append(call.partition, x)
		}
		for _, o := range spec.OrderClause {
			x, err := b.expr(o.Expr, s)
			if err != nil {
				return nil, err
			}
			desc := o.Direction == sqlparser.DescOrder
			call.order = append(call.order, SortKey{Expr: x, Desc: desc, NullsFirst: desc})
		}
		frame, err := b.frame(spec.FrameClause, call.order, s)
		if err != nil {
			return nil, err
		}
		call.fn.Frame = frame
	} else {
		call.fn.Frame = Frame{Start: FrameBound{Kind: UnboundedPreceding}, End: FrameBound{Kind: CurrentRow}}
	}
	w.calls = append(w.calls, call)
	return &winRef{i: len(w.calls) - 1, t: fn.T}, nil
}

// frame binds a frame clause; without one, a window's frame runs from
// the partition's start to the current row's last peer (the whole
// partition when there is no ORDER BY: every row is a peer).
func (b *binder) frame(fc *sqlparser.FrameClause, order []SortKey, s *scope) (Frame, error) {
	f := Frame{Start: FrameBound{Kind: UnboundedPreceding}, End: FrameBound{Kind: CurrentRow}}
	if fc == nil {
		return f, nil
	}
	f.Rows = fc.Unit == sqlparser.FrameRowsType
	bound := func(p *sqlparser.FramePoint, start bool) (FrameBound, error) {
		if p == nil {
			return FrameBound{Kind: CurrentRow}, nil
		}
		var fb FrameBound
		switch p.Type {
		case sqlparser.UnboundedPrecedingType:
			fb.Kind = UnboundedPreceding
		case sqlparser.UnboundedFollowingType:
			fb.Kind = UnboundedFollowing
		case sqlparser.CurrentRowType:
			fb.Kind = CurrentRow
		case sqlparser.ExprPrecedingType, sqlparser.ExprFollowingType:
			fb.Kind = Preceding
			if p.Type == sqlparser.ExprFollowingType {
				fb.Kind = Following
			}
			offset := p.Expr
			if lit, ok := offset.(*sqlparser.Literal); ok && lit.Type == sqlparser.IntVal {
				if v, err := strconv.ParseInt(lit.Val, 10, 64); err == nil && v >= parse.FrameOffsetBase && v-parse.FrameOffsetBase < int64(len(b.frameOffsets)) {
					offset = b.frameOffsets[v-parse.FrameOffsetBase] // hoisted by the dialect layer
				}
			}
			x, err := b.expr(offset, s)
			if err != nil {
				return fb, err
			}
			if !f.Rows {
				if !isConstant(x) {
					return fb, pgerror.New(pgerror.WindowingError, "argument of RANGE must not contain variables")
				}
				return b.rangeBound(fb, x, order, start)
			}
			if x, err = assign(x, tInt8); err != nil {
				return fb, err
			}
			if !isConstant(x) {
				return fb, pgerror.New(pgerror.WindowingError, "argument of ROWS must not contain variables")
			}
			fb.Offset = x
		}
		if start && fb.Kind == UnboundedFollowing {
			return fb, pgerror.New(pgerror.WindowingError, "frame start cannot be UNBOUNDED FOLLOWING")
		}
		if !start && fb.Kind == UnboundedPreceding {
			return fb, pgerror.New(pgerror.WindowingError, "frame end cannot be UNBOUNDED PRECEDING")
		}
		return fb, nil
	}
	var err error
	if f.Start, err = bound(fc.Start, true); err != nil {
		return f, err
	}
	if fc.End == nil {
		f.End = FrameBound{Kind: CurrentRow}
	} else if f.End, err = bound(fc.End, false); err != nil {
		return f, err
	}
	if f.Start.Kind == CurrentRow && f.End.Kind == Preceding {
		return f, pgerror.New(pgerror.WindowingError, "frame starting from current row cannot have preceding rows")
	}
	if f.Start.Kind == Following && (f.End.Kind == Preceding || f.End.Kind == CurrentRow) {
		return f, pgerror.New(pgerror.WindowingError, "frame starting from following row cannot have preceding rows")
	}
	return f, nil
}

// windowExpr binds the window function calls vitess has nodes for; ok is
// false for other expressions.
func (b *binder) windowExpr(e sqlparser.Expr, s *scope) (x Expr, ok bool, err error) {
	args := func(es ...sqlparser.Expr) ([]Expr, error) {
		w := s.win
		s.win = nil
		defer func() { s.win = w }()
		var out []Expr
		for _, a := range es {
			if a == nil {
				continue
			}
			x, err := b.expr(a, s)
			if err != nil {
				return nil, err
			}
			out = append(out, x)
		}
		return out, nil
	}
	switch e := e.(type) {
	case *sqlparser.ArgumentLessWindowExpr:
		name := map[sqlparser.ArgumentLessWindowExprType]string{
			sqlparser.CumeDistExprType: "cume_dist", sqlparser.DenseRankExprType: "dense_rank",
			sqlparser.PercentRankExprType: "percent_rank", sqlparser.RankExprType: "rank",
			sqlparser.RowNumberExprType: "row_number"}[e.Type]
		t := tInt8
		if name == "cume_dist" || name == "percent_rank" {
			t = tFloat8
		}
		x, err := b.windowCall(s, WindowFunc{Func: name, T: t}, e.OverClause)
		return x, true, err
	case *sqlparser.NtileExpr:
		a, err := args(e.N)
		if err != nil {
			return nil, true, err
		}
		if a[0], err = assign(a[0], tInt4); err != nil {
			return nil, true, err
		}
		x, err := b.windowCall(s, WindowFunc{Func: "ntile", Args: a, T: tInt4}, e.OverClause)
		return x, true, err
	case *sqlparser.LagLeadExpr:
		a, err := args(e.Expr, e.N, e.Default)
		if err != nil {
			return nil, true, err
		}
		name := "lag"
		if e.Type == sqlparser.LeadExprType {
			name = "lead"
		}
		if len(a) > 1 {
			if a[1], err = assign(a[1], tInt4); err != nil {
				return nil, true, err
			}
		}
		t := a[0].Type()
		if t.Family == types.Unknown {
			t = tText
		}
		if len(a) > 2 {
			if e.N == nil {
				return nil, true, pgerror.New(pgerror.SyntaxError, "lag/lead default needs an offset")
			}
			ct := commonType(t, a[2].Type())
			if ct.Family == types.Unknown {
				return nil, true, mismatch("lag/lead", t, a[2].Type())
			}
			t = ct
			if a[2], err = coerceResult(a[2], t); err != nil {
				return nil, true, err
			}
		}
		if a[0], err = coerceResult(a[0], t); err != nil {
			return nil, true, err
		}
		x, err := b.windowCall(s, WindowFunc{Func: name, Args: a, T: t}, e.OverClause)
		return x, true, err
	case *sqlparser.FirstOrLastValueExpr:
		a, err := args(e.Expr)
		if err != nil {
			return nil, true, err
		}
		name := "first_value"
		if e.Type == sqlparser.LastValueExprType {
			name = "last_value"
		}
		x, err := b.windowCall(s, WindowFunc{Func: name, Args: a, T: a[0].Type()}, e.OverClause)
		return x, true, err
	case *sqlparser.NTHValueExpr:
		a, err := args(e.Expr, e.N)
		if err != nil {
			return nil, true, err
		}
		if a[1], err = assign(a[1], tInt4); err != nil {
			return nil, true, err
		}
		x, err := b.windowCall(s, WindowFunc{Func: "nth_value", Args: a, T: a[0].Type()}, e.OverClause)
		return x, true, err
	}
	var call AggCall
	var raw []sqlparser.Expr
	var over *sqlparser.OverClause
	distinct := false
	switch e := e.(type) {
	case *sqlparser.CountStar:
		call, over = AggCall{Func: "count_star"}, e.OverClause
	case *sqlparser.Count:
		call, raw, over, distinct = AggCall{Func: "count"}, e.Args, e.OverClause, e.Distinct
	case *sqlparser.Sum:
		call, raw, over, distinct = AggCall{Func: "sum"}, []sqlparser.Expr{e.Arg}, e.OverClause, e.Distinct
	case *sqlparser.Avg:
		call, raw, over, distinct = AggCall{Func: "avg"}, []sqlparser.Expr{e.Arg}, e.OverClause, e.Distinct
	case *sqlparser.Min:
		call, raw, over, distinct = AggCall{Func: "min"}, []sqlparser.Expr{e.Arg}, e.OverClause, e.Distinct
	case *sqlparser.Max:
		call, raw, over, distinct = AggCall{Func: "max"}, []sqlparser.Expr{e.Arg}, e.OverClause, e.Distinct
	default:
		return nil, false, nil
	}
	if over == nil {
		return nil, false, nil
	}
	if distinct {
		return nil, true, pgerror.New(pgerror.FeatureNotSupported, "DISTINCT is not implemented for window functions")
	}
	var err2 error
	if call.Args, err2 = args(raw...); err2 != nil {
		return nil, true, err2
	}
	if call.Func == "count" && len(call.Args) == 0 {
		call.Func = "count_star"
	}
	if err := aggType(&call); err != nil {
		return nil, true, err
	}
	x, err = b.windowCall(s, WindowFunc{Func: call.Func, Args: call.Args, T: call.T}, over)
	return x, true, err
}

// windows plans the Window nodes over input for the calls w collected,
// one per distinct window (sorted below unless input is in its order), and
// returns the node and the output column of each call.
func (b *binder) windows(input Node, w *winCollector) (Node, []int) {
	out := make([]int, len(w.calls))
	done := make([]bool, len(w.calls))
	for i := range w.calls {
		if done[i] {
			continue
		}
		c := w.calls[i]
		width := len(input.Columns())
		win := &Window{Partition: c.partition, Order: c.order}
		win.Cols = append([]Column{}, input.Columns()...)
		key := windowKey(c)
		for j := i; j < len(w.calls); j++ {
			if done[j] || windowKey(w.calls[j]) != key {
				continue
			}
			done[j] = true
			out[j] = width + len(win.Funcs)
			win.Funcs = append(win.Funcs, w.calls[j].fn)
			win.Cols = append(win.Cols, Column{Name: w.calls[j].fn.Func, T: w.calls[j].fn.T})
		}
		var keys []SortKey
		for _, p := range c.partition {
			keys = append(keys, SortKey{Expr: p})
		}
		keys = append(keys, c.order...)
		win.Input = input
		if len(keys) > 0 && !(b.enabled("index_order") && providesOrder(input, keys)) {
			win.Input = &Sort{Input: input, Keys: keys}
		}
		input = win
	}
	return input, out
}

func windowKey(c winCall) string {
	k := "p"
	for _, p := range c.partition {
		k += "|" + p.String()
	}
	k += "o"
	for _, o := range c.order {
		k += "|" + o.Expr.String()
		if o.Desc {
			k += " desc"
		}
	}
	return k
}

// rewriteWindows applies fn (the grouping rewrite) to the expressions of
// the collected calls.
func (w *winCollector) rewrite(fn func(Expr) (Expr, error)) error {
	var err error
	m := func(e Expr) Expr {
		if err != nil || e == nil {
			return e
		}
		var x Expr
		x, err = fn(e)
		return x
	}
	for i := range w.calls {
		c := &w.calls[i]
		for k := range c.fn.Args {
			c.fn.Args[k] = m(c.fn.Args[k])
		}
		for k := range c.partition {
			c.partition[k] = m(c.partition[k])
		}
		for k := range c.order {
			c.order[k].Expr = m(c.order[k].Expr)
		}
		c.fn.Frame.Start.Target = m(c.fn.Frame.Start.Target)
		c.fn.Frame.End.Target = m(c.fn.Frame.End.Target)
	}
	return err
}

// exprs returns every expression the calls hold.
func (w *winCollector) exprs() []Expr {
	var out []Expr
	for _, c := range w.calls {
		out = append(out, c.fn.Args...)
		out = append(out, c.partition...)
		for _, o := range c.order {
			out = append(out, o.Expr)
		}
		for _, t := range []Expr{c.fn.Frame.Start.Target, c.fn.Frame.End.Target} {
			if t != nil {
				out = append(out, t)
			}
		}
	}
	return out
}

// replaceWinRefs turns the winRefs in e into references to the Window
// output columns cols.
func replaceWinRefs(e Expr, cols []int) Expr {
	out, _ := mapExpr(e, func(x Expr) (Expr, error) {
		if r, ok := x.(*winRef); ok {
			return &ColRef{Index: cols[r.i], T: r.t, Name: r.String()}, nil
		}
		return x, nil
	})
	return out
}

// rangeBound binds RANGE offset PRECEDING/FOLLOWING: the window must have
// one ORDER BY key of a type that offsets apply to (numbers, dates and
// times with an interval), and the bound's Target is that key moved by the
// offset toward the bound, computed with the operators PostgreSQL's
// in_range support functions use.
func (b *binder) rangeBound(fb FrameBound, off Expr, order []SortKey, start bool) (FrameBound, error) {
	// NULLS FIRST/LAST reaches the binder as an IS NULL key before the
	// column's (the dialect layer's spelling): it is still one column.
	if len(order) == 2 {
		if isNull, ok := order[0].Expr.(*IsNull); ok && isNull.X.String() == order[1].Expr.String() {
			order = order[1:]
		}
	}
	if len(order) != 1 {
		return fb, pgerror.New(pgerror.WindowingError, "RANGE with offset PRECEDING/FOLLOWING requires exactly one ORDER BY column")
	}
	key := order[0]
	kt := key.Expr.Type()
	var err error
	switch {
	case isNumeric(kt.Family):
		if off.Type().Family == types.Unknown {
			if off, err = coerce(off, kt); err != nil {
				return fb, err
			}
		}
		if !isNumeric(off.Type().Family) {
			return fb, pgerror.Newf(pgerror.FeatureNotSupported, "RANGE with offset PRECEDING/FOLLOWING is not supported for column type %s and offset type %s", kt, off.Type())
		}
	case kt.Family == types.Date || kt.Family == types.Timestamp || kt.Family == types.TimestampTZ || kt.Family == types.Time || kt.Family == types.Interval:
		if off, err = coerce(off, types.T{Family: types.Interval}); err != nil {
			return fb, pgerror.Newf(pgerror.FeatureNotSupported, "RANGE with offset PRECEDING/FOLLOWING is not supported for column type %s and offset type %s", kt, off.Type())
		}
	default:
		return fb, pgerror.Newf(pgerror.FeatureNotSupported, "RANGE with offset PRECEDING/FOLLOWING is not supported for column type %s", kt)
	}
	fb.Offset = off
	// Toward the partition's start is "-" in ascending order.
	op := "+"
	if (fb.Kind == Preceding) != key.Desc {
		op = "-"
	}
	t, err := arith(op, key.Expr, off)
	if err != nil {
		return fb, err
	}
	fb.Target = t
	return fb, nil
}
