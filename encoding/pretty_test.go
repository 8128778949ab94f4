package encoding

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/kvsql/kvsql/types"
)

// goldenCheck compares got with testdata/name, or writes it with -rewrite.
func goldenCheck(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *rewriteFlag {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -rewrite to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the output (run with -rewrite to accept):\n--- got\n%s", path, got)
	}
}

func hexKey(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// TestPrettyGolden renders well-formed and damaged keys and row values;
// testdata/pretty shows each as hex and as Pretty / PrettyRow prints it.
func TestPrettyGolden(t *testing.T) {
	asc, desc := Ascending, Descending
	keys := [][]byte{
		nil,
		EncodeUvarintAsc(nil, SystemSpace),
		EncodeKey(nil, 52, []types.Datum{types.NewInt(1), types.NewText("abc"), types.Null, types.NewInt(7), types.NewDate(19724)},
			[]Direction{asc, asc, asc, desc, asc}),
		EncodeKey(nil, 1000, []types.Datum{types.NewInt(math.MinInt64), types.NewInt(-1), types.NewInt(64), types.NewInt(math.MaxInt64)}, nil),
		EncodeKey(nil, 7, []types.Datum{types.NewFloat(math.Inf(-1)), types.NewFloat(-1.5), types.NewFloat(0), types.NewFloat(1),
			types.NewFloat(1e21), types.NewFloat(math.Inf(1)), types.NewFloat(math.NaN())}, nil),
		EncodeKey(nil, 7, []types.Datum{types.NewText(""), types.NewText("a\x00b\"c"), types.NewBytes([]byte{0, 0xff}), types.NewBool(false), types.NewBool(true)},
			[]Direction{desc, desc, desc, desc, desc}),
		EncodeKey(nil, 7, []types.Datum{types.NewTimestamp(1_704_164_645_123_456), types.NewTimestamp(0), types.Null},
			[]Direction{asc, desc, desc}),
		EncodeKey(nil, 1<<40, nil, nil),
		hexKey("f8"),           // truncated space
		hexKey("0529ff"),       // bad tag after a good value
		hexKey("05291c616263"), // unterminated string
		PrefixEnd(EncodeKey(nil, 5, []types.Datum{types.NewText("a")}, nil)),
	}
	var out bytes.Buffer
	out.WriteString("# Keys: hex, then Pretty.\n")
	for _, k := range keys {
		fmt.Fprintf(&out, "%s\n    %s\n", hexOrEmpty(k), Pretty(k))
	}
	out.WriteString("\n# Row values: hex, then PrettyRow.\n")
	rows := [][]byte{
		EncodeRow(nil, nil, nil),
		EncodeRow(nil, []uint32{1, 2, 5, 6, 100}, []types.Datum{types.NewInt(42), types.Null, types.NewText("ab"),
			types.NewFloat(2.5), types.NewBytes([]byte("\x01"))}),
		EncodeRow(nil, []uint32{3, 4, 5}, []types.Datum{types.NewBool(true), types.NewDate(0), types.NewTimestamp(-1)}),
		hexKey("135409"), // good column, then an unknown tag
	}
	for _, v := range rows {
		fmt.Fprintf(&out, "%s\n    %s\n", hexOrEmpty(v), PrettyRow(v))
	}
	goldenCheck(t, "pretty", out.Bytes())
}

// TestPrettyNeverFails renders random bytes: no panic, and a key that
// decodes renders without the bad marker.
func TestPrettyNeverFails(t *testing.T) {
	r := newRand(t)
	for range 20000 {
		b := make([]byte, r.IntN(12))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		s := Pretty(b)
		_, _, err := DecodeKey(b)
		if (err == nil) == bytes.Contains([]byte(s), []byte(badMarker)) && len(b) > 0 {
			t.Fatalf("Pretty(%x) = %s but DecodeKey err = %v", b, s, err)
		}
		PrettyRow(b)
	}
}

func hexOrEmpty(b []byte) string {
	if len(b) == 0 {
		return "(empty)"
	}
	return hex.EncodeToString(b)
}
