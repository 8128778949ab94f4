package session_test

import (
	"testing"

	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/pgerror"
)

// TestModifyingWithRefused: EXPLAIN of a statement with a data-modifying
// WITH query is refused with 0A000 rather than planned without the
// query (which would name a relation that does not exist, and EXPLAIN
// ANALYZE would skip the write); nothing is written.
func TestModifyingWithRefused(t *testing.T) {
	db := testkit.OpenMem(t)
	s := testkit.NewSession(t, db)
	testkit.Must(t, s, "CREATE TABLE w (a int); INSERT INTO w VALUES (1)")
	for _, q := range []string{
		"EXPLAIN WITH d AS (DELETE FROM w RETURNING *) SELECT * FROM d",
		"EXPLAIN ANALYZE WITH d AS (DELETE FROM w RETURNING *) SELECT 1",
	} {
		testkit.WantCode(t, s, q, pgerror.FeatureNotSupported)
	}
	testkit.Want(t, s, "SELECT count(*) FROM w", "1")
}
