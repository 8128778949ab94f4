package encoding

import (
	"bytes"
	"flag"
	"math/rand"
	"slices"
	"testing"

	"github.com/kvsql/kvsql/types"
)

var enumSeed = flag.Int64("enumseed", 0, "seed of TestEnumKeyOrder (0: time-based)")

// TestEnumKeyOrder builds enum types label by label as ALTER TYPE ...
// ADD VALUE does (at the end, or BEFORE or AFTER a random label) and
// checks the representation types.EnumType describes: sort keys never
// end in 0x00 and ascend in declared order, so the key encoding of the
// enum values (bytes) sorts in declared order in both directions, and
// keys and row values decode back to the same value.
func TestEnumKeyOrder(t *testing.T) {
	seed := *enumSeed
	if seed == 0 {
		seed = rand.Int63()
	}
	t.Logf("seed %d (rerun with -enumseed)", seed)
	r := rand.New(rand.NewSource(seed))
	for round := 0; round < 50; round++ {
		var keys []string // in declared order
		for n := 0; n < 200; n++ {
			var k string
			switch i := r.Intn(len(keys) + 1); {
			case len(keys) == 0 || r.Intn(3) == 0:
				k = "\x01"
				if len(keys) > 0 {
					k = types.NextEnumKey(keys[len(keys)-1])
				}
				keys = append(keys, k)
			case r.Intn(2) == 0 || i == len(keys): // BEFORE keys[i']
				if i == len(keys) {
					i--
				}
				lo := ""
				if i > 0 {
					lo = keys[i-1]
				}
				k = types.EnumKeyBetween(lo, keys[i])
				keys = slices.Insert(keys, i, k)
			default: // AFTER keys[i]
				hi := ""
				if i+1 < len(keys) {
					hi = keys[i+1]
				}
				k = types.EnumKeyBetween(keys[i], hi)
				keys = slices.Insert(keys, i+1, k)
			}
			if k == "" || k[len(k)-1] == 0 {
				t.Fatalf("seed %d: bad key %x", seed, k)
			}
		}
		for i := 1; i < len(keys); i++ {
			if keys[i-1] >= keys[i] {
				t.Fatalf("seed %d: keys %x and %x out of declared order", seed, keys[i-1], keys[i])
			}
		}
		for _, dir := range []Direction{Ascending, Descending} {
			var prev []byte
			for i, k := range keys {
				d := types.NewEnum(k)
				enc := EncodeKeyDatum(nil, d, dir)
				if i > 0 {
					c := bytes.Compare(prev, enc)
					if dir == Ascending && c >= 0 || dir == Descending && c <= 0 {
						t.Fatalf("seed %d: %s encodings of %x and %x out of order", seed, dir, keys[i-1], k)
					}
				}
				prev = enc
				rest, got, gotDir, err := DecodeKeyDatum(append(enc, 0x29)) // garbage after the value
				if err != nil || got != d || gotDir != dir || !bytes.Equal(rest, []byte{0x29}) {
					t.Fatalf("seed %d: key round trip of %x: %v %v %v %x", seed, k, got, gotDir, err, rest)
				}
				row := EncodeRow(nil, []uint32{3}, []types.Datum{d})
				out := make([]types.Datum, 1)
				if err := DecodeRow(row, []uint32{3}, out); err != nil || out[0] != d {
					t.Fatalf("seed %d: row round trip of %x: %v %v", seed, k, out[0], err)
				}
			}
		}
	}
}

// TestEnumKeyBytes pins the keys of a type's first labels and of labels
// added between them: docs/layout.md shows these bytes.
func TestEnumKeyBytes(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{types.NextEnumKey(""), "\x01"},
		{types.NextEnumKey("\x01"), "\x02"},
		{types.NextEnumKey("\xff"), "\xff\x01"},
		{types.NextEnumKey("\xff\x01"), "\xff\x02"},
		{types.EnumKeyBetween("\x01", "\x02"), "\x01\x80"},
		{types.EnumKeyBetween("\x01", "\x03"), "\x02"},
		{types.EnumKeyBetween("", "\x01"), "\x00\x80"},
		{types.EnumKeyBetween("\x01\x80", "\x02"), "\x01\xc0"},
		{types.EnumKeyBetween("\x03", ""), "\x81"},
		{types.EnumKeyBetween("\x02", "\x01"), ""},
	} {
		if tc.got != tc.want {
			t.Errorf("got %x, want %x", tc.got, tc.want)
		}
	}
	if got := EncodeKeyDatum(nil, types.NewEnum("\x01\x80"), Ascending); !bytes.Equal(got, []byte{0x1d, 0x01, 0x80, 0x00, 0x01}) {
		t.Errorf("key of enum value 01 80 = % x", got)
	}
}
