package index

import (
	"slices"
	"testing"

	"github.com/kvsql/kvsql/pgerror"
)

// TestFoldOps folds hand-built op logs: the last op of a pk decides, the
// result is sorted and has no duplicates, and a torn op is corruption.
func TestFoldOps(t *testing.T) {
	type op struct {
		kind byte
		pk   string
	}
	log := func(ops ...op) []byte {
		var b []byte
		for _, o := range ops {
			b = appendOp(b, o.kind, []byte(o.pk))
		}
		return b
	}
	for _, c := range []struct {
		name string
		log  []byte
		want []string
		ops  int
	}{
		{"empty", nil, []string{}, 0},
		{"adds", log(op{opAdd, "c"}, op{opAdd, "a"}, op{opAdd, "b"}), []string{"a", "b", "c"}, 3},
		{"remove", log(op{opAdd, "a"}, op{opAdd, "b"}, op{opRemove, "a"}), []string{"b"}, 3},
		{"re-add", log(op{opAdd, "a"}, op{opRemove, "a"}, op{opAdd, "a"}), []string{"a"}, 3},
		{"remove-all", log(op{opAdd, "a"}, op{opRemove, "a"}, op{opAdd, "b"}, op{opRemove, "b"}), []string{}, 4},
		{"duplicate-add", log(op{opAdd, "a"}, op{opAdd, "a"}), []string{"a"}, 2},
		{"prefix-pks", log(op{opAdd, "ab"}, op{opAdd, "a"}, op{opAdd, ""}), []string{"", "a", "ab"}, 3},
	} {
		got, ops, err := foldOps(c.log)
		if err != nil || ops != c.ops || !slices.Equal(got, c.want) {
			t.Errorf("%s: foldOps = %q, %d, %v; want %q, %d", c.name, got, ops, err, c.want, c.ops)
		}
	}
	for _, bad := range [][]byte{{9, 1, 'a'}, {opAdd, 5, 'a'}, {opAdd}, {opRemove, 0x80}} {
		if _, _, err := foldOps(bad); !pgerror.HasCode(err, pgerror.DataCorrupted) {
			t.Errorf("foldOps(%x) error = %v, want data corrupted", bad, err)
		}
	}
}
