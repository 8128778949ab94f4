package index

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// writeScript is the golden script of TestWritesGolden: each step runs
// against the test table and the golden file shows the step, the KV
// writes it caused (pretty keys) and its error, if any.
var writeScript = []struct {
	name string
	run  func(rw kv.ReadWriter, tbl *catalog.Table) error
}{
	{"insert (1,'x',10,'d1')", func(rw kv.ReadWriter, tbl *catalog.Table) error { return Insert(rw, tbl, row(1, "x", 10, "d1")) }},
	{"insert (1,'y',10,'d2')", func(rw kv.ReadWriter, tbl *catalog.Table) error { return Insert(rw, tbl, row(1, "y", 10, "d2")) }},
	{"insert (2,'x',20,NULL)", func(rw kv.ReadWriter, tbl *catalog.Table) error { return Insert(rw, tbl, row(2, "x", 20, nil)) }},
	{"insert (3,'x',NULL,NULL) -- second NULL in the unique index", func(rw kv.ReadWriter, tbl *catalog.Table) error { return Insert(rw, tbl, row(3, "x", nil, nil)) }},
	{"insert (1,'x',0,'zz') -- duplicate primary key", func(rw kv.ReadWriter, tbl *catalog.Table) error { return Insert(rw, tbl, row(1, "x", 0, "zz")) }},
	{"insert (9,'q',0,'d1') -- duplicate unique value", func(rw kv.ReadWriter, tbl *catalog.Table) error { return Insert(rw, tbl, row(9, "q", 0, "d1")) }},
	{"insert (NULL,'q',0,'e') -- NULL primary key", func(rw kv.ReadWriter, tbl *catalog.Table) error {
		r := row(0, "q", 0, "e")
		r[0] = types.Null
		return Insert(rw, tbl, r)
	}},
	{"update (1,'x') set c=11 -- moves c's entries only", func(rw kv.ReadWriter, tbl *catalog.Table) error {
		return Update(rw, tbl, row(1, "x", 10, "d1"), row(1, "x", 11, "d1"))
	}},
	{"update (1,'y') set d='d3' -- moves the unique entry only", func(rw kv.ReadWriter, tbl *catalog.Table) error {
		return Update(rw, tbl, row(1, "y", 10, "d2"), row(1, "y", 10, "d3"))
	}},
	{"update (2,'x') set d='d1' -- unique conflict", func(rw kv.ReadWriter, tbl *catalog.Table) error {
		return Update(rw, tbl, row(2, "x", 20, nil), row(2, "x", 20, "d1"))
	}},
	{"update (2,'x') set a=5 -- primary key change moves everything", func(rw kv.ReadWriter, tbl *catalog.Table) error {
		return Update(rw, tbl, row(2, "x", 20, nil), row(5, "x", 20, nil))
	}},
	{"delete (1,'x')", func(rw kv.ReadWriter, tbl *catalog.Table) error { return Delete(rw, tbl, row(1, "x", 11, "d1")) }},
}

func TestWritesGolden(t *testing.T) {
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			e := eng.open(t)
			defer e.Close()
			c, tb := newTable(t, e)
			var out strings.Builder
			for _, step := range writeScript {
				fmt.Fprintf(&out, "%s\n", step.name)
				txn := kv.NewTxn(e)
				err := step.run(recorder{txn, &out}, tb)
				if err != nil {
					txn.Rollback()
					pe := new(pgerror.Error)
					detail := ""
					if errors.As(err, &pe) && pe.Detail != "" {
						detail = " DETAIL: " + pe.Detail
					}
					fmt.Fprintf(&out, "  error %s: %v%s\n", pgerror.CodeOf(err), err, detail)
				} else if err := txn.Commit(false); err != nil {
					t.Fatal(err)
				}
				out.WriteString("\n")
			}
			mustCheck(t, e, c)
			compareGolden(t, filepath.Join("testdata", "writes.golden"), out.String())
		})
	}
}

func compareGolden(t *testing.T, path, got string) {
	t.Helper()
	if *rewrite {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -rewrite)", err)
	}
	if string(want) != got {
		t.Errorf("output differs from %s (run with -rewrite to accept):\n%s", path, got)
	}
}
