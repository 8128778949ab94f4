package exec

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

var seedFlag = flag.Uint64("seed", 0, "seed for randomized tests (0: time-based)")

// testRand returns a seeded generator and logs the seed so a failure can
// be replayed with -seed.
func testRand(t testing.TB) *rand.Rand {
	seed := *seedFlag
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("seed %d (rerun with -seed %d)", seed, seed)
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

var (
	intT  = types.T{Family: types.Int8}
	textT = types.T{Family: types.Text}
	boolT = types.T{Family: types.Bool}
)

func col(i int) *planner.ColRef   { return &planner.ColRef{Index: i, T: intT} }
func tcol(i int) *planner.ColRef  { return &planner.ColRef{Index: i, T: textT} }
func cint(v int64) *planner.Const { return &planner.Const{Value: types.NewInt(v), T: intT} }
func cnull() *planner.Const       { return &planner.Const{T: intT} }
func bin(op string, l, r planner.Expr) *planner.BinOp {
	t := intT
	switch op {
	case "=", "<>", "<", "<=", ">", ">=":
		t = boolT
	}
	return &planner.BinOp{Op: op, L: l, R: r, T: t}
}

// datum builds a Datum from a Go value (nil is NULL).
func datum(v any) types.Datum {
	switch v := v.(type) {
	case nil:
		return types.Null
	case int:
		return types.NewInt(int64(v))
	case int64:
		return types.NewInt(v)
	case float64:
		return types.NewFloat(v)
	case string:
		return types.NewText(v)
	case bool:
		return types.NewBool(v)
	case types.Datum:
		return v
	}
	panic(fmt.Sprintf("datum: %T", v))
}

func cols(n int) []planner.Column {
	c := make([]planner.Column, n)
	for i := range c {
		c[i] = planner.Column{Name: fmt.Sprintf("c%d", i), T: intT}
	}
	return c
}

// values builds a Values node of constant rows.
func values(rows ...[]any) *planner.Values {
	v := &planner.Values{}
	w := 0
	for _, r := range rows {
		w = len(r)
		var es []planner.Expr
		for _, x := range r {
			d := datum(x)
			es = append(es, &planner.Const{Value: d, T: intT})
		}
		v.Rows = append(v.Rows, es)
	}
	v.Cols = cols(w)
	return v
}

// valuesD builds a Values node from Datum rows.
func valuesD(width int, rows [][]types.Datum) *planner.Values {
	v := &planner.Values{Cols: cols(width), Rows: make([][]planner.Expr, len(rows))}
	for i, r := range rows {
		es := make([]planner.Expr, len(r))
		for j, d := range r {
			es[j] = &planner.Const{Value: d, T: intT}
		}
		v.Rows[i] = es
	}
	return v
}

func testCtx(t testing.TB, workMem int64) *Ctx {
	return &Ctx{Context: context.Background(), WorkMem: workMem, TempDir: t.TempDir(), Now: time.Unix(0, 0)}
}

// collect runs n to the end and returns copies of its rows.
func collect(t testing.TB, ctx *Ctx, n planner.Node) [][]types.Datum {
	t.Helper()
	rows, err := tryCollect(ctx, n)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	return rows
}

func tryCollect(ctx *Ctx, n planner.Node) ([][]types.Datum, error) {
	op, err := Build(ctx, n)
	if err != nil {
		return nil, err
	}
	var rows [][]types.Datum
	for {
		r, err := op.Next()
		if err != nil {
			op.Close()
			return rows, err
		}
		if r == nil {
			break
		}
		rows = append(rows, copyRow(r))
	}
	return rows, op.Close()
}

// render prints rows one per line, for comparisons.
func render(rows [][]types.Datum) string {
	var b strings.Builder
	for _, r := range rows {
		for i, d := range r {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(d.String())
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// sorted renders rows in a canonical order (for order-insensitive
// comparisons).
func sorted(rows [][]types.Datum) string {
	lines := strings.Split(strings.TrimSuffix(render(rows), "\n"), "\n")
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// tiesIn returns a renderer of sorted rows that does not see the order
// of rows equal in the columns cols: each run of such rows renders in
// sorted order, the runs in the order they come.
func tiesIn(cols ...int) func([][]types.Datum) string {
	return func(rows [][]types.Datum) string {
		var out, run []string
		var runKey string
		for _, r := range rows {
			var k strings.Builder
			for _, c := range cols {
				k.WriteString(r[c].String())
				k.WriteByte(0)
			}
			if k.String() != runKey {
				slices.Sort(run)
				out, run, runKey = append(out, run...), run[:0], k.String()
			}
			run = append(run, render([][]types.Datum{r}))
		}
		slices.Sort(run)
		return strings.Join(append(out, run...), "")
	}
}

func expectRows(t *testing.T, got [][]types.Datum, want string) {
	t.Helper()
	if g := strings.TrimSpace(render(got)); g != strings.TrimSpace(want) {
		t.Errorf("rows:\n%s\nwant:\n%s", g, strings.TrimSpace(want))
	}
}

// assertEmptyDir fails if dir holds any file.
func assertEmptyDir(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 0 {
		t.Errorf("%d files left in %s", len(ents), dir)
	}
}

// testRNG is a randomized test's source: from seed (a test flag's
// value) when set, else a fresh seed, logged so that a failure can be
// rerun with -flag.
func testRNG(t testing.TB, seed uint64, flag string, stream uint64) *rand.Rand {
	if seed == 0 {
		seed = rand.Uint64()
	}
	t.Logf("seed %d (rerun with -%s %d)", seed, flag, seed)
	return rand.New(rand.NewPCG(seed, stream))
}

// memPebble is a Pebble engine in memory, closed when the test ends.
func memPebble(t testing.TB, name string) kv.Engine {
	e, err := kv.OpenPebble(name, kv.PebbleOptions{FS: vfs.NewMem()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}
