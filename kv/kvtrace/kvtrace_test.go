package kvtrace

import (
	"strings"
	"testing"

	"github.com/kvsql/kvsql/encoding"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/types"
)

func key(space uint64, vals ...int64) []byte {
	k := encoding.EncodeUvarintAsc(nil, space)
	for _, v := range vals {
		k = encoding.EncodeKeyDatum(k, types.NewInt(v), encoding.Ascending)
	}
	return k
}

// TestTrace checks that every kind of operation, on the engine, a
// snapshot and a batch, produces its line, and that disabling stops them.
func TestTrace(t *testing.T) {
	var lines []string
	e := New(kv.NewMemory(), func(op string) { lines = append(lines, op) })
	defer e.Close()
	var _ kv.Engine = Wrap(kv.NewMemory(), nil)

	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(e.Set(key(100, 1), nil))
	must(e.Merge(key(100, 2), nil))
	if _, err := e.Get(key(100, 1)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Get(key(100, 9)); err != kv.ErrNotFound {
		t.Fatalf("get missing: %v", err)
	}
	b := e.NewBatch()
	must(b.Set(key(100, 3), nil))
	must(b.Delete(key(100, 1)))
	must(b.DeleteRange(key(101), key(102)))
	must(b.Commit(false))
	must(b.Close())
	snap := e.NewSnapshot()
	it, err := snap.NewIter(kv.IterOptions{LowerBound: key(100), UpperBound: key(101)})
	must(err)
	for ok := it.First(); ok; ok = it.Next() {
	}
	must(it.Close())
	if _, err := snap.Get(key(100, 3)); err != nil {
		t.Fatal(err)
	}
	must(snap.Close())
	must(e.Delete(key(100, 2)))
	must(e.DeleteRange(key(100), key(101)))

	if prev := e.SetEnabled(false); !prev {
		t.Fatal("SetEnabled(false) reported logging was off")
	}
	must(e.Set(key(100, 5), nil))
	if _, err := e.Get(key(100, 5)); err != nil {
		t.Fatal(err)
	}

	want := `set /100/1 = (empty)
merge /100/2 += (empty)
get /100/1 -> (empty)
get /100/9 -> not found
batch set /100/3 = (empty)
batch delete /100/1
batch delete-range [/101, /102)
batch commit (3 ops)
snap.iter [/100, /101) first -> /100/2
snap.iter next -> /100/3
snap.iter next -> end
snap.get /100/3 -> (empty)
delete /100/2
delete-range [/100, /101)`
	if got := strings.Join(lines, "\n"); got != want {
		t.Fatalf("trace:\n%s\nwant:\n%s", got, want)
	}
}

// TestFormatValue checks the default rendering of a row value and that a
// custom formatter is used.
func TestFormatValue(t *testing.T) {
	row := encoding.EncodeRow(nil, []uint32{2}, []types.Datum{types.NewText("x")})
	if got := DefaultFormatValue(nil, row); got != `{2:"x"}` {
		t.Fatalf("row: %s", got)
	}
	var lines []string
	e := New(kv.NewMemory(), func(op string) { lines = append(lines, op) })
	e.FormatValue = func(_, v []byte) string { return "custom" }
	if err := e.Set(key(100), row); err != nil {
		t.Fatal(err)
	}
	if len(lines) != 1 || lines[0] != "set /100 = custom" {
		t.Fatalf("lines: %q", lines)
	}
}

// TestPrettyBound checks that a prefix successor is shown as such and
// that ordinary keys are left to encoding.Pretty.
func TestPrettyBound(t *testing.T) {
	k := encoding.EncodeKeyDatum(encoding.EncodeUvarintAsc(nil, 101), types.NewText("Paris"), encoding.Ascending)
	end := append([]byte(nil), k...)
	end[len(end)-1]++
	if got := PrettyBound(end); got != `/101/"Paris"/PrefixEnd` {
		t.Fatalf("prefix end: %s", got)
	}
	if got := PrettyBound(k); got != `/101/"Paris"` {
		t.Fatalf("key: %s", got)
	}
	if got := PrettyBound([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00}); !strings.Contains(got, "!bad:") {
		t.Fatalf("garbage: %s", got)
	}
}
