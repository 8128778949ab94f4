package exec

import (
	"fmt"
	"testing"

	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// TestCTEScanReleasesBuffers runs a shared WITH query, read twice through
// a nested loop, with a work_mem small enough that its stored rows spill.
// Every reference must read the same rows, and closing the statement must
// close the buffer and its spill file: no operator owns the buffer, so
// the statement's root (stmtOp) releases it.
func TestCTEScanReleasesBuffers(t *testing.T) {
	const n = 2000
	rows := make([][]types.Datum, n)
	for i := range rows {
		rows[i] = []types.Datum{types.NewInt(int64(i)), types.NewText(fmt.Sprintf("row %04d with some padding", i))}
	}
	query := valuesD(2, rows)
	ref := func(first bool) *planner.CTEScan {
		return &planner.CTEScan{ID: 1, Name: "x", Query: query, First: first}
	}
	// WITH x AS (...) SELECT * FROM (SELECT * FROM x LIMIT 10) a JOIN x b
	// ON a.column1 = b.column1, by a nested loop that rescans b.
	outer := &planner.Limit{Input: ref(true), Count: cint(10)}
	plan := joinNode(planner.InnerJoin, planner.NestedLoop, false, outer, ref(false))

	openBefore := spillFilesOpen.Load()
	createdBefore := spillFilesCreated.Load()
	ctx := testCtx(t, 16<<10)
	got := collect(t, ctx, plan)
	var want [][]types.Datum
	for _, r := range rows[:10] {
		want = append(want, []types.Datum{r[0], r[1], r[0], r[1]})
	}
	if g, w := render(got), render(want); g != w {
		t.Fatalf("got\n%s\nwant\n%s", g, w)
	}
	if spillFilesCreated.Load() == createdBefore {
		t.Fatal("the shared rows did not spill: the test does not cover a spill file")
	}
	if open := spillFilesOpen.Load() - openBefore; open != 0 {
		t.Fatalf("%d spill files still open after the statement closed", open)
	}
}
