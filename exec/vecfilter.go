package exec

import (
	"bytes"
	"cmp"

	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// Three-valued results of a vector predicate, one byte per row position.
const (
	vFalse uint8 = 0
	vTrue  uint8 = 1
	vNull  uint8 = 2
)

// vecPred is a compiled filter over batches: comparisons of a column with
// a column or a constant (a literal, parameter or cast of one, evaluated
// once), AND, OR, NOT and IS [NOT] NULL, with SQL's three-valued logic.
// AND and OR evaluate each argument only at the positions the row
// evaluator would (eval.EvalBool stops a filter's conjuncts at the first
// FALSE or NULL, an inner AND at the first FALSE, OR at the first TRUE),
// so a constant whose evaluation failed (a cast) fails exactly when the
// row filter would.
type vecPred struct {
	root vecBool
	out  []uint8
}

// vecBool evaluates a boolean expression at the positions pos of a
// batch, writing out[k] for each k in pos.
type vecBool interface {
	eval(b *batch, pos []int, out []uint8) error
}

// compileVecPred compiles e over rows of the given column types.
func compileVecPred(env *eval.Env, e planner.Expr, cols []types.T) (*vecPred, error) {
	var r vecBool
	var err error
	if and, ok := e.(*planner.And); ok {
		r, err = compileLogic(env, and.Args, cols, true)
		if err == nil {
			r.(*vecLogic).top = true
		}
	} else {
		r, err = compileVecBool(env, e, cols)
	}
	if err != nil {
		return nil, err
	}
	return &vecPred{root: r, out: make([]uint8, batchSize)}, nil
}

// filter appends to sel the live positions of b where the predicate is
// true and returns it.
func (p *vecPred) filter(b *batch, sel []int) ([]int, error) {
	var buf [batchSize]int
	pos := b.positions(buf[:0])
	if len(p.out) < b.n {
		p.out = make([]uint8, b.n)
	}
	if err := p.root.eval(b, pos, p.out); err != nil {
		return nil, err
	}
	for _, k := range pos {
		if p.out[k] == vTrue {
			sel = append(sel, k)
		}
	}
	return sel, nil
}

func compileVecBool(env *eval.Env, e planner.Expr, cols []types.T) (vecBool, error) {
	switch e := e.(type) {
	case *planner.And:
		return compileLogic(env, e.Args, cols, true)
	case *planner.Or:
		return compileLogic(env, e.Args, cols, false)
	case *planner.UnaryOp:
		if e.Op == "NOT" {
			x, err := compileVecBool(env, e.X, cols)
			if err != nil {
				return nil, err
			}
			return &vecNot{x: x}, nil
		}
	case *planner.IsNull:
		if c, ok := e.X.(*planner.ColRef); ok && c.Outer == 0 {
			return &vecIsNull{col: c.Index, not: e.Not}, nil
		}
	case *planner.ColRef:
		if e.Outer == 0 && e.T.Family == types.Bool {
			return &vecBoolCol{col: e.Index}, nil
		}
	case *planner.Const, *planner.Param:
		d, err := eval.Eval(env, e, nil)
		if err != nil {
			return nil, err
		}
		if d.IsNull() || d.Kind == types.KindBool {
			return &vecBoolConst{d: d}, nil
		}
	case *planner.BinOp:
		return compileCompare(env, e, cols)
	}
	return nil, pgerror.Newf(pgerror.Internal, "exec: no batch form for the predicate %s", e)
}

func compileLogic(env *eval.Env, args []planner.Expr, cols []types.T, and bool) (vecBool, error) {
	l := &vecLogic{and: and}
	for _, a := range args {
		x, err := compileVecBool(env, a, cols)
		if err != nil {
			return nil, err
		}
		l.args = append(l.args, x)
	}
	l.tmp = make([]uint8, batchSize)
	return l, nil
}

// vecLogic is an n-ary AND or OR. top marks a filter's list of
// conjuncts, which stops at the first argument that is not TRUE.
type vecLogic struct {
	and, top bool
	args     []vecBool
	tmp      []uint8
	rem      []int
}

func (l *vecLogic) eval(b *batch, pos []int, out []uint8) error {
	if len(l.tmp) < b.n {
		l.tmp = make([]uint8, b.n)
	}
	// AND: false wins, then NULL, else true. OR: true wins, then NULL.
	win, lose := vFalse, vTrue
	if !l.and {
		win, lose = vTrue, vFalse
	}
	for _, k := range pos {
		out[k] = lose
	}
	// rem are the positions whose result is not decided yet: the next
	// argument is evaluated there only.
	rem := append(l.rem[:0], pos...)
	for _, a := range l.args {
		if len(rem) == 0 {
			break
		}
		if err := a.eval(b, rem, l.tmp); err != nil {
			return err
		}
		next := rem[:0] // filtering in place: writes trail reads
		for _, k := range rem {
			switch r := l.tmp[k]; {
			case r == win:
				out[k] = win
			case r == vNull:
				out[k] = vNull
				if !l.top {
					next = append(next, k)
				}
			default:
				next = append(next, k)
			}
		}
		rem = next
	}
	l.rem = rem
	return nil
}

type vecNot struct{ x vecBool }

func (n *vecNot) eval(b *batch, pos []int, out []uint8) error {
	if err := n.x.eval(b, pos, out); err != nil {
		return err
	}
	for _, k := range pos {
		if out[k] != vNull {
			out[k] ^= 1
		}
	}
	return nil
}

type vecIsNull struct {
	col int
	not bool
}

func (n *vecIsNull) eval(b *batch, pos []int, out []uint8) error {
	v := b.cols[n.col]
	for _, k := range pos {
		isNull := v == nil || v.isNull(k)
		out[k] = vFalse
		if isNull != n.not {
			out[k] = vTrue
		}
	}
	return nil
}

type vecBoolCol struct{ col int }

func (c *vecBoolCol) eval(b *batch, pos []int, out []uint8) error {
	v := b.cols[c.col]
	for _, k := range pos {
		switch {
		case v == nil || v.isNull(k):
			out[k] = vNull
		case v.i[k] != 0:
			out[k] = vTrue
		default:
			out[k] = vFalse
		}
	}
	return nil
}

type vecBoolConst struct{ d types.Datum }

func (c *vecBoolConst) eval(b *batch, pos []int, out []uint8) error {
	r := vNull
	if !c.d.IsNull() {
		r = uint8(c.d.I & 1)
	}
	for _, k := range pos {
		out[k] = r
	}
	return nil
}

// vecCompare is col op col, or col op constant (the column on the left:
// compileCompare flips a constant-first comparison).
type vecCompare struct {
	op     string // for the generic path
	opc    cmpOp
	l, r   int         // column ordinals; r < 0: compare with k
	k      types.Datum // the constant (non-NULL, of the column's kind)
	isNull bool        // the constant is NULL: every result is NULL
	kErr   error       // evaluating the constant failed: the first row fails
}

// flipOp is the operator with its operands swapped (1 < x is x > 1).
var flipOp = map[string]string{"=": "=", "<>": "<>", "!=": "<>", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

func compileCompare(env *eval.Env, e *planner.BinOp, cols []types.T) (vecBool, error) {
	if _, ok := flipOp[e.Op]; !ok {
		return nil, pgerror.Newf(pgerror.Internal, "exec: no batch form for the operator %s", e.Op)
	}
	op := e.Op
	if op == "!=" {
		op = "<>"
	}
	lc, lok := e.L.(*planner.ColRef)
	rc, rok := e.R.(*planner.ColRef)
	if lok && lc.Outer == 0 && rok && rc.Outer == 0 {
		return &vecCompare{op: op, opc: cmpOps[op], l: lc.Index, r: rc.Index}, nil
	}
	col, other := lc, e.R
	if !lok || lc.Outer != 0 {
		col, other, op = rc, e.L, flipOp[op]
		if !rok || rc.Outer != 0 {
			return nil, pgerror.Newf(pgerror.Internal, "exec: no batch form for %s", e)
		}
	}
	inner := other
	if c, ok := other.(*planner.Cast); ok && c.Domain == nil {
		inner = c.X
	}
	switch inner.(type) {
	case *planner.Const, *planner.Param:
	default:
		return nil, pgerror.Newf(pgerror.Internal, "exec: no batch form for %s", e)
	}
	// Evaluated here, once (batches may be filtered on other goroutines);
	// an error waits for the first row that would evaluate it.
	d, err := eval.Eval(env, other, nil)
	c := &vecCompare{op: op, opc: cmpOps[op], l: col.Index, r: -1, k: d, isNull: d.IsNull(), kErr: err}
	return c, nil
}

func (c *vecCompare) eval(b *batch, pos []int, out []uint8) error {
	if c.kErr != nil && len(pos) > 0 {
		return c.kErr
	}
	lv := b.cols[c.l]
	if lv == nil || c.isNull {
		for _, k := range pos {
			out[k] = vNull
		}
		return nil
	}
	if c.r >= 0 {
		rv := b.cols[c.r]
		if rv == nil {
			for _, k := range pos {
				out[k] = vNull
			}
			return nil
		}
		if rv.kind != lv.kind {
			return c.generic(b, pos, out, lv, rv)
		}
		for _, k := range pos {
			if lv.isNull(k) || rv.isNull(k) {
				out[k] = vNull
				continue
			}
			out[k] = opResult(c.opc, cmpAt(lv, k, rv, k))
		}
		return nil
	}
	if c.k.Kind != lv.kind {
		return c.generic(b, pos, out, lv, nil)
	}
	switch lv.class {
	case classInts:
		x := c.k.I
		for _, k := range pos {
			if lv.isNull(k) {
				out[k] = vNull
				continue
			}
			out[k] = opResult(c.opc, cmp.Compare(lv.i[k], x))
		}
	case classFloats:
		x := c.k.F
		for _, k := range pos {
			if lv.isNull(k) {
				out[k] = vNull
				continue
			}
			out[k] = opResult(c.opc, types.CompareFloat(lv.f[k], x))
		}
	default:
		if lv.kind == types.KindDecimal {
			return c.generic(b, pos, out, lv, nil)
		}
		x := []byte(c.k.S)
		for _, k := range pos {
			if lv.isNull(k) {
				out[k] = vNull
				continue
			}
			out[k] = opResult(c.opc, bytes.Compare(lv.b[k], x))
		}
	}
	return nil
}

// generic compares through the row evaluator, Datum by Datum: kinds that
// differ at run time (a parameter bound to another type) or numerics.
func (c *vecCompare) generic(b *batch, pos []int, out []uint8, lv, rv *vec) error {
	env := &eval.Env{}
	for _, k := range pos {
		r := c.k
		if rv != nil {
			r = rv.datum(k)
		}
		e := &planner.BinOp{Op: c.op, L: &planner.Const{Value: lv.datum(k)}, R: &planner.Const{Value: r}, T: types.T{Family: types.Bool}}
		d, err := eval.Eval(env, e, nil)
		if err != nil {
			return err
		}
		switch {
		case d.IsNull():
			out[k] = vNull
		case d.I != 0:
			out[k] = vTrue
		default:
			out[k] = vFalse
		}
	}
	return nil
}

// cmpAt compares row i of a with row j of b, two non-NULL values of
// vectors of one kind, as eval.Compare does.
func cmpAt(a *vec, i int, b *vec, j int) int {
	switch a.class {
	case classInts:
		return cmp.Compare(a.i[i], b.i[j])
	case classFloats:
		return types.CompareFloat(a.f[i], b.f[j])
	}
	if a.kind == types.KindDecimal {
		return eval.Compare(a.datum(i), b.datum(j))
	}
	return bytes.Compare(a.b[i], b.b[j])
}

// cmpOp is a comparison operator.
type cmpOp uint8

const (
	opEQ cmpOp = iota
	opNE
	opLT
	opLE
	opGT
	opGE
)

var cmpOps = map[string]cmpOp{"=": opEQ, "<>": opNE, "<": opLT, "<=": opLE, ">": opGT, ">=": opGE}

func opResult(op cmpOp, c int) uint8 {
	var r bool
	switch op {
	case opEQ:
		r = c == 0
	case opNE:
		r = c != 0
	case opLT:
		r = c < 0
	case opLE:
		r = c <= 0
	case opGT:
		r = c > 0
	default:
		r = c >= 0
	}
	if r {
		return vTrue
	}
	return vFalse
}
