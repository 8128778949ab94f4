package index

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/kvsql/kvsql/encoding"
	"github.com/kvsql/kvsql/kv"
)

const (
	layoutDoc   = "../docs/layout.md"
	beginMarker = "<!-- BEGIN GENERATED LISTING (go test ./index -run Layout -rewrite) -->\n"
	endMarker   = "<!-- END GENERATED LISTING -->\n"
)

// TestLayoutDoc regenerates the key/value listing in docs/layout.md from
// real writes and fails when the checked-in listing has drifted.
func TestLayoutDoc(t *testing.T) {
	e := kv.NewMemory()
	defer e.Close()
	_, tb := newTable(t, e)
	commit(t, e, func(txn *kv.Txn) error {
		for _, r := range [][]any{{1, "x", 10, "d1"}, {1, "y", 10, "d2"}, {2, "x", 20, nil}} {
			if err := Insert(txn, tb, row(int64(r[0].(int)), r[1].(string), r[2], r[3])); err != nil {
				return err
			}
		}
		return nil
	})
	var b strings.Builder
	b.WriteString("```\n")
	it, err := e.NewIter(kv.IterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for ok := it.First(); ok; ok = it.Next() {
		k, v := it.Key(), it.Value()
		space, _, _ := encoding.DecodeKey(k)
		var val string
		switch {
		case space == 1 && len(v) > 0 && v[0] == '{':
			val = fmt.Sprintf("JSON descriptor, %d bytes", len(v))
		case space == tb.ID:
			val = fmt.Sprintf("%x  row %s", v, encoding.PrettyRow(v))
		case space == tb.Indexes[0].ID:
			val = fmt.Sprintf("%x  pk %s", v, prettyPK(tb, v))
		case space == tb.Indexes[2].ID:
			pks, _, _ := foldOps(v)
			var ps []string
			for _, p := range pks {
				ps = append(ps, prettyPK(tb, []byte(p)))
			}
			val = fmt.Sprintf("%x  oplog +%s", v, strings.Join(ps, " +"))
		case len(v) == 0:
			val = "(empty)"
		default:
			val = fmt.Sprintf("%x", v)
		}
		fmt.Fprintf(&b, "%-30s %-28x -> %s\n", encoding.Pretty(k), k, val)
	}
	it.Close()
	b.WriteString("```\n")
	listing := b.String()

	doc, err := os.ReadFile(layoutDoc)
	if err != nil {
		t.Fatal(err)
	}
	s := string(doc)
	i, j := strings.Index(s, beginMarker), strings.Index(s, endMarker)
	if i < 0 || j < i {
		t.Fatalf("%s lacks the generated-listing markers", layoutDoc)
	}
	cur := s[i+len(beginMarker) : j]
	if cur == listing {
		return
	}
	if !*rewrite {
		t.Fatalf("%s listing is out of date (run go test ./index -run Layout -rewrite):\n%s", layoutDoc, listing)
	}
	s = s[:i+len(beginMarker)] + listing + s[j:]
	if err := os.WriteFile(layoutDoc, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
