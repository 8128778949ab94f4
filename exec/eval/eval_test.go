package eval

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

func TestExprCases(t *testing.T) {
	for _, c := range exprCases {
		if got := evalRender(t, c.e, nil); got != c.want {
			t.Errorf("%s = %s, want %s", toSQL(c.e), got, c.want)
		}
	}
}

// TestDifferentialPostgres evaluates every exprCase in a real PostgreSQL
// and checks it gives the same answer the table expects. It needs a
// server: set KVSQL_TEST_PG to a libpq connection string (for example
// "host=/tmp port=5498 user=postgres").
func TestDifferentialPostgres(t *testing.T) {
	dsn := os.Getenv("KVSQL_TEST_PG")
	if dsn == "" {
		t.Skip("KVSQL_TEST_PG is not set: no PostgreSQL to compare with")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, err := pgconn.Connect(ctx, dsn)
	if err != nil {
		t.Skipf("cannot connect to PostgreSQL at %q: %v", dsn, err)
	}
	defer conn.Close(ctx)
	for _, c := range exprCases {
		sql := "SELECT " + toSQL(c.e)
		res := conn.ExecParams(ctx, sql, nil, nil, nil, nil).Read()
		var got string
		var pgErr *pgconn.PgError
		switch {
		case errors.As(res.Err, &pgErr):
			got = "ERROR " + pgErr.Code
		case res.Err != nil:
			t.Fatalf("%s: %v", sql, res.Err)
		case len(res.Rows) != 1 || len(res.Rows[0]) != 1:
			t.Fatalf("%s: %d rows", sql, len(res.Rows))
		case res.Rows[0][0] == nil:
			got = "NULL"
		default:
			got = string(res.Rows[0][0])
		}
		if got != c.want {
			t.Errorf("PostgreSQL: %s = %s, table says %s", sql, got, c.want)
		}
	}
}

func TestColumnsParamsOuter(t *testing.T) {
	env := testEnv()
	env.Params = []types.Datum{types.NewInt(7)}
	env.Outer = [][]types.Datum{{types.NewText("outer2")}, {types.NewText("outer1")}}
	row := []types.Datum{types.NewInt(1), types.NewText("x")}
	check := func(e planner.Expr, want string) {
		t.Helper()
		d, err := Eval(env, e, row)
		if got := render(d, e.Type(), err); got != want {
			t.Errorf("%s = %s, want %s", e, got, want)
		}
	}
	check(col(1, types.Text), "x")
	check(&planner.Param{N: 1, T: ty(types.Int8)}, "7")
	check(&planner.Param{N: 2, T: ty(types.Int8)}, "ERROR 42704")
	check(&planner.ColRef{Index: 0, Outer: 1, T: ty(types.Text)}, "outer1")
	check(&planner.ColRef{Index: 0, Outer: 2, T: ty(types.Text)}, "outer2")
	check(&planner.ColRef{Index: 0, Outer: 3, T: ty(types.Text)}, "ERROR XX000")
	check(col(5, types.Int4), "ERROR XX000")
	check(fn("now"), "2024-03-05 10:20:30.123456+00")
	check(fn("current_date"), "2024-03-05")
	check(&planner.Subquery{T: ty(types.Int4)}, "ERROR XX000")
	env.Subquery = func(env *Env, sq *planner.Subquery, row []types.Datum) (types.Datum, error) {
		return types.NewInt(int64(len(row))), nil
	}
	check(&planner.Subquery{T: ty(types.Int4)}, "2")
}

func TestEvalBool(t *testing.T) {
	env := testEnv()
	for _, c := range []struct {
		e    planner.Expr
		want bool
	}{
		{bl(true), true}, {bl(false), false}, {null(types.Bool), false},
		{bin("=", i4(1), null(types.Int4)), false},
	} {
		got, err := EvalBool(env, c.e, nil)
		if err != nil || got != c.want {
			t.Errorf("EvalBool(%s) = %v, %v; want %v", c.e, got, err, c.want)
		}
	}
	if _, err := EvalBool(env, i4(1), nil); !pgerror.HasCode(err, pgerror.DatatypeMismatch) {
		t.Errorf("EvalBool(1) error = %v, want 42804", err)
	}
}

func TestRandom(t *testing.T) {
	for range 100 {
		d, err := Eval(testEnv(), fn("random"), nil)
		if err != nil || d.Kind != types.KindFloat || d.F < 0 || d.F >= 1 {
			t.Fatalf("random() = %v, %v", d, err)
		}
	}
}

func TestFuncReturnType(t *testing.T) {
	for _, c := range []struct {
		name string
		args []types.T
		want types.T
	}{
		{"abs", []types.T{ty(types.Int2)}, ty(types.Int2)},
		{"round", []types.T{ty(types.Int4)}, ty(types.Float8)},
		{"round", []types.T{ty(types.Numeric)}, ty(types.Numeric)},
		{"round", []types.T{ty(types.Float8), ty(types.Int4)}, ty(types.Numeric)},
		{"mod", []types.T{ty(types.Int2), ty(types.Int8)}, ty(types.Int8)},
		{"coalesce", []types.T{ty(types.Unknown), ty(types.Int4), ty(types.Numeric)}, ty(types.Numeric)},
		{"greatest", []types.T{ty(types.Int4), ty(types.Float4)}, ty(types.Float4)},
		{"length", []types.T{ty(types.Text)}, ty(types.Int4)},
		{"now", nil, ty(types.TimestampTZ)},
	} {
		got, err := planner.FuncReturnType(c.name, c.args)
		if err != nil || got != c.want {
			t.Errorf("planner.FuncReturnType(%s, %v) = %v, %v; want %v", c.name, c.args, got, err, c.want)
		}
	}
	for _, c := range []struct {
		name string
		n    int
	}{{"nosuch", 1}, {"abs", 0}, {"abs", 2}, {"now", 1}} {
		_, err := planner.FuncReturnType(c.name, make([]types.T, c.n))
		if !pgerror.HasCode(err, pgerror.UndefinedFunction) {
			t.Errorf("planner.FuncReturnType(%s, %d args) error = %v, want 42883", c.name, c.n, err)
		}
	}
}

// TestEvalBoolShortcuts: EvalBool's shortcuts for comparisons of columns
// and constants and for AND give what the general evaluator gives (the
// result of Eval read as a WHERE clause reads it, a conjunction's
// arguments in order up to the first that is not TRUE), errors included,
// over random rows of integers, texts, floats and NULLs.
func TestEvalBoolShortcuts(t *testing.T) {
	env := testEnv()
	rng := rand.New(rand.NewPCG(7, 7))
	vals := []types.Datum{types.Null, types.NewInt(-1), types.NewInt(0), types.NewInt(2), types.NewText(""), types.NewText("b"), types.NewText("a"), types.NewFloat(2)}
	kinds := []types.T{ty(types.Int8), ty(types.Int8), ty(types.Int8), ty(types.Int8), ty(types.Text), ty(types.Text), ty(types.Text), ty(types.Float8)}
	ops := []string{"=", "<>", "<", "<=", ">", ">=", "!="}
	env.Params = []types.Datum{types.NewInt(2), types.NewText("a"), types.Null, types.NewInt(70000), types.NewText("12")}
	operand := func(row []types.Datum) planner.Expr {
		switch rng.IntN(3) {
		case 0:
			i := rng.IntN(len(row))
			return &planner.ColRef{Index: i, T: kinds[0]}
		case 1:
			var x planner.Expr = &planner.Param{N: 1 + rng.IntN(len(env.Params)+1), T: kinds[0]} // one past the end: an error
			if rng.IntN(2) == 0 {
				x = &planner.Cast{X: x, T: []types.T{ty(types.Int2), ty(types.Int4), ty(types.Text), ty(types.Float8)}[rng.IntN(4)]}
			}
			return x
		}
		k := rng.IntN(len(vals))
		return &planner.Const{Value: vals[k], T: kinds[k]}
	}
	cmp := func(row []types.Datum) planner.Expr {
		return &planner.BinOp{Op: ops[rng.IntN(len(ops))], L: operand(row), R: operand(row), T: ty(types.Bool)}
	}
	for i := 0; i < 20000; i++ {
		row := make([]types.Datum, 3)
		for j := range row {
			row[j] = vals[rng.IntN(len(vals))]
		}
		var e planner.Expr = cmp(row)
		if rng.IntN(2) == 0 {
			and := &planner.And{}
			for n := 1 + rng.IntN(3); n > 0; n-- {
				and.Args = append(and.Args, cmp(row))
			}
			e = and
		}
		got, gotErr := EvalBool(env, e, row)
		d, err := Eval(env, e, row)
		want := err == nil && d.Kind == types.KindBool && d.Bool()
		if and, ok := e.(*planner.And); ok {
			// A filter's conjuncts stop at the first that is not TRUE
			// (PostgreSQL's ExecQual): later ones raise no error.
			want, err = true, nil
			for _, a := range and.Args {
				d, err = Eval(env, a, row)
				if err != nil || d.Kind != types.KindBool || !d.Bool() {
					want = false
					break
				}
			}
		}
		if (gotErr == nil) != (err == nil) || got != want || gotErr != nil && pgerror.CodeOf(gotErr) != pgerror.CodeOf(err) {
			t.Fatalf("EvalBool(%s) on %v = %v, %v; Eval = %v, %v", e, row, got, gotErr, d, err)
		}
	}
}
