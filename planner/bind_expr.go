package planner

import (
	"math"
	"strconv"
	"strings"

	"github.com/cockroachdb/apd/v3"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
	"vitess.io/vitess/go/vt/sqlparser"
)

// expr binds a vitess expression in scope s.
func (b *binder) expr(e sqlparser.Expr, s *scope) (Expr, error) {
	switch e := e.(type) {
	case *sqlparser.ColName:
		name := e.Name.String()
		if ref, ok := s.aliasRef(e); ok {
			return ref, nil
		}
		x, err := s.resolve(e.Qualifier.Name.String(), name)
		if err != nil && len(b.p.ArgNames) > 0 {
			if p, ok := b.routineArgParam(e.Qualifier.Name.String(), name); ok { // routine.go
				return p, nil
			}
		}
		if pgerror.HasCode(err, pgerror.UndefinedColumn) && e.Qualifier.IsEmpty() && name == "current_schema" {
			// CURRENT_SCHEMA without parentheses, when no column has the name.
			x, _ = b.schemaFunc(name, nil)
			return x, nil
		}
		if pgerror.HasCode(err, pgerror.UndefinedColumn) && e.Qualifier.IsEmpty() {
			// SESSION_USER, CURRENT_ROLE and CURRENT_CATALOG (keywords
			// vitess reads as column names).
			switch name {
			case "session_user":
				return &Func{Name: "session_user", T: tText}, nil
			case "current_role":
				return &Func{Name: "current_user", T: tText}, nil
			case "current_catalog":
				return &Func{Name: "current_database", T: tText}, nil
			}
		}
		if pgerror.HasCode(err, pgerror.UndefinedColumn) && e.Qualifier.IsEmpty() {
			if row, ok, err := s.wholeRow(name); ok {
				return row, err
			}
		}
		return x, err
	case *sqlparser.Argument:
		if n, ok := paramNumber(e.Name); ok {
			return b.param(n), nil
		}
		return nil, pgerror.Newf(pgerror.SyntaxError, "unsupported placeholder %q", e.Name)
	case *sqlparser.Literal:
		return literal(e)
	case *sqlparser.NullVal:
		return &Const{T: tUnk}, nil
	case sqlparser.BoolVal:
		return &Const{Value: types.NewBool(bool(e)), T: tBool}, nil
	case *sqlparser.AndExpr:
		return b.logical(e.Left, e.Right, s, true)
	case *sqlparser.OrExpr:
		return b.logical(e.Left, e.Right, s, false)
	case *sqlparser.XorExpr:
		return nil, pgerror.New(pgerror.FeatureNotSupported, "XOR is not supported")
	case *sqlparser.NotExpr:
		x, err := b.boolExpr(e.Expr, s)
		if err != nil {
			return nil, err
		}
		return foldNot(x), nil
	case *sqlparser.ComparisonExpr:
		return b.comparison(e, s)
	case *sqlparser.BetweenExpr:
		x, err := b.expr(e.Left, s)
		if err != nil {
			return nil, err
		}
		lo, err := b.compare(">=", x, e.From, s)
		if err != nil {
			return nil, err
		}
		hi, err := b.compare("<=", x, e.To, s)
		if err != nil {
			return nil, err
		}
		and := foldAnd([]Expr{lo, hi})
		if !e.IsBetween {
			return foldNot(and), nil
		}
		return and, nil
	case *sqlparser.IsExpr:
		if x, ok, err := b.rowIsNull(e, s); ok { // rows.go
			return x, err
		}
		x, err := b.expr(e.Left, s)
		if err != nil {
			return nil, err
		}
		if c, ok := x.(*Const); ok && (e.Right == sqlparser.IsNullOp || e.Right == sqlparser.IsNotNullOp) {
			isNull := c.Value.Kind == types.KindNull
			return &Const{Value: types.NewBool(isNull == (e.Right == sqlparser.IsNullOp)), T: tBool}, nil
		}
		switch e.Right {
		case sqlparser.IsNullOp:
			return &IsNull{X: x}, nil
		case sqlparser.IsNotNullOp:
			return &IsNull{X: x, Not: true}, nil
		}
		if x, err = coerce(x, tBool); err != nil {
			return nil, err
		}
		switch e.Right {
		case sqlparser.IsTrueOp:
			return &IsBool{X: x, Value: true}, nil
		case sqlparser.IsNotTrueOp:
			return &IsBool{X: x, Value: true, Not: true}, nil
		case sqlparser.IsFalseOp:
			return &IsBool{X: x, Value: false}, nil
		default:
			return &IsBool{X: x, Value: false, Not: true}, nil
		}
	case *sqlparser.BinaryExpr:
		return b.binary(e, s)
	case *sqlparser.UnaryExpr:
		x, err := b.expr(e.Expr, s)
		if err != nil {
			return nil, err
		}
		switch e.Operator {
		case sqlparser.UMinusOp:
			if c, ok := x.(*Const); ok && c.Value.Kind == types.KindInt {
				if c.Value.I == math.MinInt64 {
					return nil, pgerror.New(pgerror.NumericValueOutOfRange, "bigint out of range")
				}
				return intConst(-c.Value.I), nil
			}
			if c, ok := x.(*Const); ok && c.Value.Kind == types.KindFloat {
				return &Const{Value: types.NewFloat(-c.Value.F), T: c.T}, nil
			}
			if c, ok := x.(*Const); ok && c.Value.Kind == types.KindDecimal {
				var d apd.Decimal
				c.Value.Decimal(&d)
				if !d.IsZero() {
					d.Negative = !d.Negative
				}
				return &Const{Value: types.NewDecimal(&d), T: c.T}, nil
			}
			if x.Type().Family == types.Interval {
				return &UnaryOp{Op: "-", X: x, T: tInterval}, nil
			}
			x, err = coerceNumeric(x)
			if err != nil {
				return nil, err
			}
			if c := foldStrict(x.Type(), x); c != nil {
				return c, nil
			}
			return &UnaryOp{Op: "-", X: x, T: x.Type()}, nil
		case sqlparser.UPlusOp:
			return coerceNumeric(x)
		case sqlparser.TildaOp:
			x, err = coerce(x, tInt8)
			if err != nil {
				return nil, err
			}
			if c := foldStrict(x.Type(), x); c != nil {
				return c, nil
			}
			return &UnaryOp{Op: "~", X: x, T: x.Type()}, nil
		case sqlparser.BangOp:
			x, err = coerce(x, tBool)
			if err != nil {
				return nil, err
			}
			return foldNot(x), nil
		}
		return nil, pgerror.New(pgerror.FeatureNotSupported, "unsupported unary operator")
	case *sqlparser.CaseExpr:
		return b.caseExpr(e, s)
	case *sqlparser.CastExpr:
		return b.cast(e.Expr, e.Type, s)
	case *sqlparser.ConvertExpr:
		return b.cast(e.Expr, e.Type, s)
	case *sqlparser.CollateExpr:
		return b.expr(e.Expr, s)
	case *sqlparser.IntroducerExpr:
		return b.expr(e.Expr, s)
	case *sqlparser.FuncExpr:
		return b.funcExpr(e, s)
	case *sqlparser.ArgumentLessWindowExpr, *sqlparser.NtileExpr, *sqlparser.LagLeadExpr, *sqlparser.FirstOrLastValueExpr, *sqlparser.NTHValueExpr:
		x, _, err := b.windowExpr(e, s)
		return x, err
	case *sqlparser.CountStar:
		if x, ok, err := b.windowExpr(e, s); ok {
			return x, err
		}
		return b.aggregate(s, AggCall{Func: "count_star", T: tInt8}, nil)
	case *sqlparser.Count:
		if x, ok, err := b.windowExpr(e, s); ok {
			return x, err
		}
		return b.aggregate(s, AggCall{Func: "count", Distinct: e.Distinct, T: tInt8}, e.Args)
	case *sqlparser.Sum:
		if x, ok, err := b.windowExpr(e, s); ok {
			return x, err
		}
		return b.aggregate(s, AggCall{Func: "sum", Distinct: e.Distinct}, []sqlparser.Expr{e.Arg})
	case *sqlparser.Avg:
		if x, ok, err := b.windowExpr(e, s); ok {
			return x, err
		}
		return b.aggregate(s, AggCall{Func: "avg", Distinct: e.Distinct}, []sqlparser.Expr{e.Arg})
	case *sqlparser.Std, *sqlparser.StdDev, *sqlparser.StdSamp, *sqlparser.StdPop,
		*sqlparser.Variance, *sqlparser.VarSamp, *sqlparser.VarPop:
		name, arg, over := statAggregate(e)
		if over != nil {
			return nil, errNativeWindow
		}
		return b.aggregate(s, AggCall{Func: name}, []sqlparser.Expr{arg})
	case *sqlparser.Min:
		if x, ok, err := b.windowExpr(e, s); ok {
			return x, err
		}
		return b.aggregate(s, AggCall{Func: "min", Distinct: e.Distinct}, []sqlparser.Expr{e.Arg})
	case *sqlparser.Max:
		if x, ok, err := b.windowExpr(e, s); ok {
			return x, err
		}
		return b.aggregate(s, AggCall{Func: "max", Distinct: e.Distinct}, []sqlparser.Expr{e.Arg})
	case *sqlparser.GroupConcatExpr:
		sep := e.Separator
		if len(sep) >= 2 && sep[0] == '\'' && sep[len(sep)-1] == '\'' {
			sep = strings.ReplaceAll(sep[1:len(sep)-1], "''", "'")
		}
		args := append([]sqlparser.Expr{}, e.Exprs...)
		if sep == parse.MarkerArrayAgg && len(args) == 1 {
			return b.aggregateOrdered(s, AggCall{Func: "array_agg", Distinct: e.Distinct}, args, e.OrderBy)
		}
		if name, ok := strings.CutPrefix(sep, parse.MarkerOrderedSet); ok {
			// An ordered-set aggregate: the value first, then its
			// direct argument (percentile_cont's fraction).
			if len(args) == 2 {
				args[0], args[1] = args[1], args[0]
			}
			return b.aggregateOrdered(s, AggCall{Func: name}, args, e.OrderBy)

		}
		if name, ok := strings.CutPrefix(sep, parse.MarkerOrderedAgg); ok {
			return b.modifiedAggregate(s, name, e, args)
		}
		if len(args) == 1 {
			args = append(args, sqlparser.NewStrLiteral(sep))
		}
		return b.aggregateOrdered(s, AggCall{Func: "string_agg", Distinct: e.Distinct, T: tText}, args, e.OrderBy)
	case *sqlparser.Subquery:
		return b.subquery(SubScalar, e, nil, "", false, s)
	case *sqlparser.ExistsExpr:
		return b.subquery(SubExists, e.Subquery, nil, "", false, s)
	case *sqlparser.CurTimeFuncExpr:
		name := e.Name.Lowered()
		if name == "current_date" || name == "curdate" {
			return &Func{Name: "current_date", T: tDate}, nil
		}
		if name == "localtimestamp" {
			return &Func{Name: "localtimestamp", T: tTS}, nil
		}
		return &Func{Name: "now", T: tTSTZ}, nil
	case *sqlparser.SubstrExpr:
		args := []sqlparser.Expr{e.Name, e.From}
		if e.To != nil {
			args = append(args, e.To)
		}
		return b.call("substr", args, s)
	case *sqlparser.LocateExpr:
		if e.Pos != nil {
			return nil, pgerror.New(pgerror.UndefinedFunction, "function locate(unknown, unknown, integer) does not exist")
		}
		return b.call("strpos", []sqlparser.Expr{e.Str, e.SubStr}, s)
	case *sqlparser.TrimFuncExpr:
		name := "btrim"
		switch e.Type {
		case sqlparser.LeadingTrimType:
			name = "ltrim"
		case sqlparser.TrailingTrimType:
			name = "rtrim"
		}
		args := []sqlparser.Expr{e.StringArg}
		if e.TrimArg != nil {
			args = append(args, e.TrimArg)
		}
		return b.call(name, args, s)
	case sqlparser.ValTuple:
		if len(e) == 1 {
			return b.expr(e[0], s)
		}
		return b.rowConstructor(e, s) // usertype.go
	}
	return nil, pgerror.Newf(pgerror.FeatureNotSupported, "unsupported expression: %s", sqlparser.String(e))
}

