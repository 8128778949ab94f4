package foreign_test

import (
	"context"
	"math/rand"
	"path/filepath"
	"strings"
	"testing"

	"github.com/syndtr/goleveldb/leveldb"

	"github.com/kvsql/kvsql/pgerror"
)

// TestWrites writes through SQL into a writable attachment, checks the
// same statements against kvsql's own tables, and reads the inserted
// row back with a plain LevelDB read of the keys the application uses.
func TestWrites(t *testing.T) {
	doc := strings.Replace(docXML, `store="leveldb:fl.ldb"`, `store="leveldb:fl.ldb" readonly="false"`, 1)
	doc = strings.Replace(doc, `store="pebble:fp.pebble"`, `store="pebble:fp.pebble" readonly="false"`, 1)
	f := openFixtureDoc(t, rand.New(rand.NewSource(2)), doc)
	ctx := context.Background()
	for _, c := range []struct{ db, q string }{
		{"fl", "INSERT INTO ta VALUES (1000, 'new', 7), (1001, 'other', NULL)"},
		{"fl", "UPDATE ta SET score = score + 1 WHERE id < 10"},
		{"fl", "UPDATE ta SET score = 5 WHERE id = 1001"},
		{"fl", "UPDATE ta SET name = NULL WHERE id = 1001"},
		{"fl", "DELETE FROM ta WHERE score > 50"},
		{"fl", "INSERT INTO td VALUES ('knew', 'x', -3)"},
		{"fl", "UPDATE td SET k = k || 'b' WHERE score < 0"},
		{"fl", "INSERT INTO tp SELECT 7, id FROM ta WHERE id < 20"},
		{"fl", "DELETE FROM tp WHERE g = 1"},
		{"fp", "INSERT INTO tj VALUES (9, 70000, 'big', 1)"},
		{"fp", "UPDATE tj SET score = -score, g = g + 1 WHERE g = 2"},
		{"fp", "DELETE FROM tf WHERE id BETWEEN 10 AND 20"},
		{"fp", "UPDATE tf SET name = 'renamed' WHERE id = 30 OR id = 31"},
		{"fp", "INSERT INTO tq SELECT g + 10, id FROM tq WHERE g < 3"},
	} {
		s := f.fl
		if c.db == "fp" {
			s = f.fp
		}
		want := mustExec(t, f.native, c.q)
		got := mustExec(t, s, c.q)
		if got[0].Tag != want[0].Tag {
			t.Errorf("%s: tag %q, want %q", c.q, got[0].Tag, want[0].Tag)
		}
	}
	for db, tables := range map[string][]string{"fl": {"ta", "td", "tp"}, "fp": {"tj", "tf", "tq"}} {
		s := f.fl
		if db == "fp" {
			s = f.fp
		}
		for _, tab := range tables {
			q := "SELECT * FROM " + tab
			if got, want := rowsText(mustExec(t, s, q)), rowsText(mustExec(t, f.native, q)); got != want {
				t.Errorf("%s after the writes:\n%s\nwant:\n%s", q, got, want)
			}
		}
	}
	for _, c := range []struct {
		q    string
		code pgerror.Code
	}{
		{"INSERT INTO ta VALUES (1000, 'again', 1)", pgerror.UniqueViolation},
		{"INSERT INTO ta VALUES (2000, 'a', 1), (2000, 'b', 2)", pgerror.UniqueViolation},
		{"INSERT INTO ta VALUES (2001, NULL, NULL)", pgerror.FeatureNotSupported},
		{"INSERT INTO td VALUES ('kx', 'a|b', 1)", pgerror.FeatureNotSupported},
		{"INSERT INTO td VALUES ('kx', NULL, 1)", pgerror.FeatureNotSupported},
		{"INSERT INTO ta VALUES (1000, 'x', 1) ON CONFLICT DO NOTHING", pgerror.FeatureNotSupported},
		{"BEGIN; INSERT INTO nat VALUES (500, 'x'); INSERT INTO tp VALUES (1, 1)", pgerror.FeatureNotSupported}, // txn_test.go
	} {
		_, err := f.fl.Exec(ctx, c.q)
		if !pgerror.HasCode(err, c.code) {
			t.Errorf("%s: %v, want %s", c.q, err, c.code)
		}
		f.fl.Exec(ctx, "ROLLBACK")
	}
	if _, err := f.fp.Exec(ctx, "INSERT INTO tf VALUES (70000, 'x', 1)"); !pgerror.HasCode(err, pgerror.NumericValueOutOfRange) {
		t.Errorf("a uint16be key field took 70000: %v", err)
	}
	// The application reads the inserted row where it expects it.
	if err := f.db.Close(); err != nil {
		t.Fatal(err)
	}
	ldb, err := leveldb.OpenFile(filepath.Join(f.dir, "fl.ldb"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ldb.Close()
	for k, want := range map[string]string{"a:1000:name": "new", "a:1000:score": "7", "a:1001:name": "", "a:1001:score": "5", "d:knewb": "x|-3", "p:7:1": ""} {
		v, err := ldb.Get([]byte(k), nil)
		switch {
		case k == "a:1001:name":
			if err != leveldb.ErrNotFound {
				t.Errorf("%s: %q, %v: want it deleted (a NULL attribute has no key)", k, v, err)
			}
		case err != nil || string(v) != want:
			t.Errorf("%s: %q, %v; want %q", k, v, err, want)
		}
	}
}
