package eval

import (
	"fmt"
	"testing"

	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// TestHashedIn: an IN list long enough to be hashed gives exactly the
// answers of the item-by-item loop, NULL rules and cross-kind
// comparisons included.
func TestHashedIn(t *testing.T) {
	list := func(mk func(i int) planner.Expr, withNull bool) []planner.Expr {
		var l []planner.Expr
		for i := 0; i < 2*minHashedIn; i++ {
			l = append(l, mk(i))
		}
		if withNull {
			l = append(l, &planner.Const{Value: types.Null, T: ty(types.Int8)})
		}
		return l
	}
	ints := func(i int) planner.Expr { return i8(int64(3 * i)) }
	texts := func(i int) planner.Expr { return txt(fmt.Sprint("v", i)) }
	floats := func(i int) planner.Expr { return f8(float64(3 * i)) }
	cases := []struct {
		x    planner.Expr
		list []planner.Expr
		not  bool
		want string
	}{
		{i8(9), list(ints, false), false, "t"},
		{i8(10), list(ints, false), false, "f"},
		{i8(10), list(ints, false), true, "t"},
		{i8(10), list(ints, true), false, "NULL"},
		{i8(9), list(ints, true), true, "f"},
		{i8(10), list(ints, true), true, "NULL"},
		{txt("v7"), list(texts, false), false, "t"},
		{txt("v77"), list(texts, false), false, "f"},
		{f8(9), list(ints, false), false, "t"},   // float against integers
		{i8(9), list(floats, false), false, "t"}, // integer against floats: not hashed
		{num(12), list(ints, false), false, "t"},
	}
	if buildInSet(list(ints, true)) == nil || buildInSet(list(texts, false)) == nil || buildInSet(list(floats, false)) != nil {
		t.Fatal("integer and text lists must be hashed, float lists not")
	}
	for _, c := range cases {
		e := &planner.In{X: c.x, List: c.list, Not: c.not}
		if got := evalRender(t, e, nil); got != c.want {
			t.Errorf("%s: got %s, want %s", toSQL(e), got, c.want)
		}
	}
}