// paramNumber reads $N (or vitess's :vN) as N.
func paramNumber(name string) (int, bool) {
	switch {
	case strings.HasPrefix(name, "$"):
		name = name[1:]
	case strings.HasPrefix(name, ":v"):
		name = name[2:]
	case strings.HasPrefix(name, "v"), strings.HasPrefix(name, "p"):
		name = name[1:]
	default:
		return 0, false
	}
	n, err := strconv.Atoi(name)
	if err != nil || n < 1 || n > 65535 {
		return 0, false
	}
	return n, true
}

// param returns a reference to $n, growing the parameter list.
func (b *binder) param(n int) *Param {
	for len(b.params) < n {
		b.params = append(b.params, tUnk)
	}
	return &Param{N: n, T: b.params[n-1]}
}

func intConst(i int64) *Const {
	if i >= math.MinInt32 && i <= math.MaxInt32 {
		return &Const{Value: types.NewInt(i), T: tInt4}
	}
	return &Const{Value: types.NewInt(i), T: tInt8}
}

// numericLiteral is a NUMERIC constant written as s.
func numericLiteral(s string) (Expr, error) {
	var x apd.Decimal
	if !types.ParseDecimal(s, &x) {
		return nil, pgerror.Newf(pgerror.InvalidTextRepresentation, "invalid number %q", s)
	}
	return &Const{Value: types.NewDecimal(&x), T: types.T{Family: types.Numeric}}, nil
}

