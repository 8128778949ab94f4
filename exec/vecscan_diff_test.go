package exec

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"testing"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// TestBatchScanReadersDifferential compares the batch scan (serial, and
// parallel in key order and unordered) with the row scan over a random
// table of every scalar vector type with NULLs, loaded, compacted, then
// updated and deleted in two more rounds so tombstones and newer versions
// sit above the rows in several levels and in the memtable. Each plan is
// read through a read-only kv.Txn (the raw Pebble stepping), through a
// snapshot reader wrapping its iterators as an autocommit query's does
// (wrappedReader), and inside a transaction with its own uncommitted
// inserts, updates and deletes. Unordered answers are compared sorted.
func TestBatchScanReadersDifferential(t *testing.T) {
	rng := testRNG(t, *seedFlag, "seed", 5)
	e := memPebble(t, "readers")
	dateT, tsT := types.T{Family: types.Date}, types.T{Family: types.Timestamp}
	byteaT := types.T{Family: types.Bytea}
	colTypes := []types.T{intT, intT, floatT, textT, boolT, dateT, tsT, byteaT}
	tbl := &catalog.Table{ID: 95, Name: "readers", PrimaryKey: []int{0}, PrimaryKeyDesc: []bool{false}, NextColumnID: uint32(len(colTypes) + 1)}
	for i, ct := range colTypes {
		tbl.Columns = append(tbl.Columns, catalog.Column{ID: uint32(i + 1), Name: fmt.Sprintf("c%d", i), Type: ct})
	}
	const rows = 12_000
	randRow := func(id int64) []types.Datum {
		row := []types.Datum{types.NewInt(id), types.NewInt(int64(rng.IntN(100))), types.NewFloat(rng.NormFloat64()),
			types.NewText([]string{"", "x", "padding twenty bytes", "ä€"}[rng.IntN(4)]), types.NewBool(rng.IntN(2) == 0),
			types.NewDate(int64(rng.IntN(20000) - 10000)), types.NewTimestamp(rng.Int64N(1 << 50)), types.NewBytes([]byte{byte(rng.IntN(256)), 0})}
		for c := 1; c < len(row); c++ {
			if rng.IntN(8) == 0 {
				row[c] = types.Null
			}
		}
		return row
	}
	live := map[int64][]types.Datum{}
	write := func(rw kv.ReadWriter, id int64) {
		var err error
		old, ok := live[id]
		switch {
		case ok && rng.IntN(3) == 0:
			err = index.Delete(rw, tbl, old)
			delete(live, id)
		case ok:
			row := randRow(id)
			err = index.Update(rw, tbl, old, row)
			live[id] = row
		default:
			row := randRow(id)
			err = index.Insert(rw, tbl, row)
			live[id] = row
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	for round := range 3 {
		txn := kv.NewTxn(e)
		n := rows
		if round > 0 {
			n = rows / 5
		}
		for i := range n {
			id := int64(i)
			if round > 0 {
				id = rng.Int64N(rows + rows/10)
			}
			write(txn, id)
		}
		if err := txn.Commit(false); err != nil {
			t.Fatal(err)
		}
		if round == 0 {
			if err := e.Compact([]byte{0}, []byte{0xff}); err != nil {
				t.Fatal(err)
			}
		}
		if round == 1 {
			// Half the range into sstables: older versions below, the
			// last round's writes in the memtable above.
			lo := index.MasterKeyOfRow(nil, tbl, []types.Datum{types.NewInt(0)})
			hi := index.MasterKeyOfRow(nil, tbl, []types.Datum{types.NewInt(rows / 2)})
			if err := e.Compact(lo, hi); err != nil {
				t.Fatal(err)
			}
		}
	}
	committed := maps.Clone(live)
	for iter := range 24 {
		cols := rng.Perm(len(colTypes))[:1+rng.IntN(len(colTypes))]
		exprs := make([]planner.Expr, len(cols))
		pcols := make([]planner.Column, len(cols))
		for i, c := range cols {
			exprs[i] = &planner.ColRef{Index: c, T: colTypes[c]}
			pcols[i] = planner.Column{Name: tbl.Columns[c].Name, T: colTypes[c]}
		}
		keep := []int64{-1, 0, 5, 50, 100}[rng.IntN(5)]
		filter, fname := readersFilter(rng.IntN(len(readersFilters)+1), keep)
		plan := func() planner.Node {
			sc := &planner.Scan{Table: tbl, Access: planner.FullScan, Cols: tableCols(tbl)}
			if keep >= 0 {
				sc.Filter = filter
			}
			return &planner.Project{Input: sc, Exprs: exprs, Cols: pcols}
		}
		reader := []string{"txn", "snapshot", "own-writes"}[iter%3]
		var own *kv.Txn
		if reader == "own-writes" {
			own = kv.NewTxn(e)
			live = maps.Clone(committed)
			for range 200 {
				write(own, rng.Int64N(rows+rows/10))
			}
		}
		name := fmt.Sprintf("iter %d (%s): columns %v, %s", iter, reader, cols, fname)
		var want [][]types.Datum
		for _, mode := range []string{"rows", "batches", "parallel", "unordered"} {
			n := plan()
			markVec(n, mode != "rows", mode == "parallel" || mode == "unordered")
			n.(*planner.Project).Input.(*planner.Scan).Unordered = mode == "unordered"
			ctx := testCtx(t, 1<<30)
			var snap kv.Snapshot
			switch reader {
			case "txn":
				ctx.RW, ctx.ReadOnly = kv.NewTxn(e), true
			case "snapshot":
				snap = e.NewSnapshot()
				ctx.RW, ctx.ReadOnly = kv.NewTxn(e), true
				ctx.Read = wrappedReader{snap}
			default:
				ctx.RW = own
			}
			got := collect(t, ctx, n)
			if snap != nil {
				_ = snap.Close()
			}
			if mode == "rows" {
				want = got
				continue
			}
			if mode == "unordered" {
				sortRows(got)
				want = slices.Clone(want)
				sortRows(want)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: %s gives %d rows, rows gives %d; first difference at %d", name, mode, len(got), len(want), firstDiff(got, want))
			}
		}
		if own != nil {
			own.Rollback()
		}
	}
}

// sortRows orders rows by their printed form: a total order for
// comparing multisets.
func sortRows(rows [][]types.Datum) {
	slices.SortFunc(rows, func(a, b []types.Datum) int {
		x, y := fmt.Sprint(a), fmt.Sprint(b)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
}

// readersFilters are the filter shapes TestBatchScanReadersDifferential
// draws from (c1 INT, c3 TEXT, c5 DATE; c0 the key), with k the drawn
// constant: those whose leading conjuncts compare an integer value column
// with a constant take the scan's pre-filter (vecscan.go addRowPre), the
// others show where it must not (a leading text, key or NULL comparison,
// OR, two columns).
var readersFilters = []struct {
	name string
	make func(k int64) planner.Expr
}{
	{"c1 = k", func(k int64) planner.Expr { return bin("=", col(1), cint(k)) }},
	{"k > c1", func(k int64) planner.Expr { return bin(">", cint(k), col(1)) }},
	{"c1 <> k", func(k int64) planner.Expr { return bin("<>", col(1), cint(k)) }},
	{"c1 >= k AND c5 < date", func(k int64) planner.Expr {
		return &planner.And{Args: []planner.Expr{bin(">=", col(1), cint(k)),
			bin("<", &planner.ColRef{Index: 5, T: types.T{Family: types.Date}}, &planner.Const{Value: types.NewDate(k * 100), T: types.T{Family: types.Date}})}}
	}},
	{"c1 <= k AND c3 = 'x'", func(k int64) planner.Expr {
		return &planner.And{Args: []planner.Expr{bin("<=", col(1), cint(k)), bin("=", tcol(3), &planner.Const{Value: types.NewText("x"), T: textT})}}
	}},
	{"c3 = 'x' AND c1 < k", func(k int64) planner.Expr {
		return &planner.And{Args: []planner.Expr{bin("=", tcol(3), &planner.Const{Value: types.NewText("x"), T: textT}), bin("<", col(1), cint(k))}}
	}},
	{"c1 > k AND c0 < 5000", func(k int64) planner.Expr {
		return &planner.And{Args: []planner.Expr{bin(">", col(1), cint(k)), bin("<", col(0), cint(5000))}}
	}},
	{"c0 < 5000 AND c1 > k", func(k int64) planner.Expr {
		return &planner.And{Args: []planner.Expr{bin("<", col(0), cint(5000)), bin(">", col(1), cint(k))}}
	}},
	{"c1 = k OR c1 IS NULL", func(k int64) planner.Expr {
		return &planner.Or{Args: []planner.Expr{bin("=", col(1), cint(k)), &planner.IsNull{X: col(1)}}}
	}},
	{"c1 < k AND c1 = NULL", func(k int64) planner.Expr {
		return &planner.And{Args: []planner.Expr{bin("<", col(1), cint(k)), bin("=", col(1), cnull())}}
	}},
	{"c1 < c0 AND c1 < k", func(k int64) planner.Expr {
		return &planner.And{Args: []planner.Expr{bin("<", col(1), col(0)), bin("<", col(1), cint(k))}}
	}},
}

// readersFilter returns filter shape i (the last index: c1 < k, the
// test's first shape) with constant k, and its name.
func readersFilter(i int, k int64) (planner.Expr, string) {
	if i >= len(readersFilters) {
		return bin("<", col(1), cint(k)), fmt.Sprintf("c1 < %d", k)
	}
	f := readersFilters[i]
	return f.make(k), fmt.Sprintf("%s (k = %d)", f.name, k)
}

// TestVecScanPreFilterAbsentColumn: the pre-filter over a column added
// after some rows were written (their values lack it, so it reads as its
// default) and holding NULLs in others gives the row scan's answer, with
// the column first and second in the filter.
func TestVecScanPreFilterAbsentColumn(t *testing.T) {
	rng := testRNG(t, *seedFlag, "seed", 7)
	e := memPebble(t, "absent")
	old := &catalog.Table{ID: 96, Name: "absent", PrimaryKey: []int{0}, PrimaryKeyDesc: []bool{false}, NextColumnID: 3,
		Columns: []catalog.Column{{ID: 1, Name: "id", Type: intT}, {ID: 2, Name: "a", Type: intT}}}
	tbl := &catalog.Table{ID: 96, Name: "absent", PrimaryKey: []int{0}, PrimaryKeyDesc: []bool{false}, NextColumnID: 4,
		Columns: append(slices.Clone(old.Columns), catalog.Column{ID: 3, Name: "b", Type: intT, Default: "7", DefaultValue: types.NewInt(7)})}
	txn := kv.NewTxn(e)
	for id := range 3000 {
		var err error
		if id%2 == 0 {
			err = index.Insert(txn, old, []types.Datum{types.NewInt(int64(id)), types.NewInt(int64(rng.IntN(100)))})
		} else {
			b := types.NewInt(int64(rng.IntN(10)))
			if rng.IntN(5) == 0 {
				b = types.Null
			}
			err = index.Insert(txn, tbl, []types.Datum{types.NewInt(int64(id)), types.NewInt(int64(rng.IntN(100))), b})
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := txn.Commit(false); err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		name   string
		filter planner.Expr
	}{
		{"b = 7", bin("=", col(2), cint(7))},
		{"b <> 7", bin("<>", col(2), cint(7))},
		{"b = 7 AND a < 50", &planner.And{Args: []planner.Expr{bin("=", col(2), cint(7)), bin("<", col(1), cint(50))}}},
		{"a < 50 AND b > 3", &planner.And{Args: []planner.Expr{bin("<", col(1), cint(50)), bin(">", col(2), cint(3))}}},
	} {
		var want [][]types.Datum
		for _, mode := range []string{"rows", "batches", "parallel"} {
			sc := &planner.Scan{Table: tbl, Access: planner.FullScan, Cols: tableCols(tbl), Filter: f.filter}
			var n planner.Node = &planner.Project{Input: sc, Exprs: []planner.Expr{col(0), col(1), col(2)}, Cols: cols(3)}
			markVec(n, mode != "rows", mode == "parallel")
			ctx := testCtx(t, 1<<30)
			ctx.RW, ctx.ReadOnly = kv.NewTxn(e), true
			got := collect(t, ctx, n)
			if mode == "rows" {
				if len(got) == 0 {
					t.Fatalf("%s: no rows: the test reads nothing", f.name)
				}
				want = got
				continue
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: %s gives %d rows, rows gives %d; first difference at %d", f.name, mode, len(got), len(want), firstDiff(got, want))
			}
		}
	}
}
