package session_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kvsql/kvsql/internal/testkit"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/session"
)

// TestDamagedBlock flips a byte in the sstable block that holds rows of
// one table (its master file, then, in another store, its index) and
// checks what clients see: XX001 naming the table or index for reads
// that meet the block, the other table still readable, 25006 for every
// write, and the same after a restart (the store opens read-only).
func TestDamagedBlock(t *testing.T) {
	for _, target := range []string{"master", "index"} {
		t.Run(target, func(t *testing.T) {
			dir, _ := testkit.DamagedStore(t, target)
			for run := range 2 {
				db, err := session.Open(session.Options{Dir: dir, NoSync: true})
				if err != nil {
					t.Fatalf("run %d: open: %v", run, err)
				}
				s, err := db.Session("")
				if err != nil {
					t.Fatal(err)
				}
				testkit.Want(t, s, "SELECT count(*) FROM good", "100")
				testkit.Want(t, s, "SELECT v FROM bad WHERE id = 1", "1")
				q := "SELECT count(*) FROM bad"
				want := `table "bad"`
				if target == "index" {
					q, want = "SELECT count(*) FROM bad WHERE v BETWEEN 14000 AND 16000", `index "bad_v" of table "bad"`
				}
				_, err = s.Exec(context.Background(), q)
				var pe *pgerror.Error
				if !errors.As(err, &pe) || pe.Code != pgerror.DataCorrupted || !strings.Contains(pe.Message, want) {
					t.Fatalf("run %d: %s: got %v (code %s), want XX001 naming %s", run, q, err, pgerror.CodeOf(err), want)
				}
				if pe.Table != "bad" {
					t.Fatalf("run %d: XX001 names table %q", run, pe.Table)
				}
				for _, w := range []string{"INSERT INTO good VALUES (1000, 'x')", "UPDATE good SET v = 'y' WHERE id = 1", "CREATE TABLE t2 (a INT)", "DROP TABLE bad"} {
					testkit.WantCode(t, s, w, pgerror.ReadOnlySQLTransaction)
				}
				testkit.Want(t, s, "SELECT v FROM good WHERE id = 1", `"good"`)
				if db.Damage() == nil {
					t.Fatalf("run %d: DB.Damage is nil", run)
				}
				_ = s.Close()
				if err := db.Close(); err != nil {
					t.Fatalf("run %d: close: %v", run, err)
				}
			}
		})
	}
}