func literal(e *sqlparser.Literal) (Expr, error) {
	switch e.Type {
	case sqlparser.StrVal:
		return &Const{Value: types.NewText(e.Val), T: tUnk}, nil
	case sqlparser.IntVal:
		i, err := strconv.ParseInt(e.Val, 10, 64)
		if err != nil {
			return numericLiteral(e.Val)
		}
		return intConst(i), nil
	case sqlparser.FloatVal, sqlparser.DecimalVal:
		// 1.5 and 1e3 are NUMERIC constants, as in PostgreSQL.
		return numericLiteral(e.Val)
	case sqlparser.HexVal:
		raw, err := decodeHex(e.Val)
		if err != nil {
			return nil, err
		}
		return &Const{Value: types.NewBytes(raw), T: tBytea}, nil
	case sqlparser.HexNum:
		i, err := strconv.ParseInt(strings.TrimPrefix(strings.ToLower(e.Val), "0x"), 16, 64)
		if err != nil {
			return nil, pgerror.Newf(pgerror.InvalidTextRepresentation, "invalid hexadecimal number %q", e.Val)
		}
		return intConst(i), nil
	case sqlparser.DateVal:
		return coerce(&Const{Value: types.NewText(e.Val), T: tUnk}, tDate)
	case sqlparser.TimestampVal:
		return coerce(&Const{Value: types.NewText(e.Val), T: tUnk}, tTS)
	}
	return nil, pgerror.Newf(pgerror.FeatureNotSupported, "unsupported literal %s", sqlparser.String(e))
}

