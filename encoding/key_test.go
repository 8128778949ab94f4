package encoding

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

var dirs = []Direction{Ascending, Descending}

// TestKeyRoundTrip encodes random values of every kind in both directions,
// followed by garbage, and checks that decoding returns the value, the
// direction, and exactly the garbage as the rest.
func TestKeyRoundTrip(t *testing.T) {
	r := newRand(t)
	garbage := []byte{0x00, 0xff, 0x7f, 0x80, 0x1c}
	for _, k := range keyKinds {
		for _, dir := range dirs {
			for range 500 {
				d := randDatum(r, k)
				g := garbage[:r.IntN(len(garbage)+1)]
				enc := EncodeKeyDatum([]byte("prefix"), d, dir)
				enc = append(enc, g...)
				rest, got, gotDir, err := DecodeKeyDatum(enc[len("prefix"):])
				if err != nil {
					t.Fatalf("%v %v: decode %x: %v", d, dir, enc, err)
				}
				if want := keyCanonical(d); !sameDatum(got, want) || gotDir != dir {
					t.Fatalf("%v %v: got %v %v", want, dir, got, gotDir)
				}
				if !bytes.Equal(rest, g) {
					t.Fatalf("%v %v: rest %x, want %x", d, dir, rest, g)
				}
			}
		}
	}
}

// TestKeyOrder checks on random pairs that byte order equals datum order
// (reversed for descending) for every kind, with NULLs mixed in.
func TestKeyOrder(t *testing.T) {
	r := newRand(t)
	for _, k := range keyKinds[1:] {
		for range 2000 {
			a, b := randDatum(r, k), randDatum(r, k)
			if r.IntN(10) == 0 {
				a = types.Null
			}
			if r.IntN(10) == 0 {
				b = types.Null
			}
			want := compareKey(a, b)
			for _, dir := range dirs {
				got := bytes.Compare(EncodeKeyDatum(nil, a, dir), EncodeKeyDatum(nil, b, dir))
				if dir == Descending {
					got = -got
				}
				if got != want {
					t.Fatalf("%v: compare(%v, %v) = %d from bytes, want %d", dir, a, b, got, want)
				}
			}
		}
	}
}

// TestKeyTupleOrder checks whole keys: random tuples (with prefixes of
// each other and mixed directions) compare as bytes.Compare of their keys.
func TestKeyTupleOrder(t *testing.T) {
	r := newRand(t)
	kinds := []types.Kind{types.KindText, types.KindInt, types.KindBytes, types.KindFloat}
	randTuple := func() []types.Datum {
		tup := make([]types.Datum, r.IntN(len(kinds)+1))
		for i := range tup {
			tup[i] = randDatum(r, kinds[i])
			if r.IntN(8) == 0 {
				tup[i] = types.Null
			}
		}
		return tup
	}
	for range 3000 {
		colDirs := []Direction{dirs[r.IntN(2)], dirs[r.IntN(2)], dirs[r.IntN(2)], dirs[r.IntN(2)]}
		a, b := randTuple(), randTuple()
		if len(b) > 0 && r.IntN(3) == 0 {
			// Share a prefix so that later columns decide.
			n := r.IntN(len(b)) + 1
			a = append(append([]types.Datum(nil), b[:n]...), a[min(n, len(a)):]...)
		}
		want := 0
		for i := 0; i < len(a) && i < len(b) && want == 0; i++ {
			want = compareKey(a[i], b[i])
			if colDirs[i] == Descending {
				want = -want
			}
		}
		if want == 0 {
			want = sign(len(a) - len(b))
		}
		ka, kb := EncodeKey(nil, 7, a, colDirs), EncodeKey(nil, 7, b, colDirs)
		if got := bytes.Compare(ka, kb); got != want {
			t.Fatalf("dirs %v: %s vs %s: bytes.Compare = %d, want %d", colDirs, Pretty(ka), Pretty(kb), got, want)
		}
	}
	// The case the brief names: ("a","b") < ("ab","").
	k1 := EncodeKey(nil, 1, []types.Datum{types.NewText("a"), types.NewText("b")}, nil)
	k2 := EncodeKey(nil, 1, []types.Datum{types.NewText("ab"), types.NewText("")}, nil)
	if bytes.Compare(k1, k2) >= 0 {
		t.Fatalf("(a,b) = %x must sort before (ab,'') = %x", k1, k2)
	}
}

