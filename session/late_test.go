package session_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/session"
	"github.com/kvsql/kvsql/types"
)

// TestLateMaterialization: a filtered master scan decodes the filter's
// columns for every row and the others only for rows that pass. Whatever
// the filter reads, every produced row must be whole and right: checked
// against a model, with rows written before an ADD COLUMN (their new
// column comes from the default), a reverse scan, a filter on the key
// alone, and UPDATE/DELETE whose input rows are filtered the same way.
func TestLateMaterialization(t *testing.T) {
	testkit.ForEachEngine(t, checkLate)
}

type lateRow struct {
	id, a, d int64
	b, c, e  string
}

func checkLate(t *testing.T, db *session.DB) {
	ctx := context.Background()
	s, err := db.Session("")
	if err != nil {
		t.Fatal(err)
	}
	exec := func(sql string) [][]types.Datum {
		t.Helper()
		res, err := s.Exec(ctx, sql)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return res[len(res)-1].Rows
	}
	var model []lateRow
	exec("CREATE TABLE lt (id INT PRIMARY KEY, a INT, b TEXT, c TEXT, d INT)")
	var ins strings.Builder
	for i := int64(0); i < 300; i++ {
		r := lateRow{id: i, a: i % 7, b: fmt.Sprintf("b%d", i), c: strings.Repeat("c", int(i%5)), d: i * 3 % 11, e: "dflt"}
		if i == 150 {
			exec(ins.String())
			ins.Reset()
			exec("ALTER TABLE lt ADD COLUMN e TEXT DEFAULT 'dflt'")
		}
		if ins.Len() == 0 {
			ins.WriteString("INSERT INTO lt VALUES ")
		} else {
			ins.WriteString(", ")
		}
		if i < 150 {
			fmt.Fprintf(&ins, "(%d, %d, '%s', '%s', %d)", r.id, r.a, r.b, r.c, r.d)
		} else {
			r.e = fmt.Sprintf("e%d", i)
			fmt.Fprintf(&ins, "(%d, %d, '%s', '%s', %d, '%s')", r.id, r.a, r.b, r.c, r.d, r.e)
		}
		model = append(model, r)
	}
	exec(ins.String())

	same := func(sql string, got [][]types.Datum, want []lateRow, cols func(lateRow) []any) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %d rows, want %d", sql, len(got), len(want))
		}
		for i, w := range want {
			exp := fmt.Sprint(cols(w)...)
			var vals []any
			for _, d := range got[i] {
				if d.Kind == types.KindInt {
					vals = append(vals, d.I)
				} else {
					vals = append(vals, d.S)
				}
			}
			if g := fmt.Sprint(vals...); g != exp {
				t.Fatalf("%s: row %d = %s, want %s", sql, i, g, exp)
			}
		}
	}
	filter := func(keep func(lateRow) bool, reverse bool) []lateRow {
		var out []lateRow
		for _, r := range model {
			if keep(r) {
				out = append(out, r)
			}
		}
		if reverse {
			for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
				out[i], out[j] = out[j], out[i]
			}
		}
		return out
	}
	all := func(r lateRow) []any { return []any{r.id, r.a, r.b, r.c, r.d, r.e} }

	q := "SELECT b, c, e, id FROM lt WHERE a = 3 ORDER BY id"
	same(q, exec(q), filter(func(r lateRow) bool { return r.a == 3 }, false), func(r lateRow) []any { return []any{r.b, r.c, r.e, r.id} })
	q = "SELECT * FROM lt WHERE d < 4 AND c <> '' ORDER BY id DESC"
	same(q, exec(q), filter(func(r lateRow) bool { return r.d < 4 && r.c != "" }, true), all)
	q = "SELECT * FROM lt WHERE 1 = 1 AND id >= 140 AND id < 160 ORDER BY id"
	same(q, exec(q), filter(func(r lateRow) bool { return r.id >= 140 && r.id < 160 }, false), all)
	q = "SELECT e, a FROM lt WHERE e <> 'dflt' AND a = 0 ORDER BY id"
	same(q, exec(q), filter(func(r lateRow) bool { return r.e != "dflt" && r.a == 0 }, false), func(r lateRow) []any { return []any{r.e, r.a} })

	// UPDATE and DELETE read their rows through the same filtered scan and
	// must write whole rows back.
	exec("UPDATE lt SET a = a + 100 WHERE d = 5")
	for i := range model {
		if model[i].d == 5 {
			model[i].a += 100
		}
	}
	q = "DELETE FROM lt WHERE a = 6 RETURNING *"
	same(q, exec(q), filter(func(r lateRow) bool { return r.a == 6 }, false), all)
	model = filter(func(r lateRow) bool { return r.a != 6 }, false)
	q = "SELECT * FROM lt ORDER BY id"
	same(q, exec(q), model, all)
}