func decodeHex(s string) ([]byte, error) {
	if len(s)%2 != 0 {
		return nil, pgerror.New(pgerror.InvalidTextRepresentation, "invalid hexadecimal data: odd number of digits")
	}
	out := make([]byte, len(s)/2)
	for i := range out {
		v, err := strconv.ParseUint(s[2*i:2*i+2], 16, 8)
		if err != nil {
			return nil, pgerror.New(pgerror.InvalidTextRepresentation, "invalid hexadecimal digit")
		}
		out[i] = byte(v)
	}
	return out, nil
}

func (b *binder) boolExpr(e sqlparser.Expr, s *scope) (Expr, error) {
	x, err := b.expr(e, s)
	if err != nil {
		return nil, err
	}
	return coerceBool(x)
}

// coerceBool accepts a boolean; SQLite's corpus also uses integers as
// truth values (WHERE a), which PostgreSQL rejects: so do we (42804).
func coerceBool(x Expr) (Expr, error) {
	if x.Type().Family == types.Bool {
		return x, nil
	}
	return coerce(x, tBool)
}

func (b *binder) logical(l, r sqlparser.Expr, s *scope, and bool) (Expr, error) {
	le, err := b.boolExpr(l, s)
	if err != nil {
		return nil, err
	}
	re, err := b.boolExpr(r, s)
	if err != nil {
		return nil, err
	}
	var args []Expr
	for _, x := range []Expr{le, re} {
		switch v := x.(type) {
		case *And:
			if and {
				args = append(args, v.Args...)
				continue
			}
		case *Or:
			if !and {
				args = append(args, v.Args...)
				continue
			}
		}
		args = append(args, x)
	}
	if !b.enabled("constant_folding") {
		if and {
			return &And{Args: args}, nil
		}
		return &Or{Args: args}, nil
	}
	if and {
		return foldAnd(args), nil
	}
	return foldOr(args), nil
}