// TestKeyExactBytes pins the encoding of boundary values. Descending
// encodings must be the complement of ascending ones.
func TestKeyExactBytes(t *testing.T) {
	negZero := math.Copysign(0, -1)
	for _, tc := range []struct {
		d         types.Datum
		asc, desc string
	}{
		{types.Null, "7f", "80"},
		{types.NewBool(false), "10", "ef"},
		{types.NewBool(true), "11", "ee"},
		{types.NewInt(math.MinInt64), "208000000000000000", "df7fffffffffffffff"},
		{types.NewInt(-(1 << 56) - 1), "20feffffffffffffff", ""},
		{types.NewInt(-(1 << 56)), "2100000000000000", ""},
		{types.NewInt(-257), "26feff", ""},
		{types.NewInt(-256), "2700", ""},
		{types.NewInt(-1), "27ff", "d800"},
		{types.NewInt(0), "28", "d7"},
		{types.NewInt(1), "29", "d6"},
		{types.NewInt(63), "67", "98"},
		{types.NewInt(64), "6840", "97bf"},
		{types.NewInt(255), "68ff", ""},
		{types.NewInt(256), "690100", ""},
		{types.NewInt(math.MaxInt64), "6f7fffffffffffffff", "908000000000000000"},
		{types.NewFloat(math.Inf(-1)), "14000fffffffffffff", "ebfff0000000000000"},
		{types.NewFloat(-1), "14400fffffffffffff", ""},
		{types.NewFloat(negZero), "148000000000000000", "eb7fffffffffffffff"},
		{types.NewFloat(0), "148000000000000000", "eb7fffffffffffffff"},
		{types.NewFloat(1), "14bff0000000000000", ""},
		{types.NewFloat(math.Inf(1)), "14fff0000000000000", ""},
		{types.NewFloat(math.NaN()), "14fff8000000000001", "eb0007fffffffffffe"},
		{types.NewFloat(math.Float64frombits(0xfff8000000000000)), "14fff8000000000001", ""},
		{types.NewText(""), "1c0001", "e3fffe"},
		{types.NewText("\x00"), "1c00ff0001", "e3ff00fffe"},
		{types.NewText("a\x00b"), "1c6100ff620001", ""},
		{types.NewBytes([]byte{0xff}), "1dff0001", "e200fffe"},
		{types.NewDate(0), "1828", "e7d7"},
		{types.NewDate(19724), "18694d0c", ""},
		{types.NewTimestamp(-1), "1927ff", "e6d800"},
		{types.NewArray(nil), "1f00", "e0ff"},
		{types.NewArray([]types.Datum{types.NewInt(1), types.NewInt(2)}), "1f292a00", "e0d6d5ff"},
		// [0:1]={1,2}: 0x01, then 1 dimension, of length 2, from 0.
		{types.NewArrayShaped([]types.Datum{types.NewInt(1), types.NewInt(2)}, types.ArrayShape{Lens: []int{2}, Lower: []int{0}}), "1f292a01292a28", ""},
		// {{1},{2}}: 2 dimensions, of lengths 2 and 1, both from 1.
		{types.NewArrayShaped([]types.Datum{types.NewInt(1), types.NewInt(2)}, types.ArrayShape{Lens: []int{2, 1}, Lower: []int{1, 1}}), "1f292a012a2a292929", ""},
	} {
		asc := hex.EncodeToString(EncodeKeyDatum(nil, tc.d, Ascending))
		desc := hex.EncodeToString(EncodeKeyDatum(nil, tc.d, Descending))
		if asc != tc.asc {
			t.Errorf("%v asc: got %s, want %s", tc.d, asc, tc.asc)
		}
		ascBytes, _ := hex.DecodeString(tc.asc)
		invert(ascBytes)
		if want := hex.EncodeToString(ascBytes); desc != want || (tc.desc != "" && desc != tc.desc) {
			t.Errorf("%v desc: got %s, want %s (table %q)", tc.d, desc, want, tc.desc)
		}
	}
}

