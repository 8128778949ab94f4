package encoding

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// checkRowColsAgrees decodes b with DecodeRowInto, DecodeRowCols and
// DecodeRowColsShared (of a copy of b) into rows pre-filled with a marker
// (so an absent column must stay untouched) and fails unless all give the
// same verdict, the same error code and the same row.
func checkRowColsAgrees(t testing.TB, b []byte, ids []uint32, ords []int, width int) {
	checkRowDecoderAgrees(t, b, ids, ords, width, "DecodeRowCols", DecodeRowCols)
	checkRowDecoderAgrees(t, b, ids, ords, width, "DecodeRowColsShared", func(b []byte, ids []uint32, ords []int, out []types.Datum) error {
		return DecodeRowColsShared(slices.Clone(b), ids, ords, out)
	})
}

// checkRowDecoderAgrees is checkRowColsAgrees for one decoder.
func checkRowDecoderAgrees(t testing.TB, b []byte, ids []uint32, ords []int, width int, name string, decode func([]byte, []uint32, []int, []types.Datum) error) {
	marker := types.NewText("untouched")
	want, got := make([]types.Datum, width), make([]types.Datum, width)
	for i := range want {
		want[i], got[i] = marker, marker
	}
	wantErr := DecodeRowInto(b, ids, ords, want)
	gotErr := decode(b, ids, ords, got)
	if (wantErr == nil) != (gotErr == nil) {
		t.Fatalf("row %x, columns %v: %s = %v, DecodeRowInto = %v", b, ids, name, gotErr, wantErr)
	}
	if wantErr != nil {
		if !errors.Is(gotErr, ErrCorrupt) || pgerror.CodeOf(gotErr) != pgerror.CodeOf(wantErr) {
			t.Fatalf("row %x: %s error %v, DecodeRowInto %v", b, name, gotErr, wantErr)
		}
		return
	}
	for i := range want {
		if !sameDatum(want[i], got[i]) {
			t.Fatalf("row %x, columns %v: %s out[%d] = %v, DecodeRowInto gives %v", b, ids, name, i, got[i], want[i])
		}
	}
}

// TestDecodeRowColsShared: DecodeRowColsShared's string-like values are
// substrings of the buffer it was given, not copies, and decoding a row
// of text columns allocates nothing.
func TestDecodeRowColsShared(t *testing.T) {
	ids := []uint32{1, 2, 3, 4, 5}
	vals := []types.Datum{types.NewText(strings.Repeat("a", 100)), types.NewInt(7), types.NewBytes([]byte{0, 1, 2}),
		types.NewText(""), types.NewText(strings.Repeat("é", 60))}
	b := EncodeRow(nil, ids, vals)
	ords := []int{0, 1, 2, 3, 4}
	out := make([]types.Datum, len(ids))
	if err := DecodeRowColsShared(b, ids, ords, out); err != nil {
		t.Fatal(err)
	}
	lo, hi := uintptr(unsafe.Pointer(&b[0])), uintptr(unsafe.Pointer(&b[0]))+uintptr(len(b))
	for i, d := range out {
		if !sameDatum(d, vals[i]) {
			t.Fatalf("out[%d] = %v, want %v", i, d, vals[i])
		}
		if d.Kind == types.KindInt || d.S == "" {
			continue
		}
		if p := uintptr(unsafe.Pointer(unsafe.StringData(d.S))); p < lo || p+uintptr(len(d.S)) > hi {
			t.Errorf("out[%d] (%v) is a copy, not a substring of the value", i, d)
		}
	}
	if n := testing.AllocsPerRun(100, func() {
		if err := DecodeRowColsShared(b, ids, ords, out); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("DecodeRowColsShared: %v allocations per row, want 0", n)
	}
	// An empty value decodes to nothing, as DecodeRowCols does.
	out[0] = types.Null
	if err := DecodeRowColsShared(nil, ids, ords, out); err != nil || !out[0].IsNull() {
		t.Errorf("empty value: %v, out[0] = %v", err, out[0])
	}
}

// randomRowDatum is a datum of a random row-value kind.
func randomRowDatum(r *rand.Rand) types.Datum {
	switch r.IntN(9) {
	case 0:
		return types.Null
	case 1:
		return types.NewBool(r.IntN(2) == 0)
	case 2:
		return types.NewInt(r.Int64N(1<<uint(r.IntN(62)+1)) - 1<<20)
	case 3:
		return types.NewFloat(r.NormFloat64())
	case 4:
		return types.NewText(fmt.Sprint("text ", r.IntN(1e6)))
	case 5:
		return types.NewBytes([]byte{byte(r.IntN(256)), 0, 0x80})
	case 6:
		return types.NewDate(int64(r.IntN(40000) - 20000))
	case 7:
		return types.NewTimestamp(r.Int64())
	default:
		return types.NewInterval(types.IntervalValue{Micros: r.Int64N(1e12), Days: int32(r.IntN(400)), Months: int32(r.IntN(24))})
	}
}

// TestDecodeRowColsAgrees: on random rows (random column IDs, gaps and
// kinds, some cut short or with a byte changed) and random wanted columns
// scattered over a wider row, DecodeRowCols gives what DecodeRowInto
// gives.
func TestDecodeRowColsAgrees(t *testing.T) {
	seed := uint64(rand.Int64())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 17))
	corrupt := 0
	for range 20000 {
		var ids []uint32
		var vals []types.Datum
		id := uint32(r.IntN(3))
		for range r.IntN(16) {
			ids, vals = append(ids, id), append(vals, randomRowDatum(r))
			id += uint32(1 + r.IntN(1+r.IntN(200)))
		}
		b := EncodeRow(nil, ids, vals)
		switch r.IntN(4) {
		case 0:
			if len(b) > 0 {
				b = b[:r.IntN(len(b))]
			}
		case 1:
			if len(b) > 0 {
				b[r.IntN(len(b))] = byte(r.IntN(256))
			}
		}
		// Wanted columns: some of the row's, some absent, ascending.
		var want []uint32
		for c := uint32(0); c <= id+2; c++ {
			if r.IntN(4) == 0 {
				want = append(want, c)
			}
		}
		width := len(want) + r.IntN(4)
		ords := r.Perm(width)[:len(want)]
		if err := DecodeRowInto(b, want, ords, make([]types.Datum, width)); err != nil {
			corrupt++
		}
		checkRowColsAgrees(t, b, want, ords, width)
	}
	if corrupt == 0 {
		t.Fatal("no corrupt row was tried")
	}
	t.Logf("%d of 20000 rows corrupt", corrupt)
}