var comparisonOps = map[sqlparser.ComparisonExprOperator]string{
	sqlparser.EqualOp:        "=",
	sqlparser.LessThanOp:     "<",
	sqlparser.GreaterThanOp:  ">",
	sqlparser.LessEqualOp:    "<=",
	sqlparser.GreaterEqualOp: ">=",
	sqlparser.NotEqualOp:     "<>",
}

// asText is x converted to text: a literal at once, anything else by a
// cast when evaluated.
func asText(x Expr) Expr {
	if c, ok := x.(*Const); ok && c.T.Family == types.Unknown {
		if t, err := castConst(c, tText); err == nil {
			return t
		}
	}
	return &Cast{X: x, T: tText}
}

// readsRow reports whether e reads a column of the current row (not only
// constants, parameters and outer references).
func readsRow(e Expr) bool {
	reads := false
	walkExpr(e, func(x Expr) bool {
		switch c := x.(type) {
		case *ColRef:
			reads = reads || c.Outer == 0
		case *Subquery:
			reads = reads || c.Correlated
		}
		return !reads
	})
	return reads
}

// compare binds x op right, coercing both sides to a common type.
func (b *binder) compare(op string, x Expr, right sqlparser.Expr, s *scope) (Expr, error) {
	y, err := b.expr(right, s)
	if err != nil {
		return nil, err
	}
	return compareExprs(op, x, y)
}

func mismatch(what string, a, b types.T) error {
	return pgerror.Newf(pgerror.DatatypeMismatch, "%s types %s and %s cannot be matched", what, a, b)
}

var binaryOps = map[sqlparser.BinaryExprOperator]string{
	sqlparser.PlusOp:       "+",
	sqlparser.MinusOp:      "-",
	sqlparser.MultOp:       "*",
	sqlparser.DivOp:        "/",
	sqlparser.IntDivOp:     "/",
	sqlparser.ModOp:        "%",
	sqlparser.BitAndOp:     "&",
	sqlparser.BitOrOp:      "|",
	sqlparser.ShiftLeftOp:  "<<",
	sqlparser.ShiftRightOp: ">>",
}

