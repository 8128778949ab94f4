package foreign

import (
	"bytes"
	"testing"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

func mustLayout(t *testing.T, d DocLayout, cols ...Column) *Layout {
	t.Helper()
	l, err := FromDoc(&d, cols)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

var (
	tInt  = types.T{Family: types.Int8}
	tText = types.T{Family: types.Text}
)

// TestMatchKey reads keys against a template: the table's own, another
// table's (literals differ) and malformed ones (a field does not decode).
func TestMatchKey(t *testing.T) {
	l := mustLayout(t, DocLayout{Shape: "attribute", Key: "user:{id}:{attribute}"}, Column{"id", tInt}, Column{"name", tText})
	for _, c := range []struct {
		key  string
		want matchResult
		attr string
	}{
		{"user:5:name", keyMatches, "name"},
		{"user:5:messages:nextId", keyMatches, "messages:nextId"},
		{"users:nextId", keyOther, ""},
		{"user:5", keyOther, ""},
		{"user:x:name", keyMalformed, ""},
		{"user:05:name", keyMalformed, ""}, // 5 is spelled 5: a prefix scan of user:5: never reads it
		{"user:99999999999999999999:name", keyMalformed, ""},
	} {
		row := make([]types.Datum, 2)
		res, _, attr := l.matchKey([]byte(c.key), row)
		if res != c.want || string(attr) != c.attr {
			t.Errorf("%s: %v %q, want %v %q", c.key, res, attr, c.want, c.attr)
		}
	}
}

// TestKeyRange: a decimal field is narrowed only by equality; a
// big-endian one by a range too.
func TestKeyRange(t *testing.T) {
	dec := mustLayout(t, DocLayout{Shape: "presence", Key: "m:{a}:{b}"}, Column{"a", tInt}, Column{"b", tInt})
	five, nine := types.NewInt(5), types.NewInt(9)
	lo, hi, empty := dec.KeyRange(Bounds{Eq: []types.Datum{five}, Lo: &five})
	if empty || string(lo) != "m:5:" || string(hi) != "m:5;" {
		t.Errorf("decimal: [%q, %q) %v, want the prefix m:5: only", lo, hi, empty)
	}
	be := mustLayout(t, DocLayout{Shape: "presence", Key: "m{0xff}{a}", Fields: []DocField{{Column: "a", Encoding: "uint16be"}}}, Column{"a", tInt})
	lo, hi, empty = be.KeyRange(Bounds{Lo: &five, Hi: &nine, LoExcl: true})
	if empty || !bytes.Equal(lo, []byte("m\xff\x00\x06")) || !bytes.Equal(hi, []byte("m\xff\x00\x0a")) {
		t.Errorf("uint16be: [%x, %x) %v", lo, hi, empty)
	}
	neg := types.NewInt(-1)
	if _, _, empty := be.KeyRange(Bounds{Hi: &neg}); !empty {
		t.Error("a < -1 on an unsigned field should read nothing")
	}
}

// TestAmbiguousWrites: values that would not read back as written are
// refused.
func TestAmbiguousWrites(t *testing.T) {
	l := mustLayout(t, DocLayout{Shape: "attribute", Key: "u:{name}:{attribute}"}, Column{"name", tText}, Column{"v", tText})
	if _, err := l.Puts([]types.Datum{types.NewText("a:b"), types.NewText("x")}); !pgerror.HasCode(err, pgerror.FeatureNotSupported) {
		t.Errorf("a key field holding its delimiter: %v", err)
	}
	kvs, err := l.Puts([]types.Datum{types.NewText("ab"), types.NewText("x")})
	if err != nil || len(kvs) != 1 || string(kvs[0].Key) != "u:ab:v" || string(kvs[0].Value) != "x" {
		t.Errorf("Puts: %v %v", kvs, err)
	}
}
