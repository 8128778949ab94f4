package exec

import (
	"reflect"
	"testing"

	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// TestEncodedSortDemotion: an encoded sort that has spilled runs meets a
// key value of another kind (a float among integers, as a UNION column
// can hold) and goes on with Datums; it must give the Datum sort's rows,
// those of the encoded runs included, in the same order. Also with a
// jsonb value, which has no sort key at all.
func TestEncodedSortDemotion(t *testing.T) {
	r := testRand(t)
	for _, odd := range []types.Datum{types.NewFloat(0.5), types.NewJSONB("[1]")} {
		const n = 3000
		rows := make([][]types.Datum, n)
		for i := range rows {
			rows[i] = []types.Datum{types.NewInt(int64(i)), types.NewInt(int64(r.IntN(50))), types.NewText("pad")}
			if r.IntN(10) == 0 {
				rows[i][1] = types.Null
			}
		}
		rows[2500][1] = odd
		if odd.Kind == types.KindFloat {
			rows[2700][1] = types.NewFloat(-1.5)
		}
		keys := []planner.SortKey{{Expr: col(1), Desc: true}, {Expr: bin("+", col(0), cint(1))}}
		if odd.Kind == types.KindText {
			keys[0].Expr = &planner.ColRef{Index: 1, T: types.T{Family: types.JSONB}}
		}
		before := spillFilesCreated.Load()
		got, _ := runSort(t, rows, keys, 8<<10, true)
		if spillFilesCreated.Load()-before < 3 {
			t.Fatalf("%v: the sort did not spill runs before the odd value", odd)
		}
		want, _ := runSort(t, rows, keys, 8<<10, false)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%v: demoted encoded sort: %d rows, Datum sort %d; first difference at %d", odd, len(got), len(want), firstDiff(got, want))
		}
	}
}

// TestEncodedSortManyRuns: more than maxFanIn encoded runs take a merge
// pass on records before the last merge.
func TestEncodedSortManyRuns(t *testing.T) {
	r := testRand(t)
	const n = 20000
	rows := make([][]types.Datum, n)
	for i := range rows {
		rows[i] = []types.Datum{types.NewInt(int64(i)), types.NewInt(int64(r.IntN(1000))), types.NewText([]string{"a", "b", ""}[r.IntN(3)])}
	}
	keys := []planner.SortKey{{Expr: tcol(2), NullsFirst: true}, {Expr: col(1), Desc: true}}
	before := spillFilesCreated.Load()
	got, _ := runSort(t, rows, keys, 4<<10, true)
	if runs := spillFilesCreated.Load() - before; runs <= maxFanIn {
		t.Fatalf("%d spill files: no merge pass", runs)
	}
	// A spilled Datum sort: both keep equal keys in input order.
	want, _ := runSort(t, rows, keys, 4<<10, false)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%d rows, want %d; first difference at %d", len(got), len(want), firstDiff(got, want))
	}
}