func (b *binder) binary(e *sqlparser.BinaryExpr, s *scope) (Expr, error) {
	if e.Operator == sqlparser.BitXorOp {
		return b.call("power", []sqlparser.Expr{e.Left, e.Right}, s) // PostgreSQL's ^
	}
	op := binaryOps[e.Operator]
	l, err := b.expr(e.Left, s)
	if err != nil {
		return nil, err
	}
	r, err := b.expr(e.Right, s)
	if err != nil {
		return nil, err
	}
	if op == "<<" || op == ">>" {
		if x, ok, err := inetCall(op, []Expr{l, r}); ok { // inet.go: contained by, contains
			return x, err
		}
	}
	if op == "-" && l.Type().Family == types.JSONB {
		args := []Expr{l, r}
		t, _, err := jsonCall(op, args) // json.go: delete a key or element
		if err != nil {
			return nil, err
		}
		return &Func{Name: op, Args: args, T: t}, nil
	}
	return arith(op, l, r)
}

// arith types an arithmetic or bitwise operator.
func arith(op string, l, r Expr) (Expr, error) {
	lt, rt := l.Type(), r.Type()
	// Date arithmetic: date + int, date - int, date - date.
	if lt.Family == types.Date && isInteger(rt.Family) && (op == "+" || op == "-") {
		return &BinOp{Op: op, L: l, R: r, T: tDate}, nil
	}
	if lt.Family == types.Date && rt.Family == types.Date && op == "-" {
		return &BinOp{Op: op, L: l, R: r, T: tInt4}, nil
	}
	if e, ok, err := datetimeArith(op, l, r); ok {
		return e, err
	}
	var err error
	if lt.Family == types.Unknown {
		if l, err = coerce(l, numericLiteralType(l, rt)); err != nil {
			return nil, err
		}
	}
	if rt.Family == types.Unknown {
		if r, err = coerce(r, numericLiteralType(r, l.Type())); err != nil {
			return nil, err
		}
	}
	lt, rt = l.Type(), r.Type()
	if !isNumeric(lt.Family) || !isNumeric(rt.Family) {
		return nil, pgerror.Newf(pgerror.UndefinedFunction, "operator does not exist: %s %s %s", lt, op, rt)
	}
	t := arithType(lt, rt)
	switch op {
	case "&", "|", "#", "<<", ">>":
		if !isInteger(lt.Family) || !isInteger(rt.Family) {
			return nil, pgerror.Newf(pgerror.UndefinedFunction, "operator does not exist: %s %s %s", lt, op, rt)
		}
	}
	if c := foldStrict(t, l, r); c != nil {
		return c, nil
	}
	return &BinOp{Op: op, L: l, R: r, T: t}, nil
}

// numericLiteralType is the type an untyped operand of arithmetic takes:
// the other operand's numeric type, or what the literal's text looks like.
func numericLiteralType(x Expr, other types.T) types.T {
	if isNumeric(other.Family) {
		return withoutTypmod(other) // v + '0.0001' over numeric(20,3) keeps the 0.0001
	}
	if c, ok := x.(*Const); ok && c.Value.Kind == types.KindText {
		if _, err := strconv.ParseInt(strings.TrimSpace(c.Value.S), 10, 64); err == nil {
			return tInt8
		}
		return types.T{Family: types.Numeric}
	}
	return tInt4
}

func coerceNumeric(x Expr) (Expr, error) {
	if x.Type().Family == types.Unknown {
		return coerce(x, numericLiteralType(x, tUnk))
	}
	if !isNumeric(x.Type().Family) {
		return nil, pgerror.Newf(pgerror.UndefinedFunction, "operator does not exist: - %s", x.Type())
	}
	return x, nil
}