func TestUvarint(t *testing.T) {
	for _, tc := range []struct {
		v   uint64
		hex string
	}{
		{0, "00"}, {1, "01"}, {247, "f7"}, {248, "f8f8"}, {255, "f8ff"}, {256, "f90100"},
		{1<<32 - 1, "fbffffffff"}, {math.MaxUint64, "ffffffffffffffffff"},
	} {
		enc := EncodeUvarintAsc(nil, tc.v)
		if got := hex.EncodeToString(enc); got != tc.hex {
			t.Errorf("EncodeUvarintAsc(%d) = %s, want %s", tc.v, got, tc.hex)
		}
		rest, v, err := DecodeUvarintAsc(append(enc, 0xab))
		if err != nil || v != tc.v || !bytes.Equal(rest, []byte{0xab}) {
			t.Errorf("DecodeUvarintAsc(%s) = %x, %d, %v", tc.hex, rest, v, err)
		}
	}
	r := newRand(t)
	for range 5000 {
		a, b := r.Uint64()>>r.IntN(64), r.Uint64()>>r.IntN(64)
		if got, want := bytes.Compare(EncodeUvarintAsc(nil, a), EncodeUvarintAsc(nil, b)), sign(cmpU(a, b)); got != want {
			t.Fatalf("order of %d, %d: %d, want %d", a, b, got, want)
		}
	}
	for _, bad := range []string{"", "f8", "f8f7", "f900ff", "ff00ffffffffffffff", "fbffff"} {
		b, _ := hex.DecodeString(bad)
		if _, _, err := DecodeUvarintAsc(b); !errors.Is(err, ErrCorrupt) {
			t.Errorf("DecodeUvarintAsc(%s): err = %v, want ErrCorrupt", bad, err)
		}
	}
}

func cmpU(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func TestInt64Fixed(t *testing.T) {
	vals := []int64{math.MinInt64, -1 << 40, -1, 0, 1, 1 << 40, math.MaxInt64}
	for i, v := range vals {
		asc, desc := EncodeInt64Asc(nil, v), EncodeInt64Desc(nil, v)
		if _, got, err := DecodeInt64Asc(asc); err != nil || got != v {
			t.Errorf("asc round trip %d: %d %v", v, got, err)
		}
		if _, got, err := DecodeInt64Desc(desc); err != nil || got != v {
			t.Errorf("desc round trip %d: %d %v", v, got, err)
		}
		if i > 0 {
			if bytes.Compare(EncodeInt64Asc(nil, vals[i-1]), asc) >= 0 {
				t.Errorf("asc order broken at %d", v)
			}
			if bytes.Compare(EncodeInt64Desc(nil, vals[i-1]), desc) <= 0 {
				t.Errorf("desc order broken at %d", v)
			}
		}
	}
	if _, _, err := DecodeInt64Asc([]byte{1, 2, 3}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("short input: %v", err)
	}
}

// TestDecodeKeyCorrupt feeds invalid values and checks for ErrCorrupt with
// code XX001.
func TestDecodeKeyCorrupt(t *testing.T) {
	for _, bad := range []string{
		"",               // empty
		"00", "1b", "70", // reserved tags
		"16", "1629", "162901", // decimal without exponent or terminator
		"16290100",   // trailing zero digit: not canonical
		"16290c00",   // digit byte out of range
		"68", "6f01", // truncated ints
		"6820",               // 32 in the 1-byte form: inline is canonical
		"690010",             // leading zero byte
		"6f8000000000000000", // positive out of range
		"26ff00",             // negative with a redundant 0xff
		"207f00000000000000", // negative out of range
		"14fff0",             // truncated float
		"140007ffffffffffff", // NaN with the sign bit set
		"147fffffffffffffff", // -0
		"14fff8000000000000", // NaN with other payload
		"1c61",               // no terminator
		"1c6100",             // truncated escape
		"1c610002",           // bad escape
		"18", "1814",         // date without an int body
	} {
		b, _ := hex.DecodeString(bad)
		rest, d, _, err := DecodeKeyDatum(b)
		if !errors.Is(err, ErrCorrupt) || !pgerror.HasCode(err, pgerror.DataCorrupted) {
			t.Errorf("DecodeKeyDatum(%s) = %x, %v, %v; want ErrCorrupt with XX001", bad, rest, d, err)
		}
		// The descending form of the same bytes is just as corrupt.
		if len(b) > 0 {
			invert(b)
			if _, _, _, err := DecodeKeyDatum(b); !errors.Is(err, ErrCorrupt) {
				t.Errorf("DecodeKeyDatum(^%s): %v, want ErrCorrupt", bad, err)
			}
		}
	}
	if _, _, err := DecodeKey([]byte{0x05, 0x29, 0x1b}); !errors.Is(err, ErrCorrupt) {
		t.Errorf("DecodeKey with a bad second value: %v", err)
	}
	if msg := func() string {
		_, _, err := DecodeKey([]byte{0x05, 0x68})
		return err.Error()
	}(); !strings.Contains(msg, "truncated") {
		t.Errorf("message %q should say truncated", msg)
	}
}

func TestDecodeKey(t *testing.T) {
	vals := []types.Datum{types.NewInt(-5), types.NewText("x\x00y"), types.Null, types.NewBool(true)}
	key := EncodeKey(nil, 300, vals, []Direction{Ascending, Descending})
	space, got, err := DecodeKey(key)
	if err != nil || space != 300 || len(got) != len(vals) {
		t.Fatalf("DecodeKey: %d %v %v", space, got, err)
	}
	for i := range vals {
		if got[i] != vals[i] {
			t.Errorf("value %d: %v, want %v", i, got[i], vals[i])
		}
	}
	// A key with only a space decodes to no values.
	if space, got, err := DecodeKey(EncodeUvarintAsc(nil, 9)); err != nil || space != 9 || len(got) != 0 {
		t.Errorf("space-only key: %d %v %v", space, got, err)
	}
}

func TestPrefixEnd(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""}, {"ff", ""}, {"ffff", ""}, {"00", "01"}, {"12ff", "13"}, {"12fffe", "12ffff"}, {"0a0b", "0a0c"},
	} {
		in, _ := hex.DecodeString(tc.in)
		orig := bytes.Clone(in)
		got := PrefixEnd(in)
		if hex.EncodeToString(got) != tc.want || (tc.want == "" && got != nil) {
			t.Errorf("PrefixEnd(%s) = %x, want %s", tc.in, got, tc.want)
		}
		if !bytes.Equal(in, orig) {
			t.Errorf("PrefixEnd modified its input")
		}
	}
	// Every key extending a prefix sorts below PrefixEnd, for a value
	// prefix too: "a" < "a\x00" < "ab" < PrefixEnd(key("a")) < key("b").
	p := EncodeKey(nil, 3, []types.Datum{types.NewText("a")}, nil)
	end := PrefixEnd(p)
	for _, s := range []string{"a", "a\x00", "a\xff"} {
		k := EncodeKey(nil, 3, []types.Datum{types.NewText("a"), types.NewText(s)}, nil)
		if bytes.Compare(k, end) >= 0 {
			t.Errorf("%s not below PrefixEnd %s", Pretty(k), Pretty(end))
		}
	}
	for _, s := range []string{"a\x00", "ab", "b"} {
		k := EncodeKey(nil, 3, []types.Datum{types.NewText(s)}, nil)
		if bytes.Compare(k, end) < 0 {
			t.Errorf("%s below PrefixEnd %s", Pretty(k), Pretty(end))
		}
	}
}

