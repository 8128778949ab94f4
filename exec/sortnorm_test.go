package exec

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cockroachdb/apd/v3"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// rowsOp produces the rows it holds.
type rowsOp struct {
	rows [][]types.Datum
	i    int
}

func (r *rowsOp) Next() ([]types.Datum, error) {
	if r.i >= len(r.rows) {
		return nil, nil
	}
	r.i++
	return r.rows[r.i-1], nil
}
func (r *rowsOp) Close() error { return nil }

// sortValueGens makes random values of one kind each, with many ties and
// the values whose order is easy to get wrong: NaN, -0.0, numerics of
// different scales (1.0 = 1.00), intervals equal across units ('1 mon' =
// '30 days'), text that is a prefix of other text or holds 0x00 and 0xff.
// The last two mix kinds in one column or use kinds without a sort key,
// so the sort must fall back to the Datum comparator.
var sortValueGens = map[string]func(r *rand.Rand) types.Datum{
	"int": func(r *rand.Rand) types.Datum {
		return types.NewInt([]int64{math.MinInt64, -300, -1, 0, 1, 2, 63, 64, 300, math.MaxInt64}[r.IntN(10)])
	},
	"float": func(r *rand.Rand) types.Datum {
		return types.NewFloat([]float64{math.NaN(), math.Copysign(0, -1), 0, 1.5, -1.5, math.Inf(1), math.Inf(-1), 1e300, -1e-300, 2}[r.IntN(10)])
	},
	"text": func(r *rand.Rand) types.Datum {
		alpha := []string{"a", "b", "\x00", "\xff", "é", "A"}
		s := ""
		for range r.IntN(4) {
			s += alpha[r.IntN(len(alpha))]
		}
		return types.NewText(s)
	},
	"bytes": func(r *rand.Rand) types.Datum {
		b := make([]byte, r.IntN(3))
		for i := range b {
			b[i] = []byte{0, 1, 0xff}[r.IntN(3)]
		}
		return types.NewBytes(b)
	},
	"decimal": func(r *rand.Rand) types.Datum {
		s := []string{"1.0", "1.00", "1", "-2.5", "-2.50", "0", "0.000", "-0", "NaN", "Infinity", "-Infinity", "12.3456", "1e10", "0.001", "-0.001", "100"}[r.IntN(16)]
		d, _, err := apd.NewFromString(s)
		if err != nil {
			panic(err)
		}
		return types.NewDecimal(d)
	},
	"interval": func(r *rand.Rand) types.Datum {
		return types.NewInterval([]types.IntervalValue{{Months: 1}, {Days: 30}, {Micros: 30 * types.MicrosPerDay}, {Days: -1}, {Micros: 5}, {Months: -2, Days: 3}, {}}[r.IntN(7)])
	},
	"bool":      func(r *rand.Rand) types.Datum { return types.NewBool(r.IntN(2) == 0) },
	"date":      func(r *rand.Rand) types.Datum { return types.NewDate(int64(r.IntN(5) - 2)) },
	"timestamp": func(r *rand.Rand) types.Datum { return types.NewTimestamp(int64(r.IntN(5)-2) * 1e6) },
	"time":      func(r *rand.Rand) types.Datum { return types.NewTime(int64(r.IntN(3)) * 1e6) },
	"mixed": func(r *rand.Rand) types.Datum {
		if r.IntN(2) == 0 {
			return types.NewInt(int64(r.IntN(3)))
		}
		return types.NewFloat(float64(r.IntN(3)) - 0.5)
	},
	"jsonb": func(r *rand.Rand) types.Datum {
		return types.NewJSONB([]string{"1", "\"a\"", "[1]", "{}", "null"}[r.IntN(5)])
	},
}

// runSort sorts rows by keys and returns the output and whether the sort
// used normalized keys.
func runSort(t *testing.T, rows [][]types.Datum, keys []planner.SortKey, workMem int64, normalized bool) ([][]types.Datum, bool) {
	t.Helper()
	defer func(v bool) { normalizedSort = v }(normalizedSort)
	normalizedSort = normalized
	rs := newRunState(testCtx(t, workMem))
	s := newSort(rs, rs.env, &rowsOp{rows: rows}, keys, len(rows[0]))
	var out [][]types.Datum
	for {
		row, err := s.Next()
		if err != nil {
			t.Fatal(err)
		}
		if row == nil {
			break
		}
		out = append(out, append([]types.Datum(nil), row...))
	}
	used := !s.norm.off
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return out, used
}

