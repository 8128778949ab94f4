package planner

import (
	"strconv"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
	"vitess.io/vitess/go/vt/sqlparser"
)

// WindowFunc is one window function call of a Window node: Func over
// Args (expressions over the Window's input row) in Frame. An aggregate's
// Filter, when set, keeps the rows of the frame it is true for.
//
// Func is a ranking function (row_number, rank, dense_rank, percent_rank,
// cume_dist, ntile), an offset function (lag, lead, first_value,
// last_value, nth_value) or an aggregate (count_star and the names
// AggCall takes).
type WindowFunc struct {
	Func   string
	Args   []Expr
	Filter Expr
	Frame  Frame
	T      types.T
	// User is set on a user-defined aggregate over a window (useragg.go).
	User *UserAgg
}

// Frame is the set of rows of its partition a window function reads for
// a row: from Start to End, counted in rows (ROWS), in peer groups of
// equal ORDER BY values (GROUPS) or by the ORDER BY value (RANGE), less
// the rows Exclude names.
type Frame struct {
	Unit       FrameUnit
	Start, End FrameBound
	Exclude    FrameExclusion
}

// isDefault reports whether f is the frame of a window without a frame
// clause.
func (f Frame) isDefault() bool {
	return f.Unit == parse.FrameRange && f.Start.Kind == UnboundedPreceding && f.End.Kind == CurrentRow && f.Exclude == parse.ExcludeNoOthers
}

// String spells f as a frame clause, as EXPLAIN shows it.
func (f Frame) String() string {
	s := map[FrameUnit]string{parse.FrameRows: "rows", parse.FrameRange: "range", parse.FrameGroups: "groups"}[f.Unit]
	s += " between " + f.Start.String() + " and " + f.End.String()
	if f.Exclude != parse.ExcludeNoOthers {
		s += " exclude " + map[FrameExclusion]string{parse.ExcludeCurrentRow: "current row", parse.ExcludeGroup: "group", parse.ExcludeTies: "ties"}[f.Exclude]
	}
	return s
}

func (b FrameBound) String() string {
	switch b.Kind {
	case UnboundedPreceding:
		return "unbounded preceding"
	case UnboundedFollowing:
		return "unbounded following"
	case CurrentRow:
		return "current row"
	case Preceding:
		return b.Offset.String() + " preceding"
	}
	return b.Offset.String() + " following"
}

// windowFrameReader reports whether window function fn reads its frame
// (ranking functions, lag and lead do not).
func windowFrameReader(fn string) bool {
	switch fn {
	case "row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile", "lag", "lead":
		return false
	}
	return true
}

// The frame units and exclusions are the dialect layer's.
type (
	FrameUnit      = parse.FrameUnit
	FrameExclusion = parse.FrameExclusion
)

// FrameBoundKind is where a frame starts or ends.
type FrameBoundKind uint8

const (
	UnboundedPreceding FrameBoundKind = iota
	Preceding                         // Offset rows, groups or values before
	CurrentRow
	Following // Offset rows, groups or values after
	UnboundedFollowing
)

var boundKinds = map[parse.FrameBoundKind]FrameBoundKind{
	parse.BoundUnboundedPreceding: UnboundedPreceding, parse.BoundPreceding: Preceding,
	parse.BoundCurrentRow: CurrentRow, parse.BoundFollowing: Following,
	parse.BoundUnboundedFollowing: UnboundedFollowing,
}