func (b *binder) caseExpr(e *sqlparser.CaseExpr, s *scope) (Expr, error) {
	c := &Case{}
	var err error
	if e.Expr != nil {
		if c.Operand, err = b.expr(e.Expr, s); err != nil {
			return nil, err
		}
	}
	t := tUnk
	for _, w := range e.Whens {
		var cond, val Expr
		if cond, err = b.expr(w.Cond, s); err != nil {
			return nil, err
		}
		if c.Operand != nil {
			if cond, err = compareExprs("=", c.Operand, cond); err != nil {
				return nil, err
			}
		} else if cond, err = coerceBool(cond); err != nil {
			return nil, err
		}
		if val, err = b.expr(w.Val, s); err != nil {
			return nil, err
		}
		c.Whens = append(c.Whens, When{Cond: cond, Val: val})
		t = caseType(t, val.Type())
	}
	if e.Else != nil {
		if c.Else, err = b.expr(e.Else, s); err != nil {
			return nil, err
		}
		t = caseType(t, c.Else.Type())
		if et := c.Else.Type(); isText(et.Family) && isText(t.Family) {
			t = resultType(et, t) // PostgreSQL resolves CASE's type with its ELSE first
		}
	}
	if t.Family == types.Unknown {
		t = tText
	}
	results := make([]Expr, 0, len(c.Whens)+1)
	for _, w := range c.Whens {
		results = append(results, w.Val)
	}
	if c.Else != nil {
		results = append(results, c.Else)
	}
	t = commonTypmod(t, results)
	for i := range c.Whens {
		if c.Whens[i].Val, err = coerceResult(c.Whens[i].Val, t); err != nil {
			return nil, err
		}
	}
	if c.Else != nil {
		if c.Else, err = coerceResult(c.Else, t); err != nil {
			return nil, err
		}
	}
	c.Operand = nil // the operand is folded into each condition
	c.T = t
	return foldCase(c), nil
}

func caseType(acc, t types.T) types.T {
	c := resultType(acc, t)
	if c.Family == types.Unknown && acc.Family != types.Unknown && t.Family != types.Unknown {
		return acc // reported when coercing
	}
	return c
}

// coerceResult converts a branch of CASE/COALESCE/UNION to the common type.
func coerceResult(x Expr, t types.T) (Expr, error) {
	if x.Type() == t {
		return x, nil
	}
	if xt := x.Type(); isText(xt.Family) && isText(t.Family) {
		if xt.Family == types.Char && t.Family != types.Char {
			return &Cast{X: x, T: t}, nil // bpchar to text drops trailing blanks
		}
		return x, nil
	}
	if isNumeric(x.Type().Family) && isNumeric(t.Family) {
		return &Cast{X: x, T: t}, nil
	}
	if x.Type().Family == types.Unknown {
		return coerce(x, t)
	}
	if commonType(x.Type(), t).Family == types.Unknown {
		return nil, pgerror.Newf(pgerror.DatatypeMismatch, "types %s and %s cannot be matched", x.Type(), t)
	}
	return &Cast{X: x, T: t}, nil
}