// TestNormalizedSortMatchesDatumSort sorts random rows with normalized
// keys and with the Datum comparator and wants the same rows in the same
// order, which must also be the comparator's order with ties in
// PostgreSQL's order in memory and in input order when the sort spills
// (column 0 is the input position).
func TestNormalizedSortMatchesDatumSort(t *testing.T) {
	r := testRand(t)
	names := make([]string, 0, len(sortValueGens))
	for name := range sortValueGens {
		names = append(names, name)
	}
	slices.Sort(names) // map order is random: sort for a replayable seed
	usedNorm := 0
	for trial := range 300 {
		const ncol = 3
		var kinds [ncol]string
		for c := range kinds {
			kinds[c] = names[r.IntN(len(names))]
		}
		n := 1 + r.IntN(400)
		rows := make([][]types.Datum, n)
		for i := range rows {
			row := make([]types.Datum, ncol+1)
			row[0] = types.NewInt(int64(i))
			for c := range ncol {
				if r.IntN(5) > 0 {
					row[c+1] = sortValueGens[kinds[c]](r)
				}
			}
			rows[i] = row
		}
		keys := make([]planner.SortKey, 1+r.IntN(ncol))
		for i := range keys {
			keys[i] = planner.SortKey{Expr: col(1 + r.IntN(ncol)), Desc: r.IntN(2) == 0, NullsFirst: r.IntN(2) == 0}
		}
		var workMem int64
		if r.IntN(4) == 0 {
			workMem = 4 << 10 // spill
		}
		got, used := runSort(t, rows, keys, workMem, true)
		want, _ := runSort(t, rows, keys, workMem, false)
		if used {
			usedNorm++
		}
		if len(got) != n || len(want) != n {
			t.Fatalf("trial %d: %d and %d rows out of %d", trial, len(got), len(want), n)
		}
		sk := sortKeys{keys: keys, width: ncol + 1}
		env := newRunState(testCtx(t, 0)).env
		ext := func(row []types.Datum) []types.Datum {
			e := make([]types.Datum, sk.extendedWidth())
			if err := sk.extendInto(env, row, e); err != nil {
				t.Fatal(err)
			}
			return e
		}
		// In memory, equal keys take PostgreSQL's order (pgSort of the
		// input); spilled, input order.
		var pgOrder [][]types.Datum
		if workMem == 0 {
			for _, row := range rows {
				pgOrder = append(pgOrder, ext(row))
			}
			pgSort(pgOrder, sk.compare)
		}
		if pgOrder == nil {
			// Spilled, equal keys keep input order, but one of the two
			// may have fit where the other spilled.
			canon := func(rows [][]types.Datum) []int64 {
				var ids []int64
				start := 0
				for i := range rows {
					ids = append(ids, rows[i][0].I)
					if i+1 == len(rows) || sk.compare(ext(rows[i]), ext(rows[i+1])) != 0 {
						slices.Sort(ids[start:])
						start = i + 1
					}
				}
				return ids
			}
			if !slices.Equal(canon(got), canon(want)) {
				t.Fatalf("trial %d (kinds %v, keys %+v, workMem %d): the rows differ with normalized keys and with the comparator", trial, kinds, keys, workMem)
			}
		}
		for i := range got {
			if pgOrder != nil && got[i][0].I != want[i][0].I {
				t.Fatalf("trial %d (kinds %v, keys %+v, workMem %d): row %d is input row %d with normalized keys, %d with the comparator",
					trial, kinds, keys, workMem, i, got[i][0].I, want[i][0].I)
			}
			if pgOrder != nil && got[i][0].I != pgOrder[i][0].I {
				t.Fatalf("trial %d (kinds %v): row %d is input row %d, PostgreSQL's order has %d", trial, kinds, i, got[i][0].I, pgOrder[i][0].I)
			}
			if i == 0 {
				continue
			}
			c := sk.compare(ext(got[i-1]), ext(got[i]))
			if c > 0 {
				t.Fatalf("trial %d (kinds %v): rows %d and %d out of order: %v then %v", trial, kinds, i-1, i, got[i-1], got[i])
			}
		}
	}
	if usedNorm < 100 {
		t.Fatalf("only %d of 300 trials used normalized keys", usedNorm)
	}
	t.Logf("%d of 300 trials used normalized keys", usedNorm)
}