// TestDecodeRowColsArgs: ordinals that do not fit the call are internal
// errors, not panics.
func TestDecodeRowColsArgs(t *testing.T) {
	row := EncodeRow(nil, []uint32{1}, []types.Datum{types.NewInt(1)})
	for _, c := range []struct {
		ords  []int
		width int
	}{{[]int{0, 1}, 2}, {[]int{2}, 2}, {[]int{-1}, 2}} {
		err := DecodeRowCols(row, []uint32{1}, c.ords, make([]types.Datum, c.width))
		if !pgerror.HasCode(err, pgerror.Internal) {
			t.Errorf("ords %v width %d: %v, want an internal error", c.ords, c.width, err)
		}
	}
}

// FuzzDecodeRowCols: on arbitrary bytes DecodeRowCols never panics and
// agrees with DecodeRowInto.
func FuzzDecodeRowCols(f *testing.F) {
	for _, s := range rowSeeds() {
		f.Add(s)
	}
	ask := []uint32{0, 1, 2, 3, 5, 8, 13, 100}
	ords := []int{3, 9, 0, 7, 1, 5, 2, 8}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkRowColsAgrees(t, b, ask, ords, 10)
	})
}

// lookupRow is a master value of the bench's lookup table
// (bench/indexwl.go): twelve INTs (IDs 2–13) of up to 3-byte varints and
// a 20-byte pad (ID 14); an index lookup reads pad only.
func lookupRow() []byte {
	var ids []uint32
	var vals []types.Datum
	for i := range 12 {
		ids, vals = append(ids, uint32(2+i)), append(vals, types.NewInt(int64(98765>>(2*i))))
	}
	ids, vals = append(ids, 14), append(vals, types.NewText("padding twenty bytes"))
	return EncodeRow(nil, ids, vals)
}

// BenchmarkDecodeLookupPad reads pad from a lookup row into a 14-wide row
// as an index lookup's master read does: DecodeRowInto (every skipped
// column builds a Datum) against DecodeRowCols.
func BenchmarkDecodeLookupPad(b *testing.B) {
	row := lookupRow()
	ids, ords := []uint32{14}, []int{13}
	out := make([]types.Datum, 14)
	for _, c := range []struct {
		name string
		dec  func([]byte, []uint32, []int, []types.Datum) error
	}{{"DecodeRowInto", DecodeRowInto}, {"DecodeRowCols", DecodeRowCols}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := c.dec(row, ids, ords, out); err != nil || out[13].S != "padding twenty bytes" {
					b.Fatal(err, out[13])
				}
			}
		})
	}
}

// BenchmarkDecodeRowYCSB decodes every column of a YCSB usertable value
// (ten 100-byte text fields, IDs 2–11) as a SELECT * master get does:
// DecodeRowCols copies each value into a string of its own,
// DecodeRowColsShared makes them substrings of the value.
func BenchmarkDecodeRowYCSB(b *testing.B) {
	var ids []uint32
	var vals []types.Datum
	var ords []int
	for f := range 10 {
		ids, vals, ords = append(ids, uint32(2+f)), append(vals, types.NewText(strings.Repeat(string(rune('a'+f)), 100))), append(ords, 1+f)
	}
	row := EncodeRow(nil, ids, vals)
	out := make([]types.Datum, 11)
	for _, c := range []struct {
		name   string
		decode func([]byte, []uint32, []int, []types.Datum) error
	}{{"DecodeRowCols", DecodeRowCols}, {"DecodeRowColsShared", DecodeRowColsShared}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := c.decode(row, ids, ords, out); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
