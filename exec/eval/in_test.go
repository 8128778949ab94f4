package eval

import (
	"math"
	"math/rand"
	"testing"

	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// TestInSetMatchesLinear: x [NOT] IN (a long constant list), answered by
// binary search over the sorted items, gives what comparing item by item
// gives, NULLs, NaN, -0, duplicates and mixed numeric kinds included; a
// probe of another comparison class still fails as before.
func TestInSetMatchesLinear(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	nullC := &planner.Const{Value: types.Null, T: ty(types.Int8)}
	pick := func() planner.Expr {
		switch rng.Intn(6) {
		case 0:
			return nullC
		case 1:
			return f8([]float64{math.NaN(), math.Copysign(0, -1), 2.5, 3}[rng.Intn(4)])
		case 2:
			return num(float64(rng.Intn(20)) / 2)
		}
		return i8(int64(rng.Intn(20)))
	}
	for iter := 0; iter < 2000; iter++ {
		n := minInSet + rng.Intn(20)
		list := make([]planner.Expr, n)
		for i := range list {
			list[i] = pick()
		}
		x := pick()
		for _, not := range []bool{false, true} {
			in := &planner.In{X: x, List: list, Not: not}
			env := &Env{}
			got, err := Eval(env, in, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !env.inSetFor(in).ok {
				t.Fatalf("list %v was not probed through a set", list)
			}
			// The model: item by item, as SQL defines it.
			xv := x.(*planner.Const).Value
			want := types.NewBool(not)
			if xv.IsNull() {
				want = types.Null
			} else {
				sawNull := false
				for _, it := range list {
					v := it.(*planner.Const).Value
					if v.IsNull() {
						sawNull = true
					} else if Compare(xv, v) == 0 {
						want = types.NewBool(!not)
						sawNull = false
						break
					}
				}
				if sawNull {
					want = types.Null
				}
			}
			if got.IsNull() != want.IsNull() || (!got.IsNull() && got.Bool() != want.Bool()) {
				t.Fatalf("%v IN %v (not %v) = %v, want %v", xv, list, not, got, want)
			}
		}
	}
	list := make([]planner.Expr, minInSet)
	for i := range list {
		list[i] = i8(int64(i))
	}
	if _, err := Eval(&Env{}, &planner.In{X: txt("a"), List: list}, nil); err == nil {
		t.Fatal("text IN (integers): no error")
	}
}
