package session_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/session"
)

// TestPartitionWritesConsistent: rows written, moved and deleted through
// a partitioned table land in the partitions' own key spaces with every
// index entry in place (index.Check), on both engines, and the parent's
// key space stays empty; a constant key in WHERE prunes the partitions
// that cannot hold it from the plan.
func TestPartitionWritesConsistent(t *testing.T) {
	testkit.ForEachEngine(t, func(t *testing.T, db *session.DB) {
		s := testkit.NewSession(t, db)
		testkit.Must(t, s, `CREATE TABLE m (k INT, v INT, w TEXT, PRIMARY KEY (k, v)) PARTITION BY RANGE (k)`)
		testkit.Must(t, s, `CREATE INDEX m_w ON m (w)`)
		testkit.Must(t, s, `CREATE TABLE m1 PARTITION OF m FOR VALUES FROM (0) TO (100)`)
		testkit.Must(t, s, `CREATE TABLE m2 PARTITION OF m FOR VALUES FROM (100) TO (200)`)
		testkit.Must(t, s, `CREATE TABLE m3 PARTITION OF m DEFAULT`)
		testkit.Must(t, s, `INSERT INTO m SELECT g, g % 7, 'w' || g FROM generate_series(0, 299) g`)
		testkit.Must(t, s, `UPDATE m SET k = k + 50 WHERE v = 3`)
		testkit.Must(t, s, `DELETE FROM m WHERE v = 5`)
		res, err := s.Exec(context.Background(), `SELECT count(*), sum(k) FROM m`)
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		sum := int64(0)
		for g := 0; g < 300; g++ {
			switch g % 7 {
			case 5:
			case 3:
				want++
				sum += int64(g + 50)
			default:
				want++
				sum += int64(g)
			}
		}
		if got := res[0].Rows[0]; got[0].I != int64(want) || got[1].I != sum {
			t.Errorf("count, sum = %v, want %d, %d", got, want, sum)
		}
		only, err := s.Exec(context.Background(), `SELECT count(*) FROM ONLY m`)
		if err != nil || only[0].Rows[0][0].I != 0 {
			t.Errorf("the partitioned table holds rows: %v %v", only, err)
		}
		for q, want := range map[string][]string{
			`SELECT * FROM m WHERE k = 150`:            {"Scan m2"},
			`SELECT * FROM m WHERE k < 100`:            {"Scan m1", "Scan m3"},
			`SELECT * FROM m WHERE k IN (5, 250)`:      {"Scan m1", "Scan m3"},
			`SELECT * FROM m WHERE k >= 100 AND v = 1`: {"Scan m2", "Scan m3"},
		} {
			plan := testkit.Query(t, s, "EXPLAIN "+q)
			for _, p := range []string{"Scan m1", "Scan m2", "Scan m3"} {
				if got := strings.Contains(plan, p); got != slices.Contains(want, p) {
					t.Errorf("%s: pruned to %v, plan\n%s", q, want, plan)
				}
			}
		}
		probs, err := index.Check(db.Engine(), db.Catalog())
		if err != nil || len(probs) > 0 {
			t.Errorf("index.Check: %v %v", probs, err)
		}
	})
}
