package eval

import (
	"github.com/cockroachdb/apd/v3"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// Expression builders for tests. Constants carry the type PostgreSQL would
// give the literal, so toSQL can print an equivalent PostgreSQL expression.

func ty(f types.Family) types.T { return types.T{Family: f} }

func i2(v int64) planner.Expr   { return &planner.Const{Value: types.NewInt(v), T: ty(types.Int2)} }
func i4(v int64) planner.Expr   { return &planner.Const{Value: types.NewInt(v), T: ty(types.Int4)} }
func i8(v int64) planner.Expr   { return &planner.Const{Value: types.NewInt(v), T: ty(types.Int8)} }
func f8(v float64) planner.Expr { return &planner.Const{Value: types.NewFloat(v), T: ty(types.Float8)} }
func f4(v float64) planner.Expr { return &planner.Const{Value: types.NewFloat(v), T: ty(types.Float4)} }

// num is a NUMERIC constant written as v's shortest decimal form.
func num(v float64) planner.Expr {
	var x apd.Decimal
	types.ParseDecimal(strconv.FormatFloat(v, 'f', -1, 64), &x)
	return &planner.Const{Value: types.NewDecimal(&x), T: ty(types.Numeric)}
}
func txt(s string) planner.Expr { return &planner.Const{Value: types.NewText(s), T: ty(types.Text)} }
func bl(b bool) planner.Expr    { return &planner.Const{Value: types.NewBool(b), T: ty(types.Bool)} }
func byt(s string) planner.Expr {
	return &planner.Const{Value: types.Datum{Kind: types.KindBytes, S: s}, T: ty(types.Bytea)}
}
func date(s string) planner.Expr {
	d, err := types.ParseDate(s)
	if err != nil {
		panic(err)
	}
	return &planner.Const{Value: types.NewDate(d), T: ty(types.Date)}
}
func null(f types.Family) planner.Expr { return &planner.Const{T: ty(f)} }

func col(i int, f types.Family) planner.Expr {
	return &planner.ColRef{Index: i, T: ty(f), Name: "c" + strconv.Itoa(i)}
}

// bin builds a BinOp whose result type follows PostgreSQL: comparisons are
// bool, || text, integer arithmetic the wider integer, otherwise the common
// type.
func bin(op string, l, r planner.Expr) planner.Expr {
	var t types.T
	switch op {
	case "=", "<>", "<", "<=", ">", ">=", "IS DISTINCT FROM", "IS NOT DISTINCT FROM", "~", "~*", "!~", "!~*":
		t = ty(types.Bool)
	case "||":
		t = ty(types.Text)
		if l.Type().Family == types.Bytea && r.Type().Family == types.Bytea {
			t = ty(types.Bytea)
		}
	default:
		t = planner.CommonType([]types.T{l.Type(), r.Type()})
		if l.Type().Family == types.Date && r.Type().Family == types.Date {
			t = ty(types.Int4)
		} else if l.Type().Family == types.Date || r.Type().Family == types.Date {
			t = ty(types.Date)
		}
	}
	return &planner.BinOp{Op: op, L: l, R: r, T: t}
}

func un(op string, x planner.Expr) planner.Expr {
	t := x.Type()
	if op == "NOT" {
		t = ty(types.Bool)
	}
	return &planner.UnaryOp{Op: op, X: x, T: t}
}

func fn(name string, args ...planner.Expr) planner.Expr {
	ts := make([]types.T, len(args))
	for i, a := range args {
		ts[i] = a.Type()
	}
	t, err := planner.FuncReturnType(name, ts)
	if err != nil {
		panic(err)
	}
	return &planner.Func{Name: name, Args: args, T: t}
}

func cast(x planner.Expr, f types.Family, width int32) planner.Expr {
	return &planner.Cast{X: x, T: types.T{Family: f, Width: width}}
}

func and(args ...planner.Expr) planner.Expr { return &planner.And{Args: args} }
func or(args ...planner.Expr) planner.Expr  { return &planner.Or{Args: args} }

func like(x, p planner.Expr, not, fold bool) planner.Expr {
	return &planner.Like{X: x, Pattern: p, Not: not, CaseInsensitive: fold}
}

func in(x planner.Expr, not bool, list ...planner.Expr) planner.Expr {
	return &planner.In{X: x, List: list, Not: not}
}

func testEnv() *Env {
	return &Env{Now: time.Date(2024, 3, 5, 10, 20, 30, 123456000, time.UTC)}
}

// render prints a result as psql prints PostgreSQL's text output ("t"/"f"
// for booleans), "NULL" for NULL, or "ERROR <sqlstate>".
func render(d types.Datum, t types.T, err error) string {
	if err != nil {
		return "ERROR " + string(pgerror.CodeOf(err))
	}
	switch d.Kind {
	case types.KindNull:
		return "NULL"
	case types.KindBool:
		if d.Bool() {
			return "t"
		}
		return "f"
	}
	return FormatText(d, t)
}

// toSQL prints e as a PostgreSQL expression with explicit types on every
// literal, for the differential test.
func toSQL(e planner.Expr) string {
	switch e := e.(type) {
	case *planner.Const:
		if e.Value.IsNull() {
			return "NULL::" + e.T.String()
		}
		var lit string
		switch e.Value.Kind {
		case types.KindBool:
			lit = strconv.FormatBool(e.Value.Bool())
		case types.KindText:
			lit = e.Value.S
		default:
			lit = FormatText(e.Value, e.T)
		}
		return "'" + strings.ReplaceAll(lit, "'", "''") + "'::" + e.T.String()
	case *planner.ColRef:
		return e.Name
	case *planner.BinOp:
		return "(" + toSQL(e.L) + " " + e.Op + " " + toSQL(e.R) + ")"
	case *planner.UnaryOp:
		return "(" + e.Op + " " + toSQL(e.X) + ")"
	case *planner.And:
		return "(" + joinSQL(e.Args, " AND ") + ")"
	case *planner.Or:
		return "(" + joinSQL(e.Args, " OR ") + ")"
	case *planner.IsNull:
		if e.Not {
			return "(" + toSQL(e.X) + " IS NOT NULL)"
		}
		return "(" + toSQL(e.X) + " IS NULL)"
	case *planner.In:
		op := " IN ("
		if e.Not {
			op = " NOT IN ("
		}
		return "(" + toSQL(e.X) + op + joinSQL(e.List, ", ") + "))"
	case *planner.Like:
		op := " LIKE "
		if e.CaseInsensitive {
			op = " ILIKE "
		}
		if e.Not {
			op = " NOT" + op
		}
		return "(" + toSQL(e.X) + op + toSQL(e.Pattern) + ")"
	case *planner.Case:
		s := "CASE"
		if e.Operand != nil {
			s += " " + toSQL(e.Operand)
		}
		for _, w := range e.Whens {
			s += " WHEN " + toSQL(w.Cond) + " THEN " + toSQL(w.Val)
		}
		if e.Else != nil {
			s += " ELSE " + toSQL(e.Else)
		}
		return s + " END"
	case *planner.Cast:
		return "CAST(" + toSQL(e.X) + " AS " + e.T.String() + ")"
	case *planner.Func:
		switch e.Name {
		case "position":
			return "position(" + toSQL(e.Args[1]) + " IN " + toSQL(e.Args[0]) + ")"
		case "||", "~", "~*", "!~", "!~*":
			return "(" + toSQL(e.Args[0]) + " " + e.Name + " " + toSQL(e.Args[1]) + ")"
		}
		return e.Name + "(" + joinSQL(e.Args, ", ") + ")"
	}
	return e.String()
}

func joinSQL(es []planner.Expr, sep string) string {
	parts := make([]string, len(es))
	for i, x := range es {
		parts[i] = toSQL(x)
	}
	return strings.Join(parts, sep)
}

// evalRender evaluates e over row and renders the result.
func evalRender(t *testing.T, e planner.Expr, row []types.Datum) string {
	t.Helper()
	d, err := Eval(testEnv(), e, row)
	return render(d, e.Type(), err)
}
