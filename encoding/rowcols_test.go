package encoding

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// checkRowColsAgrees decodes b with DecodeRowInto and DecodeRowCols into
// rows pre-filled with a marker (so an absent column must stay untouched)
// and fails unless both give the same verdict, the same error code and
// the same row.
func checkRowColsAgrees(t testing.TB, b []byte, ids []uint32, ords []int, width int) {
	marker := types.NewText("untouched")
	want, got := make([]types.Datum, width), make([]types.Datum, width)
	for i := range want {
		want[i], got[i] = marker, marker
	}
	wantErr := DecodeRowInto(b, ids, ords, want)
	gotErr := DecodeRowCols(b, ids, ords, got)
	if (wantErr == nil) != (gotErr == nil) {
		t.Fatalf("row %x, columns %v: DecodeRowCols = %v, DecodeRowInto = %v", b, ids, gotErr, wantErr)
	}
	if wantErr != nil {
		if !errors.Is(gotErr, ErrCorrupt) || pgerror.CodeOf(gotErr) != pgerror.CodeOf(wantErr) {
			t.Fatalf("row %x: DecodeRowCols error %v, DecodeRowInto %v", b, gotErr, wantErr)
		}
		return
	}
	for i := range want {
		if !sameDatum(want[i], got[i]) {
			t.Fatalf("row %x, columns %v: out[%d] = %v, DecodeRowInto gives %v", b, ids, i, got[i], want[i])
		}
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
