package session_test

import (
	"flag"
	"fmt"
	"math/rand"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/session"
)

var enumStoreSeed = flag.Int64("enumstoreseed", 0, "seed of TestEnumIndexes (0: time-based)")

// enumRow is a row of TestEnumIndexes' model: its labels ("" for NULL).
type enumRow struct{ m, m2, u string }

// TestEnumIndexes stores enum values in a primary key, a descending
// secondary index and a unique index while labels are added BEFORE,
// AFTER and at the end and renamed, on both engines: every read (ORDER
// BY through the key, a range through the index, min/max, the unique
// index) follows the declared order a model in Go keeps, and
// index.Check finds every index entry pointing at its master row and
// every row with all its entries.
func TestEnumIndexes(t *testing.T) {
	seed := *enumStoreSeed
	if seed == 0 {
		seed = rand.Int63()
	}
	t.Logf("seed %d (rerun with -enumstoreseed)", seed)
	testkit.ForEachEngine(t, func(t *testing.T, db *session.DB) {
		r := rand.New(rand.NewSource(seed))
		s := testkit.NewSession(t, db)
		var log []string // the statements run, shown when a check fails
		must := func(sql string) {
			t.Helper()
			log = append(log, sql)
			testkit.Must(t, s, sql)
		}
		defer func() {
			if t.Failed() {
				t.Logf("statements:\n%s", strings.Join(log, ";\n"))
			}
		}()
		labels := []string{"l0", "l1", "l2"} // in declared order
		must(`CREATE TYPE lv AS ENUM ('l0', 'l1', 'l2')`)
		must(`CREATE TABLE t (m lv, id int, m2 lv, u lv, PRIMARY KEY (m, id))`)
		must(`CREATE INDEX t_m2 ON t (m2 DESC)`)
		must(`CREATE UNIQUE INDEX t_u ON t (u)`)
		rows := map[int]enumRow{}
		nextID, nextLabel := 0, 3
		pick := func() string { return labels[r.Intn(len(labels))] }
		for step := 0; step < 60; step++ {
			switch op := r.Intn(10); {
			case op < 2: // a new label BEFORE, AFTER or at the end
				l := "l" + strconv.Itoa(nextLabel)
				nextLabel++
				i := r.Intn(len(labels))
				switch r.Intn(3) {
				case 0:
					must(fmt.Sprintf(`ALTER TYPE lv ADD VALUE '%s' BEFORE '%s'`, l, labels[i]))
					labels = slices.Insert(labels, i, l)
				case 1:
					must(fmt.Sprintf(`ALTER TYPE lv ADD VALUE '%s' AFTER '%s'`, l, labels[i]))
					labels = slices.Insert(labels, i+1, l)
				default:
					must(fmt.Sprintf(`ALTER TYPE lv ADD VALUE '%s'`, l))
					labels = append(labels, l)
				}
			case op < 3: // a rename: stored values show the new label
				i := r.Intn(len(labels))
				l := "r" + strconv.Itoa(nextLabel)
				nextLabel++
				must(fmt.Sprintf(`ALTER TYPE lv RENAME VALUE '%s' TO '%s'`, labels[i], l))
				for id, rw := range rows {
					for _, p := range []*string{&rw.m, &rw.m2, &rw.u} {
						if *p == labels[i] {
							*p = l
						}
					}
					rows[id] = rw
				}
				labels[i] = l
			case op < 7: // a row in
				rw := enumRow{m: pick(), m2: pick()}
				u, lit := pick(), "NULL"
				if !slices.ContainsFunc(mapValues(rows), func(x enumRow) bool { return x.u == u }) {
					rw.u, lit = u, "'"+u+"'"
				}
				must(fmt.Sprintf(`INSERT INTO t VALUES ('%s', %d, '%s', %s)`, rw.m, nextID, rw.m2, lit))
				rows[nextID] = rw
				nextID++
			case len(rows) > 0: // an update (of the key, or not) or a delete
				ids := make([]int, 0, len(rows))
				for id := range rows {
					ids = append(ids, id)
				}
				sort.Ints(ids)
				id := ids[r.Intn(len(ids))]
				rw := rows[id]
				switch r.Intn(3) {
				case 0:
					nm := pick()
					must(fmt.Sprintf(`UPDATE t SET m = '%s' WHERE id = %d`, nm, id))
					rw.m = nm
					rows[id] = rw
				case 1:
					nm := pick()
					must(fmt.Sprintf(`UPDATE t SET m2 = '%s' WHERE m = '%s' AND id = %d`, nm, rw.m, id))
					rw.m2 = nm
					rows[id] = rw
				default:
					must(fmt.Sprintf(`DELETE FROM t WHERE m = '%s' AND id = %d`, rw.m, id))
					delete(rows, id)
				}
			}
			checkEnumRows(t, s, labels, rows, pick())
		}
		probs, err := index.Check(db.Engine(), db.Catalog())
		if err != nil || len(probs) > 0 {
			t.Errorf("index.Check: %v %v", probs, err)
		}
	})
}

func mapValues(m map[int]enumRow) []enumRow {
	out := make([]enumRow, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// checkEnumRows compares what the table reads in enum order, through
// its primary key, its descending index on m2 (from the label from up)
// and its unique index, with the model.
func checkEnumRows(t *testing.T, s *session.Session, labels []string, rows map[int]enumRow, from string) {
	t.Helper()
	pos := func(l string) int { return slices.Index(labels, l) }
	ids := make([]int, 0, len(rows))
	for id := range rows {
		ids = append(ids, id)
	}
	line := func(id int, l string) string { return strconv.Itoa(id) + " " + strconv.Quote(l) }
	sort.Slice(ids, func(i, j int) bool {
		a, b := rows[ids[i]], rows[ids[j]]
		return pos(a.m) < pos(b.m) || pos(a.m) == pos(b.m) && ids[i] < ids[j]
	})
	var want []string
	for _, id := range ids {
		want = append(want, line(id, rows[id].m))
	}
	if got := testkit.Query(t, s, `SELECT id, m::text AS l FROM t ORDER BY m, id`); got != strings.Join(want, "\n") {
		t.Fatalf("by primary key (labels %v):\n%s\nwant\n%s", labels, got, strings.Join(want, "\n"))
	}
	sort.Slice(ids, func(i, j int) bool {
		a, b := rows[ids[i]], rows[ids[j]]
		return pos(a.m2) > pos(b.m2) || pos(a.m2) == pos(b.m2) && ids[i] < ids[j]
	})
	want = want[:0]
	for _, id := range ids {
		if pos(rows[id].m2) >= pos(from) {
			want = append(want, line(id, rows[id].m2))
		}
	}
	q := fmt.Sprintf(`SELECT id, m2::text AS l FROM t WHERE m2 >= '%s' ORDER BY m2 DESC, id`, from)
	if got := testkit.Query(t, s, q); got != strings.Join(want, "\n") {
		t.Fatalf("%s (labels %v):\n%s\nwant\n%s", q, labels, got, strings.Join(want, "\n"))
	}
	var us []string
	for _, rw := range rows {
		if rw.u != "" {
			us = append(us, rw.u)
		}
	}
	sort.Slice(us, func(i, j int) bool { return pos(us[i]) < pos(us[j]) })
	want = want[:0]
	for _, u := range us {
		want = append(want, strconv.Quote(u))
	}
	if got := testkit.Query(t, s, `SELECT u::text AS l FROM t WHERE u IS NOT NULL ORDER BY u`); got != strings.Join(want, "\n") {
		t.Fatalf("unique index (labels %v):\n%s\nwant\n%s", labels, got, strings.Join(want, "\n"))
	}
}
