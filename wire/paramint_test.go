package wire

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/kvsql/kvsql/types"
)

var intOIDs = []uint32{types.Int2.OID(), types.Int4.OID(), types.Int8.OID()}

// checkTextInt compares decodeTextInt with decodeText, the way it
// bypasses: whatever it accepts, decodeText gives the same value.
func checkTextInt(t *testing.T, oid uint32, raw []byte) bool {
	t.Helper()
	fast, ok := decodeTextInt(oid, raw)
	if !ok {
		return false
	}
	slow, err := decodeText(oid, string(raw), time.UTC)
	if err != nil || slow.Kind != fast.Kind || slow.I != fast.I {
		t.Fatalf("oid %d, %q: decodeTextInt %v, decodeText %v (%v)", oid, raw, fast, slow, err)
	}
	return true
}

// TestDecodeTextInt: the integer parameters' fast path takes plain
// decimal numbers within the type's range and leaves everything else
// (and its error) to decodeText.
func TestDecodeTextInt(t *testing.T) {
	for _, c := range []struct {
		raw  string
		fast [3]bool // int2, int4, int8
	}{
		{"0", [3]bool{true, true, true}},
		{"-0", [3]bool{true, true, true}},
		{"12345", [3]bool{true, true, true}},
		{"32767", [3]bool{true, true, true}},
		{"-32768", [3]bool{true, true, true}},
		{"32768", [3]bool{false, true, true}},
		{"2147483647", [3]bool{false, true, true}},
		{"-2147483648", [3]bool{false, true, true}},
		{"2147483648", [3]bool{false, false, true}},
		{"999999999999999999", [3]bool{false, false, true}},
		{"9223372036854775807", [3]bool{}}, // 19 digits: decodeText's
		{"-9223372036854775808", [3]bool{}},
		{"99999999999999999999", [3]bool{}},
		{"", [3]bool{}},
		{"-", [3]bool{}},
		{"+5", [3]bool{}},
		{" 5", [3]bool{}},
		{"5 ", [3]bool{}},
		{"5a", [3]bool{}},
		{"1_000", [3]bool{}},
		{"0x10", [3]bool{}},
		{"--5", [3]bool{}},
		{"1.0", [3]bool{}},
	} {
		for i, oid := range intOIDs {
			if got := checkTextInt(t, oid, []byte(c.raw)); got != c.fast[i] {
				t.Errorf("oid %d, %q: fast path %v, want %v", oid, c.raw, got, c.fast[i])
			}
		}
	}
	if _, ok := decodeTextInt(types.Text.OID(), []byte("5")); ok {
		t.Error("a text parameter took the integer path")
	}
	if _, ok := decodeTextInt(types.T{Family: types.Array, Elem: types.Int4}.OID(), []byte("5")); ok {
		t.Error("an int4[] parameter took the integer path")
	}
	// Every value of a sweep through int64 agrees with decodeText.
	for v := int64(1); v > 0 && v < math.MaxInt64/3; v = v*3 + 1 {
		for _, x := range []int64{v, -v} {
			for _, oid := range intOIDs {
				checkTextInt(t, oid, fmt.Appendf(nil, "%d", x))
			}
		}
	}
}

// FuzzDecodeTextInt: on any bytes, what the fast path accepts decodeText
// decodes to the same value.
func FuzzDecodeTextInt(f *testing.F) {
	for _, s := range []string{"0", "-1", "32768", "2147483648", "+1", " 1", "999999999999999999"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, oid := range intOIDs {
			checkTextInt(t, oid, raw)
		}
	})
}

// BenchmarkDecodeParamInt is one text int8 parameter of Bind.
func BenchmarkDecodeParamInt(b *testing.B) {
	raw := []byte("12345678")
	b.ReportAllocs()
	for range b.N {
		d, err := decodeParam(types.Int8.OID(), formatText, raw, time.UTC)
		if err != nil || d.I != 12345678 {
			b.Fatal(d, err)
		}
	}
}