func (b *binder) cast(x sqlparser.Expr, ct *sqlparser.ConvertType, s *scope) (Expr, error) {
	if f, ok := x.(*sqlparser.FuncExpr); ok && f.Name.Lowered() == parse.MarkerArray && len(f.Exprs) == 0 {
		// ARRAY[]::t[]: the cast gives the empty array its type.
		t, err := typeFromName(ct.Type, ct.Length, ct.Scale)
		if err != nil {
			return nil, err
		}
		if t.Family == types.Int2Vector || t.Family == types.OidVector {
			// A vector is subscripted from 0, and no array is.
			return nil, pgerror.Newf(pgerror.DatatypeMismatch, "array is not a valid %s", t)
		}
		if !t.IsArray() {
			return nil, pgerror.Newf("42846", "cannot cast type text[] to %s", t)
		}
		return &Const{Value: types.NewArray(nil), T: t}, nil
	}
	if f, ok := x.(*sqlparser.FuncExpr); ok && f.Name.Lowered() == parse.MarkerArray {
		if elem, ok := arrayElemType(ct); ok {
			// ARRAY[e, ...]::t[] casts each element to t, as PostgreSQL
			// does (ARRAY[1, 'NaN']::float8[] never reads 'NaN' as an
			// integer); a sub-array is cast to t[] in turn.
			args := make([]sqlparser.Expr, len(f.Exprs))
			for i, a := range f.Exprs {
				to := elem
				if sub, ok := a.(*sqlparser.FuncExpr); ok && sub.Name.Lowered() == parse.MarkerArray {
					to = ct
				}
				args[i] = &sqlparser.CastExpr{Expr: a, Type: to}
			}
			x = &sqlparser.FuncExpr{Name: f.Name, Exprs: args}
		}
	}
	e, err := b.expr(x, s)
	if err != nil {
		return nil, err
	}
	if x, ok, err := b.regCast(e, ct.Type); ok { // 'name'::regclass, pgcatalog_funcs.go
		return x, err
	}
	if strings.TrimPrefix(ct.Type, "pg_catalog.") == "regclass" && isTableoid(x, e) {
		return b.tableoidName(e), nil // inherit.go
	}
	t, dom, err := b.resolveType(ct.Type, ct.Length, ct.Scale, 0)
	if err != nil {
		return nil, err
	}
	if e, err = castRow(e, t); err != nil {
		return nil, err
	}
	if err := enumCastAllowed(e.Type(), t); err != nil {
		return nil, err
	}
	if isOIDAlias(e.Type().Family) && isText(t.Family) {
		e = b.regOutput(e) // 'pk'::regclass::text is pk (pgcatalog_funcs.go)
	}
	if dom != nil {
		// A cast to a domain checks its constraints on every value.
		if c, ok := e.(*Const); ok {
			if e, err = castConst(c, t); err != nil {
				return nil, err
			}
		}
		return &Cast{X: e, T: t, Domain: dom}, nil
	}
	if c, ok := e.(*Const); ok {
		return castConst(c, t)
	}
	if e.Type() == t {
		return e, nil
	}
	return &Cast{X: e, T: t}, nil
}

// arrayElemType is the element type of the array type ct names (t[] or
// _t), ok false for other types.
func arrayElemType(ct *sqlparser.ConvertType) (*sqlparser.ConvertType, bool) {
	n := strings.ToLower(strings.TrimSpace(ct.Type))
	elem, ok := strings.CutSuffix(n, "[]")
	if !ok && len(n) > 1 && n[0] == '_' {
		elem, ok = n[1:], true
	}
	if !ok {
		return nil, false
	}
	out := *ct
	out.Type = elem
	return &out, true
}

// statAggregate names a statistics aggregate as PostgreSQL does (stddev
// and variance are the sample forms) and returns its argument and OVER.
func statAggregate(e sqlparser.Expr) (name string, arg sqlparser.Expr, over *sqlparser.OverClause) {
	switch e := e.(type) {
	case *sqlparser.Std:
		return "stddev_samp", e.Arg, e.OverClause
	case *sqlparser.StdDev:
		return "stddev_samp", e.Arg, e.OverClause
	case *sqlparser.StdSamp:
		return "stddev_samp", e.Arg, e.OverClause
	case *sqlparser.StdPop:
		return "stddev_pop", e.Arg, e.OverClause
	case *sqlparser.Variance:
		return "var_samp", e.Arg, e.OverClause
	case *sqlparser.VarSamp:
		return "var_samp", e.Arg, e.OverClause
	case *sqlparser.VarPop:
		return "var_pop", e.Arg, e.OverClause
	}
	return "", nil, nil
}
