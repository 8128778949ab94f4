package exec

import (
	"testing"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// dmlTable is t(id INT8 PRIMARY KEY, name VARCHAR(3) NOT NULL, u INT8
// UNIQUE) over a fresh memory engine.
func dmlTable(t *testing.T) (*Ctx, *catalog.Table) {
	tbl := &catalog.Table{ID: 50, Name: "t", PrimaryKey: []int{0}, PrimaryKeyDesc: []bool{false}, PrimaryKeyName: "t_pkey",
		Columns: []catalog.Column{
			{ID: 1, Name: "id", Type: intT, NotNull: true},
			{ID: 2, Name: "name", Type: types.T{Family: types.Varchar, Width: 3}, NotNull: true},
			{ID: 3, Name: "u", Type: intT},
		},
		Indexes:      []*catalog.Index{{ID: 51, Name: "t_u_key", Columns: []int{2}, Desc: []bool{false}, Unique: true, Form: catalog.FormUnique}},
		NextColumnID: 4}
	ctx := testCtx(t, 0)
	ctx.RW = kv.NewTxn(kv.NewMemory())
	return ctx, tbl
}

func scanAll(tbl *catalog.Table) *planner.Scan {
	return &planner.Scan{Table: tbl, Access: planner.FullScan, Cols: cols(len(tbl.Columns))}
}

func vrow(id int64, name string, u any) []planner.Expr {
	return []planner.Expr{cint(id), &planner.Const{Value: types.NewText(name), T: textT}, &planner.Const{Value: datum(u), T: intT}}
}

func TestInsertUpdateDelete(t *testing.T) {
	ctx, tbl := dmlTable(t)
	ins := &planner.Insert{Table: tbl, Input: &planner.Values{Rows: [][]planner.Expr{vrow(1, "a", 10), vrow(2, "b  ", nil), vrow(3, "c", 30)}, Cols: cols(3)},
		Returning: []planner.Expr{col(1)}, Cols: cols(1)}
	// "b  " fits VARCHAR(3); RETURNING shows the stored values.
	expectRows(t, collect(t, ctx, ins), `"a"`+"\n"+`"b  "`+"\n"+`"c"`)

	n, err := Run(ctx, &planner.Insert{Table: tbl, Input: &planner.Values{Rows: [][]planner.Expr{vrow(9, "toolong", nil)}, Cols: cols(3)}})
	if !pgerror.HasCode(err, pgerror.StringDataRightTruncation) || err.Error() != "value too long for type character varying(3)" {
		t.Errorf("varchar overflow: %d %v", n, err)
	}
	null := []planner.Expr{cint(9), cnull(), cnull()}
	if _, err := Run(ctx, &planner.Insert{Table: tbl, Input: &planner.Values{Rows: [][]planner.Expr{null}, Cols: cols(3)}}); !pgerror.HasCode(err, pgerror.NotNullViolation) {
		t.Errorf("not null: %v", err)
	}
	dup := &planner.Values{Rows: [][]planner.Expr{vrow(4, "d", 10), vrow(1, "e", nil)}, Cols: cols(3)}
	if _, err := Run(ctx, &planner.Insert{Table: tbl, Input: dup}); !pgerror.HasCode(err, pgerror.UniqueViolation) {
		t.Errorf("duplicate: %v", err)
	}
	if n, err := Run(ctx, &planner.Insert{Table: tbl, Input: dup, Conflict: planner.ConflictIgnore}); err != nil || n != 0 {
		t.Errorf("ignore: %d %v", n, err)
	}
	// Replace: (4,d,10) evicts row 1 (u=10), (1,e,NULL) then takes id 1.
	if n, err := Run(ctx, &planner.Insert{Table: tbl, Input: dup, Conflict: planner.ConflictReplace}); err != nil || n != 2 {
		t.Errorf("replace: %d %v", n, err)
	}
	expectRows(t, collect(t, ctx, scanAll(tbl)), `1 "e" NULL
2 "b  " NULL
3 "c" 30
4 "d" 10`)

	// UPDATE id = id + 10 must touch each row once (Halloween).
	upd := &planner.Update{Table: tbl, Input: scanAll(tbl), Set: []planner.Assignment{{Col: 0, Expr: bin("+", col(0), cint(10))}}}
	if n, err := Run(ctx, upd); err != nil || n != 4 {
		t.Fatalf("update: %d %v", n, err)
	}
	expectRows(t, collect(t, ctx, &planner.Scan{Table: tbl, Access: planner.PKRange, Spans: []planner.Span{{Lo: []planner.Expr{cint(12)}, Hi: []planner.Expr{cint(13)}}}, Cols: cols(3)}),
		`12 "b  " NULL
13 "c" 30`)
	// Unique index lookup, then master get.
	expectRows(t, collect(t, ctx, &planner.Scan{Table: tbl, Access: planner.UniqueGet, Index: tbl.Indexes[0], Spans: []planner.Span{{Lo: []planner.Expr{cint(30)}, Hi: []planner.Expr{cint(30)}}}, Cols: cols(3)}),
		`13 "c" 30`)

	del := &planner.Delete{Table: tbl, Input: &planner.Filter{Input: scanAll(tbl), Pred: bin("<", col(0), cint(13))}, Returning: []planner.Expr{col(0)}}
	expectRows(t, collect(t, ctx, del), "11\n12")
	expectRows(t, collect(t, ctx, scanAll(tbl)), `13 "c" 30
14 "d" 10`)

	// A lookup join through the primary key.
	lj := &planner.LookupJoin{Type: planner.LeftJoin, Left: values([]any{14}, []any{99}, []any{nil}), Table: tbl, Keys: []planner.Expr{col(0)}, Cols: cols(4)}
	expectRows(t, collect(t, ctx, lj), `14 14 "d" 10
99 NULL NULL NULL
NULL NULL NULL NULL`)
}

func TestSubqueries(t *testing.T) {
	ctx := testCtx(t, 0)
	inner := values([]any{1}, []any{2}, []any{nil})
	in := func(x planner.Expr, not bool) *planner.Subquery {
		return &planner.Subquery{Kind: planner.SubIn, Plan: inner, X: x, Not: not, T: boolT}
	}
	// Correlated: SELECT (SELECT outer.c0 + v.c0 FROM (VALUES (100)) v).
	corr := &planner.Subquery{Kind: planner.SubScalar, Correlated: true, T: intT,
		Plan: &planner.Project{Input: values([]any{100}), Exprs: []planner.Expr{bin("+", &planner.ColRef{Index: 0, Outer: 1, T: intT}, col(0))}, Cols: cols(1)}}
	p := &planner.Project{Input: values([]any{1}, []any{3}), Cols: cols(5), Exprs: []planner.Expr{
		in(col(0), false), in(col(0), true),
		&planner.Subquery{Kind: planner.SubExists, Plan: inner, T: boolT},
		&planner.Subquery{Kind: planner.SubAll, Op: ">", Plan: values([]any{0}), X: col(0), T: boolT},
		corr,
	}}
	expectRows(t, collect(t, ctx, p), "true false true true 101\nNULL NULL true true 103")
	scalar := &planner.Project{Input: values([]any{1}), Cols: cols(1), Exprs: []planner.Expr{&planner.Subquery{Kind: planner.SubScalar, Plan: inner, T: intT}}}
	if _, err := tryCollect(ctx, scalar); !pgerror.HasCode(err, pgerror.CardinalityViolation) {
		t.Errorf("want 21000, got %v", err)
	}
}

func TestAnalyzeStats(t *testing.T) {
	ctx := testCtx(t, 0)
	ctx.Analyze = true
	in := values([]any{1}, []any{2}, []any{3})
	f := &planner.Filter{Input: in, Pred: bin(">", col(0), cint(1))}
	if n, err := Run(ctx, f); err != nil || n != 2 {
		t.Fatalf("run: %d %v", n, err)
	}
	if rows, loops, _ := ctx.Stats.For(in); rows != 3 || loops != 1 {
		t.Errorf("values: rows %d loops %d", rows, loops)
	}
	if rows, _, _ := ctx.Stats.For(f); rows != 2 {
		t.Errorf("filter: rows %d", rows)
	}
}

// TestAssignChecks: coerceRow skips assignValue for a value that already
// has its column's kind unless assignChecks says assignValue may change
// or refuse it; a value each such family's check changes or refuses
// shows that the list is exactly the families assignValue checks.
func TestAssignChecks(t *testing.T) {
	for f := types.Unknown; f <= types.Enum; f++ {
		ct := types.T{Family: f, Width: 2, Scale: 1}
		if f == types.Array {
			ct.Elem = types.Int2
		}
		d := types.Datum{Kind: ct.Kind(), I: 1 << 40, F: 1e300, S: "abcdef"}
		got, err := assignValue(d, ct)
		changed := err != nil || got != d
		if changed != assignChecks(f) {
			t.Errorf("%s: assignValue changed or refused %v: %v (%v), assignChecks %v", f, d, changed, err, assignChecks(f))
		}
	}
}

// BenchmarkCoerceRow: coerceRow over a COPY's row of the bulk load
// bench's columns (INT, INT, DOUBLE PRECISION, TEXT), already of the
// columns' kinds.
func BenchmarkCoerceRow(b *testing.B) {
	tbl := &catalog.Table{ID: 50, Name: "t", Columns: []catalog.Column{
		{ID: 1, Name: "id", Type: types.T{Family: types.Int4}, NotNull: true},
		{ID: 2, Name: "k", Type: types.T{Family: types.Int4}, NotNull: true},
		{ID: 3, Name: "v", Type: types.T{Family: types.Float8}},
		{ID: 4, Name: "pad", Type: types.T{Family: types.Text}},
	}}
	rs := &runState{}
	row := make([]types.Datum, 4)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		row[0], row[1], row[2], row[3] = types.NewInt(int64(i)), types.NewInt(int64(i%1000)), types.NewFloat(1.5), types.NewText("padding")
		if err := coerceRow(rs, tbl, row, false, true); err != nil {
			b.Fatal(err)
		}
	}
}