func TestEncodeKeyDatumPanicsOnBadKind(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic for an invalid kind")
		}
	}()
	EncodeKeyDatum(nil, types.Datum{Kind: 99}, Ascending)
}

// TestRangeRecipes checks the scan bounds of the package doc's table on
// keys that carry a further column after the scanned one, in both
// directions, with NULLs.
func TestRangeRecipes(t *testing.T) {
	r := newRand(t)
	p := EncodeUvarintAsc(nil, 9)
	end := PrefixEnd
	for range 3000 {
		dir := dirs[r.IntN(2)]
		enc := func(d types.Datum) []byte { return EncodeKeyDatum(bytes.Clone(p), d, dir) }
		v, x := randDatum(r, types.KindText), randDatum(r, types.KindText)
		if r.IntN(5) == 0 {
			x = types.Null
		}
		key := EncodeKeyDatum(enc(x), types.NewInt(randInt(r)), Ascending)
		c := compareKey(x, v)
		type rng struct{ start, end []byte }
		var ranges map[string]rng
		if dir == Ascending {
			ranges = map[string]rng{
				">=": {enc(v), enc(types.Null)}, ">": {end(enc(v)), enc(types.Null)},
				"<=": {p, end(enc(v))}, "<": {p, enc(v)}, "not null": {p, enc(types.Null)},
			}
		} else {
			ranges = map[string]rng{
				">=": {end(enc(types.Null)), end(enc(v))}, ">": {end(enc(types.Null)), enc(v)},
				"<=": {enc(v), end(p)}, "<": {end(enc(v)), end(p)}, "not null": {end(enc(types.Null)), end(p)},
			}
		}
		ranges["is null"] = rng{enc(types.Null), end(enc(types.Null))}
		ranges["all"] = rng{p, end(p)}
		nn := !x.IsNull()
		want := map[string]bool{
			">=": nn && c >= 0, ">": nn && c > 0, "<=": nn && c <= 0, "<": nn && c < 0,
			"not null": nn, "is null": !nn, "all": true,
		}
		for op, rg := range ranges {
			got := bytes.Compare(key, rg.start) >= 0 && bytes.Compare(key, rg.end) < 0
			if got != want[op] {
				t.Fatalf("%v: x=%v %s v=%v: key %s in [%s, %s) = %v", dir, x, op, v, Pretty(key), Pretty(rg.start), Pretty(rg.end), got)
			}
		}
	}
}
