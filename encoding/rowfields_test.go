package encoding

import (
	"testing"

	"github.com/kvsql/kvsql/types"
)

// TestDecodeRowFields checks DecodeRowFields against DecodeRow on random
// rows: every requested column present in the row gives the same kind and
// value (bytes for strings), absent ones are reported absent, and a
// corrupt value fails as DecodeRow fails.
func TestDecodeRowFields(t *testing.T) {
	r := newRand(t)
	for range 2000 {
		ids, vals := randRow(r)
		enc := EncodeRow(nil, ids, vals)
		var ask []uint32
		for id := uint32(0); id < 40; id++ {
			if r.IntN(2) == 0 {
				ask = append(ask, id)
			}
		}
		want := make([]types.Datum, len(ask))
		sentinel := types.NewText("<absent>")
		for i := range want {
			want[i] = sentinel
		}
		if err := DecodeRow(enc, ask, want); err != nil {
			t.Fatal(err)
		}
		fields, present := make([]RowField, len(ask)), make([]bool, len(ask))
		if err := DecodeRowFields(enc, ask, fields, present); err != nil {
			t.Fatalf("DecodeRowFields(%s): %v", PrettyRow(enc), err)
		}
		for i, w := range want {
			f := fields[i]
			if absent := sameDatum(w, sentinel); absent != !present[i] {
				t.Fatalf("column %d of %s: present %v, DecodeRow gave %v", ask[i], PrettyRow(enc), present[i], w)
			}
			if !present[i] || w.Kind == types.KindInterval {
				continue // intervals are skipped, not decoded
			}
			got := types.Datum{Kind: f.Kind, I: f.I, F: f.F, S: string(f.B)}
			if f.JSONB {
				got.I = types.TextJSONB
			}
			if f.Kind == types.KindFloat {
				got.I = 0
			}
			if !sameDatum(got, w) {
				t.Fatalf("column %d of %s: got %+v, want %v", ask[i], PrettyRow(enc), f, w)
			}
		}
	}
	// A truncated body fails in both.
	enc := EncodeRow(nil, []uint32{1, 2}, []types.Datum{types.NewInt(1), types.NewText("hello")})
	bad := enc[:len(enc)-2]
	fields, present := make([]RowField, 2), make([]bool, 2)
	if err := DecodeRowFields(bad, []uint32{1, 2}, fields, present); err == nil {
		t.Fatalf("DecodeRowFields(%x) of a truncated value: no error", bad)
	}
}

// TestSkipRowIntMatchesReadUvarint checks skipRowBody's short-integer
// path against readUvarint on every input of up to three bytes whose
// first byte is one of a few (the path reads only its high bit): the
// same inputs are accepted (shortest forms only), with the same length.
func TestSkipRowIntMatchesReadUvarint(t *testing.T) {
	check := func(b []byte) {
		rest, err := skipRowBody(b, rowInt)
		_, n := readUvarint(b)
		if (n > 0) != (err == nil) || (n > 0 && len(rest) != len(b)-n) {
			t.Fatalf("% x: skip left %d bytes (err %v), readUvarint read %d", b, len(rest), err, n)
		}
	}
	check(nil)
	for _, b0 := range []byte{0x00, 0x01, 0x7f, 0x80, 0x81, 0xfe, 0xff} {
		check([]byte{b0})
		for x := range 1 << 16 {
			check([]byte{b0, byte(x)})
			check([]byte{b0, byte(x), byte(x >> 8)})
		}
	}
}
