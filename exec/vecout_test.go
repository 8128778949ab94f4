package exec

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// TestLendRows checks where LendRows applies — a batch subtree's
// vecToRows, alone or under a projection of plain columns (zero columns
// too) — and that lent rows, copied as they come, equal the rows read
// without lending; elsewhere (an expression, a row scan) it returns the
// operator unchanged.
func TestLendRows(t *testing.T) {
	e := memPebble(t, "lend")
	tbl := &catalog.Table{ID: 95, Name: "l", PrimaryKey: []int{0}, PrimaryKeyDesc: []bool{false}, NextColumnID: 4,
		Columns: []catalog.Column{{ID: 1, Name: "id", Type: intT}, {ID: 2, Name: "a", Type: intT}, {ID: 3, Name: "s", Type: textT}}}
	txn := kv.NewTxn(e)
	for i := range int64(5000) {
		s := types.NewText(string(rune('a' + i%26)))
		if i%7 == 0 {
			s = types.Null
		}
		if err := index.Insert(txn, tbl, []types.Datum{types.NewInt(i), types.NewInt(i % 10), s}); err != nil {
			t.Fatal(err)
		}
	}
	if err := txn.Commit(false); err != nil {
		t.Fatal(err)
	}
	ref := func(i int) planner.Expr { return &planner.ColRef{Index: i, T: tbl.Columns[i].Type} }
	for _, c := range []struct {
		name  string
		exprs []planner.Expr // nil: no projection
		vec   bool
		lends bool
	}{
		{"scan", nil, true, true},
		{"columns", []planner.Expr{ref(2), ref(0), ref(2)}, true, true},
		{"no columns", []planner.Expr{}, true, true},
		{"expression", []planner.Expr{ref(2), bin("+", ref(1), cint(1))}, true, false},
		{"row scan", []planner.Expr{ref(2)}, false, false},
	} {
		plan := func() planner.Node {
			var n planner.Node = &planner.Scan{Table: tbl, Access: planner.FullScan, Cols: tableCols(tbl),
				Filter: bin("<", ref(1), cint(4)), Vectorized: c.vec, Parallel: c.vec}
			if c.exprs != nil {
				cols := make([]planner.Column, len(c.exprs))
				for i := range cols {
					cols[i] = planner.Column{Name: "x", T: textT}
				}
				n = &planner.Project{Input: n, Exprs: c.exprs, Cols: cols}
			}
			return n
		}
		ctx := testCtx(t, 1<<30)
		ctx.RW, ctx.ReadOnly = kv.NewTxn(e), true
		want := collect(t, ctx, plan())
		ctx.RW = kv.NewTxn(e)
		op, err := Build(ctx, plan())
		if err != nil {
			t.Fatal(err)
		}
		lent := LendRows(op)
		v, ok := lent.(*vecToRows)
		if got := ok && v.lend; got != c.lends {
			t.Fatalf("%s: LendRows gave %T (lending %v), want lending %v", c.name, lent, got, c.lends)
		}
		if !c.lends && lent != op {
			t.Fatalf("%s: LendRows replaced the operator without lending", c.name)
		}
		var got [][]types.Datum
		for {
			row, err := lent.Next()
			if err != nil {
				t.Fatal(err)
			}
			if row == nil {
				break
			}
			// Lent strings change under later rows: copy their bytes.
			cp := copyRow(row)
			for i := range cp {
				cp[i].S = strings.Clone(cp[i].S)
			}
			got = append(got, cp)
		}
		if err := lent.Close(); err != nil {
			t.Fatal(err)
		}
		if len(want) != 2000 || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: %d rows lent, %d without (want 2000); first difference at %d", c.name, len(got), len(want), firstDiff(got, want))
		}
	}
}
