package eval

import (
	"testing"

	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// benchPredicate is a + b * 2 > 10 AND c LIKE 'ab%' over (a int4, b int4,
// c text).
func benchPredicate() planner.Expr {
	return and(
		bin(">", bin("+", col(0, types.Int4), bin("*", col(1, types.Int4), i4(2))), i4(10)),
		like(col(2, types.Text), txt("ab%"), false, false),
	)
}

func TestBenchPredicateAllocs(t *testing.T) {
	env := testEnv()
	e := benchPredicate()
	row := []types.Datum{types.NewInt(3), types.NewInt(4), types.NewText("abcdef")}
	if ok, err := EvalBool(env, e, row); !ok || err != nil {
		t.Fatalf("EvalBool = %v, %v; want true", ok, err)
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = EvalBool(env, e, row) }); n != 0 {
		t.Errorf("EvalBool allocates %v times per row, want 0", n)
	}
}

func BenchmarkEvalPredicate(b *testing.B) {
	env := testEnv()
	e := benchPredicate()
	row := []types.Datum{types.NewInt(3), types.NewInt(4), types.NewText("abcdef")}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := EvalBool(env, e, row); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEvalILike(b *testing.B) {
	env := testEnv()
	e := like(col(0, types.Text), txt("%XYZ%"), false, true)
	row := []types.Datum{types.NewText("abcdefghijklmnopqrstuvwxyz0123456789")}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Eval(env, e, row); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCompareIntFloat(b *testing.B) {
	x, y := types.NewInt(12345), types.NewFloat(12345.5)
	for b.Loop() {
		_ = Compare(x, y)
	}
}
