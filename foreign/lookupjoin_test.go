package foreign_test

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
	"time"
)

// genJoin returns a random join whose inner side is a foreign table
// keyed by the outer row (native → foreign in fl, foreign → foreign in
// both stores), with random filters; the planner should make most of
// them lookup joins.
func genJoin(rng *rand.Rand, db string) string {
	n := rng.Intn(60)
	filter := func(col string) string {
		switch rng.Intn(4) {
		case 0:
			return fmt.Sprintf(" AND %s < %d", col, n)
		case 1:
			return fmt.Sprintf(" AND %s IN (%d, %d, %d)", col, n, rng.Intn(60), rng.Intn(60))
		}
		return ""
	}
	kind := []string{"JOIN", "JOIN", "LEFT JOIN"}[rng.Intn(3)]
	if db == "fl" {
		switch rng.Intn(6) {
		case 0:
			return fmt.Sprintf("SELECT o.id, o.tag, x.* FROM nat o %s ta x ON x.id = o.id WHERE true%s", kind, filter("o.id"))
		case 1:
			return fmt.Sprintf("SELECT o.id, x.* FROM nat o %s tp x ON x.g = o.id %% 6 WHERE true%s", kind, filter("o.id"))
		case 2:
			return fmt.Sprintf("SELECT p.*, x.name, x.score FROM tp p %s ta x ON x.id = p.id AND x.score > %d WHERE p.g = %d", kind, rng.Intn(60)-20, rng.Intn(6))
		case 3:
			return fmt.Sprintf("SELECT o.id, count(x.id), sum(x.score) FROM nat o %s ta x ON x.id = o.id + 1 WHERE true%s GROUP BY o.id", kind, filter("o.id"))
		case 4:
			return fmt.Sprintf("SELECT o.tag, p.id, x.name FROM nat o JOIN tp p ON p.g = o.id %% 6 %s ta x ON x.id = p.id WHERE o.id < %d", kind, n)
		default:
			return fmt.Sprintf("SELECT o.id FROM nat o WHERE EXISTS (SELECT 1 FROM ta x WHERE x.id = o.id AND x.score > %d)%s", rng.Intn(60)-20, filter("o.id"))
		}
	}
	switch rng.Intn(3) {
	case 0:
		return fmt.Sprintf("SELECT q.*, x.name FROM tq q %s tj x ON x.g = q.g AND x.id = q.id WHERE q.g = %d", kind, rng.Intn(6))
	case 1:
		return fmt.Sprintf("SELECT f.id, x.* FROM tf f %s tj x ON x.g = f.id %% 6 WHERE f.id < %d", kind, rng.Intn(10))
	}
	return fmt.Sprintf("SELECT f.name, q.* FROM tf f %s tq q ON q.g = f.score %% 6 WHERE f.id IN (%d, %d)", kind, rng.Intn(60), rng.Intn(60))
}

// TestDifferentialLookupJoins runs random joins into foreign tables and
// the same joins over kvsql's own tables, wants the same answers, and
// wants the planner to have made lookup joins of most of them.
func TestDifferentialLookupJoins(t *testing.T) {
	seed := *seedFlag
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	t.Logf("seed %d (rerun with -seed %d)", seed, seed)
	rng := rand.New(rand.NewSource(seed))
	f := openFixture(t, rng)
	const queries = 200
	lookups := 0
	for i := 0; i < queries; i++ {
		db := []string{"fl", "fp"}[i%2]
		q := genJoin(rng, db)
		s := f.fl
		if db == "fp" {
			s = f.fp
		}
		want := rowsText(mustExec(t, f.native, q))
		got := rowsText(mustExec(t, s, q))
		plan := rowsText(mustExec(t, s, "EXPLAIN "+q))
		if got != want {
			t.Fatalf("seed %d, query %d on %s:\n%s\nplan:\n%s\ngot:\n%s\nwant:\n%s", seed, i, db, q, plan, got, want)
		}
		if strings.Contains(plan, "LookupJoin foreign prefix scan") || strings.Contains(plan, "LookupJoin (left) foreign prefix scan") {
			lookups++
		}
	}
	t.Logf("%d of %d joins planned as foreign lookup joins", lookups, queries)
	if lookups < queries/2 {
		t.Errorf("only %d of %d joins were foreign lookup joins", lookups, queries)
	}
}
