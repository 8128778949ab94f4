package sqllogictest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse checks that Parse never panics and that what it accepts is
// self-consistent: every record has a kind, a line inside the input, and
// SQL where its kind needs it.
func FuzzParse(f *testing.F) {
	for _, name := range []string{"basic.test", "halt.test", "failing.test"} {
		if b, err := os.ReadFile(filepath.Join("testdata", name)); err == nil {
			f.Add(string(b))
		}
	}
	f.Add("query I nosort\nSELECT 1\n----\n1 values hashing to 0123456789abcdef0123456789abcdef\n")
	f.Add("skipif x\nonlyif y\nhalt\n")
	f.Fuzz(func(t *testing.T, src string) {
		recs, err := Parse(strings.NewReader(src), "fuzz")
		if err != nil {
			return
		}
		lines := strings.Count(src, "\n") + 1
		for _, r := range recs {
			if r.Kind < KindStatement || r.Kind > KindHalt || r.Line < 1 || r.Line > lines {
				t.Fatalf("bad record %+v", r)
			}
			if (r.Kind == KindStatement || r.Kind == KindQuery) && r.SQL == "" {
				t.Fatalf("record without SQL: %+v", r)
			}
		}
	})
}