// FrameBound is one end of a frame.
type FrameBound struct {
	Kind   FrameBoundKind
	Offset Expr // for Preceding and Following: a non-negative int8 (ROWS, GROUPS) or the offset value (RANGE)
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
	named map[string]*sqlparser.WindowSpecification // the WINDOW clause, each resolved
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

// containsWinRef reports whether x holds a window function call.
func containsWinRef(x Expr) bool {
	found := false
	walkExpr(x, func(e Expr) bool {
		_, found = e.(*winRef)
		return !found
	})
	return found
}

// define adds the WINDOW clause's windows, in order: each may build on
// one defined before it.
func (w *winCollector) define(defs []*sqlparser.NamedWindow) error {
	for _, nw := range defs {
		for _, d := range nw.Windows {
			name := d.Name.Lowered()
			if _, dup := w.named[name]; dup {
				return pgerror.Newf(pgerror.WindowingError, "window %q is already defined", d.Name.String())
			}
			spec, err := w.resolve(d.WindowSpec, false)
			if err != nil {
				return err
			}
			w.named[name] = spec
		}
	}
	return nil
}

// resolve returns spec with the window it names, if any, merged in as
// PostgreSQL allows: the named window's PARTITION BY, its ORDER BY when
// spec has none, and never its frame. inOver is set for OVER (name ...),
// where PostgreSQL hints at OVER name.
func (w *winCollector) resolve(spec *sqlparser.WindowSpecification, inOver bool) (*sqlparser.WindowSpecification, error) {
	if spec.Name.IsEmpty() {
		return spec, nil
	}
	name := spec.Name.String()
	base, ok := w.named[spec.Name.Lowered()]
	if !ok {
		return nil, pgerror.Newf(pgerror.UndefinedObject, "window %q does not exist", name)
	}
	if len(spec.PartitionClause) > 0 {
		return nil, pgerror.Newf(pgerror.WindowingError, "cannot override PARTITION BY clause of window %q", name)
	}
	if len(spec.OrderClause) > 0 && len(base.OrderClause) > 0 {
		return nil, pgerror.Newf(pgerror.WindowingError, "cannot override ORDER BY clause of window %q", name)
	}
	if base.FrameClause != nil {
		e := pgerror.Newf(pgerror.WindowingError, "cannot copy window %q because it has a frame clause", name)
		if inOver && len(spec.OrderClause) == 0 && spec.FrameClause == nil {
			e.Hint = "Omit the parentheses in this OVER clause."
		}
		return nil, e
	}
	merged := *spec
	merged.Name = sqlparser.IdentifierCI{}
	merged.PartitionClause = base.PartitionClause
	if len(merged.OrderClause) == 0 {
		merged.OrderClause = base.OrderClause
	}
	return &merged, nil
}

// windowCall binds a window function call: fn's arguments are bound
// already; over says its window.
func (b *binder) windowCall(s *scope, fn WindowFunc, over *sqlparser.OverClause) (Expr, error) {
	w := s.win
	if w == nil {
		return nil, windowNotAllowed(s)
	}
	spec := over.WindowSpec
	if !over.WindowName.IsEmpty() {
		named, ok := w.named[over.WindowName.Lowered()]
		if !ok {
			return nil, pgerror.Newf(pgerror.UndefinedObject, "window %q does not exist", over.WindowName.String())
		}
		spec = named
	} else if spec != nil {
		var err error
		if spec, err = w.resolve(spec, true); err != nil {
			return nil, err
		}
	}
	call := winCall{fn: fn}
	if spec != nil {
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
	}
	var fc *sqlparser.FrameClause
	if spec != nil {
		fc = spec.FrameClause
	}
	frame, err := b.frame(fc, call.order, s)
	if err != nil {
		return nil, err
	}
	call.fn.Frame = frame
	w.calls = append(w.calls, call)
	return &winRef{i: len(w.calls) - 1, t: fn.T}, nil
}

// windowNotAllowed is PostgreSQL's error for a window function where s
// takes none.
func windowNotAllowed(s *scope) error {
	switch ctx := s.aggContext; ctx {
	case "aggregate function calls":
		return pgerror.New(pgerror.GroupingError, "aggregate function calls cannot contain window function calls")
	case "":
		return pgerror.New(pgerror.WindowingError, "window functions are not allowed here")
	default:
		return pgerror.Newf(pgerror.WindowingError, "window functions are not allowed in %s", ctx)
	}
}

// frame binds a frame clause (the dialect layer's stand-in for
// b.frames[i]); without one, a window's frame runs from the partition's
// start to the current row's last peer (the whole partition when there is
// no ORDER BY: every row is a peer).
func (b *binder) frame(fc *sqlparser.FrameClause, order []SortKey, s *scope) (Frame, error) {
	f := Frame{Start: FrameBound{Kind: UnboundedPreceding}, End: FrameBound{Kind: CurrentRow}}
	if fc == nil {
		return f, nil
	}
	pf, ok := b.standInFrame(fc)
	if !ok {
		return f, pgerror.New(pgerror.Internal, "window frame clause not read by the dialect layer")
	}
	f.Unit, f.Exclude = pf.Unit, pf.Exclude
	f.Start.Kind, f.End.Kind = boundKinds[pf.Start.Kind], boundKinds[pf.End.Kind]
	if err := checkFrameBounds(f); err != nil {
		return f, err
	}
	if f.Unit == parse.FrameGroups && len(order) == 0 {
		return f, pgerror.New(pgerror.WindowingError, "GROUPS mode requires an ORDER BY clause")
	}
	var err error
	if f.Start, err = b.frameOffset(f, f.Start, pf.Start.Offset, order, s); err != nil {
		return f, err
	}
	if f.End, err = b.frameOffset(f, f.End, pf.End.Offset, order, s); err != nil {
		return f, err
	}
	return f, nil
}

// standInFrame returns the frame fc stands in for.
func (b *binder) standInFrame(fc *sqlparser.FrameClause) (parse.WindowFrame, bool) {
	if fc.Start == nil || fc.End != nil {
		return parse.WindowFrame{}, false
	}
	lit, ok := fc.Start.Expr.(*sqlparser.Literal)
	if !ok || lit.Type != sqlparser.IntVal {
		return parse.WindowFrame{}, false
	}
	v, err := strconv.ParseInt(lit.Val, 10, 64)
	if err != nil || v < parse.FrameMarkerBase || v-parse.FrameMarkerBase >= int64(len(b.frames)) {
		return parse.WindowFrame{}, false
	}
	return b.frames[v-parse.FrameMarkerBase], true
}

// checkFrameBounds raises PostgreSQL's errors for bounds in an order no
// frame can have.
func checkFrameBounds(f Frame) error {
	switch {
	case f.Start.Kind == UnboundedFollowing:
		return pgerror.New(pgerror.WindowingError, "frame start cannot be UNBOUNDED FOLLOWING")
	case f.End.Kind == UnboundedPreceding:
		return pgerror.New(pgerror.WindowingError, "frame end cannot be UNBOUNDED PRECEDING")
	case f.Start.Kind == CurrentRow && f.End.Kind == Preceding:
		return pgerror.New(pgerror.WindowingError, "frame starting from current row cannot have preceding rows")
	case f.Start.Kind == Following && (f.End.Kind == Preceding || f.End.Kind == CurrentRow):
		return pgerror.New(pgerror.WindowingError, "frame starting from following row cannot have preceding rows")
	}
	return nil
}

// frameOffset binds the offset of a PRECEDING or FOLLOWING bound:
// ROWS and GROUPS count with an int8; RANGE moves the ORDER BY value.
func (b *binder) frameOffset(f Frame, fb FrameBound, offset sqlparser.Expr, order []SortKey, s *scope) (FrameBound, error) {
	if offset == nil {
		return fb, nil
	}
	x, err := b.expr(offset, s)
	if err != nil {
		return fb, err
	}
	unit := map[FrameUnit]string{parse.FrameRows: "ROWS", parse.FrameRange: "RANGE", parse.FrameGroups: "GROUPS"}[f.Unit]
	if hasVariables(x) {
		return fb, pgerror.Newf(pgerror.InvalidColumnReference, "argument of %s must not contain variables", unit)
	}
	if f.Unit == parse.FrameRange {
		return b.rangeBound(fb, x, order)
	}
	if x, err = assign(x, tInt8); err != nil {
		return fb, err
	}
	fb.Offset = x
	return fb, nil
}

// hasVariables reports whether x reads the current query level's rows
// (a frame offset may not; subqueries and outer references are fine).
func hasVariables(x Expr) bool {
	found := false
	walkExpr(x, func(e Expr) bool {
		if c, ok := e.(*ColRef); ok && c.Outer == 0 {
			found = true
		}
		return !found
	})
	return found
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
		c.fn.Filter = m(c.fn.Filter)
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
		for _, t := range []Expr{c.fn.Filter, c.fn.Frame.Start.Target, c.fn.Frame.End.Target} {
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
// one ORDER BY key of a type that offsets apply to, with an offset of a
// type PostgreSQL has an in_range support function for (integers by
// integers, floats by float8, numeric by numeric, dates and times by
// interval), and the bound's Target is that key moved by the offset
// toward the bound.
func (b *binder) rangeBound(fb FrameBound, off Expr, order []SortKey) (FrameBound, error) {
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
	var offType types.T
	switch f := off.Type().Family; {
	case isInteger(kt.Family):
		offType = tInt8
		if isInteger(f) {
			offType = off.Type()
		}
	case isFloat(kt.Family):
		offType = tFloat8
	case kt.Family == types.Numeric:
		offType = types.T{Family: types.Numeric}
	case kt.Family == types.Date || kt.Family == types.Timestamp || kt.Family == types.TimestampTZ || kt.Family == types.Time || kt.Family == types.Interval:
		offType = tInterval
	default:
		return fb, pgerror.Newf(pgerror.FeatureNotSupported, "RANGE with offset PRECEDING/FOLLOWING is not supported for column type %s", kt)
	}
	if !rangeOffsetCoerces(off.Type(), offType) {
		return fb, pgerror.Newf(pgerror.FeatureNotSupported, "RANGE with offset PRECEDING/FOLLOWING is not supported for column type %s and offset type %s", kt, off.Type())
	}
	off, err := coerce(off, offType)
	if err != nil {
		return fb, err
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

// rangeOffsetCoerces reports whether an offset of type from converts to
// the in_range offset type to implicitly.
func rangeOffsetCoerces(from, to types.T) bool {
	switch f := from.Family; {
	case f == types.Unknown || f == to.Family:
		return true
	case isInteger(to.Family):
		return isInteger(f)
	case to.Family == types.Float8:
		return isNumeric(f)
	case to.Family == types.Numeric:
		return isInteger(f)
	}
	return false
}

// windowExpr binds the dialect layer's stand-in for a window function
// call, first_value(MarkerWindow('name', args...)) OVER ... (parse's
// window.go); ok is false for an expression that is no window function
// call. Vitess's own window nodes never reach here from PostgreSQL text:
// one that does is an error rather than a call with its OVER dropped.
func (b *binder) windowExpr(e sqlparser.Expr, s *scope) (x Expr, ok bool, err error) {
	if fv, isFV := e.(*sqlparser.FirstOrLastValueExpr); isFV {
		if name, args, filter, isMarker := windowMarker(fv); isMarker {
			x, err := b.windowFunc(s, name, args, filter, fv.OverClause)
			return x, true, err
		}
		return nil, true, errNativeWindow
	}
	switch e := e.(type) {
	case *sqlparser.ArgumentLessWindowExpr, *sqlparser.NtileExpr, *sqlparser.LagLeadExpr, *sqlparser.NTHValueExpr:
		return nil, true, errNativeWindow
	case *sqlparser.CountStar:
		ok = e.OverClause != nil
	case *sqlparser.Count:
		ok = e.OverClause != nil
	case *sqlparser.Sum:
		ok = e.OverClause != nil
	case *sqlparser.Avg:
		ok = e.OverClause != nil
	case *sqlparser.Min:
		ok = e.OverClause != nil
	case *sqlparser.Max:
		ok = e.OverClause != nil
	default:
		_, _, over := statAggregate(e)
		ok = over != nil
	}
	if ok {
		return nil, true, errNativeWindow
	}
	return nil, false, nil
}

var errNativeWindow = pgerror.New(pgerror.Internal, "window function call not read by the dialect layer")

// windowMarker unpacks a stand-in: the function's name, its arguments
// and its FILTER condition (nil without one).
func windowMarker(fv *sqlparser.FirstOrLastValueExpr) (name string, args []sqlparser.Expr, filter sqlparser.Expr, ok bool) {
	f, isFunc := fv.Expr.(*sqlparser.FuncExpr)
	if !isFunc || fv.Type != sqlparser.FirstValueExprType || len(f.Exprs) == 0 {
		return "", nil, nil, false
	}
	marker := f.Name.Lowered()
	lit, isLit := f.Exprs[0].(*sqlparser.Literal)
	if marker != parse.MarkerWindow && marker != parse.MarkerWindowFilter || !isLit || lit.Type != sqlparser.StrVal {
		return "", nil, nil, false
	}
	args = f.Exprs[1:]
	if marker == parse.MarkerWindowFilter {
		if len(args) == 0 {
			return "", nil, nil, false
		}
		filter, args = args[0], args[1:]
	}
	return lit.Val, args, filter, true
}

// windowFunc binds window function name over raw in the window over; an
// aggregate's filter (or nil) picks the rows of the frame it reads.
func (b *binder) windowFunc(s *scope, name string, raw []sqlparser.Expr, filter sqlparser.Expr, over *sqlparser.OverClause) (Expr, error) {
	if s.win == nil {
		return nil, windowNotAllowed(s)
	}
	args, err := b.windowArgs(s, raw...)
	if err != nil {
		return nil, err
	}
	fn := WindowFunc{Func: name, Args: args}
	aggregate := false
	switch name {
	case "row_number", "rank", "dense_rank", "percent_rank", "cume_dist":
		if len(args) != 0 {
			return nil, noFunction(name, args)
		}
		fn.T = tInt8
		if name == "percent_rank" || name == "cume_dist" {
			fn.T = tFloat8
		}
	case "ntile":
		if len(args) != 1 {
			return nil, noFunction(name, args)
		}
		if fn.Args[0], err = assign(args[0], tInt4); err != nil {
			return nil, err
		}
		fn.T = tInt4
	case "lag", "lead":
		if err := lagLeadArgs(&fn); err != nil {
			return nil, err
		}
	case "first_value", "last_value", "nth_value":
		if len(args) != 1 && name != "nth_value" || len(args) != 2 && name == "nth_value" {
			return nil, noFunction(name, args)
		}
		if name == "nth_value" {
			if fn.Args[1], err = assign(args[1], tInt4); err != nil {
				return nil, err
			}
		}
		if fn.Args[0], err = coerceResult(args[0], knownType(args[0].Type())); err != nil {
			return nil, err
		}
		fn.T = fn.Args[0].Type()
	case "count(*)":
		fn.Func, fn.T, aggregate = "count_star", tInt8, true
	default:
		if !b.isAgg(name) {
			return nil, pgerror.Newf(pgerror.WrongObjectType, "OVER specified, but %s is not a window function nor an aggregate function", name)
		}
		call := AggCall{Func: aggAlias(name), Args: args}
		if call.Func == "count" && len(args) == 0 {
			return nil, pgerror.New(pgerror.WrongObjectType, "count(*) must be used to call a parameterless aggregate function")
		}
		if !isAggregate(name) {
			call.Func = name
			if err := b.bindUserAgg(&call); err != nil { // useragg.go
				return nil, err
			}
		} else if err := aggType(&call); err != nil {
			return nil, err
		}
		fn.Func, fn.Args, fn.T, fn.User, aggregate = call.Func, call.Args, call.T, call.User, true
	}
	if filter != nil {
		if !aggregate {
			return nil, pgerror.New(pgerror.FeatureNotSupported, "FILTER is not implemented for non-aggregate window functions")
		}
		cond, err := b.windowArgs(s, filter)
		if err != nil {
			return nil, err
		}
		if fn.Filter, err = coerceBool(cond[0]); err != nil {
			return nil, err
		}
	}
	return b.windowCall(s, fn, over)
}

// windowArgs binds a window function's arguments: no window function
// may stand inside them.
func (b *binder) windowArgs(s *scope, es ...sqlparser.Expr) ([]Expr, error) {
	w := s.win
	s.win = nil
	defer func() { s.win = w }()
	out := make([]Expr, 0, len(es))
	for _, a := range es {
		x, err := b.expr(a, s)
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, nil
}

// lagLeadArgs types lag and lead (value [, offset int4 [, default]]):
// the default is converted to the value's type, both to text when
// neither has a type.
func lagLeadArgs(fn *WindowFunc) error {
	a := fn.Args
	if len(a) < 1 || len(a) > 3 {
		return noFunction(fn.Func, a)
	}
	var err error
	if len(a) > 1 {
		if a[1], err = assign(a[1], tInt4); err != nil {
			return err
		}
	}
	t := a[0].Type()
	if len(a) > 2 {
		ct := commonType(t, a[2].Type())
		if ct.Family == types.Unknown && t.Family != types.Unknown {
			return mismatch("lag/lead", t, a[2].Type())
		}
		t = knownType(ct)
		if a[2], err = coerceResult(a[2], t); err != nil {
			return err
		}
	}
	t = knownType(t)
	if a[0], err = coerceResult(a[0], t); err != nil {
		return err
	}
	fn.T = t
	return nil
}

// knownType is t, or text for a literal of no type yet.
func knownType(t types.T) types.T {
	if t.Family == types.Unknown {
		return tText
	}
	return t
}

// noFunction is PostgreSQL's 42883 for a function (a window function, an
// aggregate, ...) called with arguments it has no form for.
func noFunction(name string, args []Expr) error {
	e := pgerror.Newf(pgerror.UndefinedFunction, "function %s(%s) does not exist", name, typeList(args))
	e.Hint = "No function matches the given name and argument types. You might need to add explicit type casts."
	return e
}
