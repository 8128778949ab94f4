package encoding

import (
	"testing"

	"github.com/kvsql/kvsql/types"
)

var (
	benchKey = []types.Datum{types.NewInt(123456), types.NewText("customer-00042"), types.NewInt(7)}
	benchIDs = []uint32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	benchRow = []types.Datum{
		types.NewInt(1), types.NewInt(-42), types.NewInt(1 << 40), types.NewFloat(3.25), types.NewBool(true),
		types.Null, types.NewDate(19724), types.NewTimestamp(1_704_164_645_123_456), types.NewInt(99), types.NewInt(0),
	}
	benchRowText = []types.Datum{
		types.NewInt(1), types.NewText("alice"), types.NewInt(1 << 40), types.NewFloat(3.25), types.NewBool(true),
		types.Null, types.NewDate(19724), types.NewText("some longer text value"), types.NewInt(99), types.NewBytes([]byte("xyz")),
	}
)

// TestAllocations pins the allocation-free paths.
func TestAllocations(t *testing.T) {
	buf := make([]byte, 0, 256)
	dirs := []Direction{Ascending, Descending, Ascending}
	if n := testing.AllocsPerRun(100, func() { buf = EncodeKey(buf[:0], 52, benchKey, dirs) }); n != 0 {
		t.Errorf("EncodeKey into a reused buffer: %v allocs", n)
	}
	if n := testing.AllocsPerRun(100, func() { buf = EncodeRow(buf[:0], benchIDs, benchRowText) }); n != 0 {
		t.Errorf("EncodeRow into a reused buffer: %v allocs", n)
	}
	intKey := EncodeKey(nil, 52, []types.Datum{types.NewInt(-5), types.NewFloat(2), types.NewDate(3)}, dirs)
	vals := make([]types.Datum, 0, 8)
	if n := testing.AllocsPerRun(100, func() { _, vals, _ = DecodeKeyAppend(intKey, vals[:0]) }); n != 0 {
		t.Errorf("DecodeKeyAppend without strings: %v allocs", n)
	}
	textKey := EncodeKey(nil, 52, benchKey, dirs)
	if n := testing.AllocsPerRun(100, func() { _, vals, _ = DecodeKeyAppend(textKey, vals[:0]) }); n != 1 {
		t.Errorf("DecodeKeyAppend with one descending string: %v allocs, want 1", n)
	}
	row := EncodeRow(nil, benchIDs, benchRow)
	out := make([]types.Datum, len(benchIDs))
	if n := testing.AllocsPerRun(100, func() { _ = DecodeRow(row, benchIDs, out) }); n != 0 {
		t.Errorf("DecodeRow without strings: %v allocs", n)
	}
	rowText := EncodeRow(nil, benchIDs, benchRowText)
	if n := testing.AllocsPerRun(100, func() { _ = DecodeRow(rowText, []uint32{1, 3, 5}, out) }); n != 0 {
		t.Errorf("DecodeRow skipping strings: %v allocs", n)
	}
}

func BenchmarkEncodeKey3(b *testing.B) {
	buf := make([]byte, 0, 64)
	b.ReportAllocs()
	for b.Loop() {
		buf = EncodeKey(buf[:0], 52, benchKey, nil)
	}
}

func BenchmarkEncodeKey3Desc(b *testing.B) {
	buf := make([]byte, 0, 64)
	dirs := []Direction{Descending, Descending, Descending}
	b.ReportAllocs()
	for b.Loop() {
		buf = EncodeKey(buf[:0], 52, benchKey, dirs)
	}
}

func BenchmarkDecodeKey3(b *testing.B) {
	key := EncodeKey(nil, 52, benchKey, nil)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := DecodeKey(key); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeKeyAppend3(b *testing.B) {
	key := EncodeKey(nil, 52, benchKey, nil)
	vals := make([]types.Datum, 0, 8)
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if _, vals, err = DecodeKeyAppend(key, vals[:0]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeRow10(b *testing.B) {
	buf := make([]byte, 0, 256)
	b.ReportAllocs()
	for b.Loop() {
		buf = EncodeRow(buf[:0], benchIDs, benchRow)
	}
}

func BenchmarkDecodeRow10(b *testing.B) {
	row := EncodeRow(nil, benchIDs, benchRow)
	out := make([]types.Datum, len(benchIDs))
	b.ReportAllocs()
	for b.Loop() {
		if err := DecodeRow(row, benchIDs, out); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeRow10Text(b *testing.B) {
	row := EncodeRow(nil, benchIDs, benchRowText)
	out := make([]types.Datum, len(benchIDs))
	b.ReportAllocs()
	for b.Loop() {
		if err := DecodeRow(row, benchIDs, out); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeRowFieldsSkip: the batch scan's filter read, one column
// (ID 9) behind eight it skips, as the bench's "index lookup 10% full
// scan" reads s10_n of the lookup table.
func BenchmarkDecodeRowFieldsSkip(b *testing.B) {
	row := EncodeRow(nil, benchIDs, benchRowText)
	ids := []uint32{9}
	out, present := make([]RowField, 1), make([]bool, 1)
	b.ReportAllocs()
	for b.Loop() {
		if err := DecodeRowFields(row, ids, out, present); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeRowFieldsLookup reads one column of the bench's lookup
// row (bench/indexwl.go: nine INTs of up to 3-byte varints, a 20-byte
// text) as the filtered full scan does: s1_n, after five INTs skipped.
func BenchmarkDecodeRowFieldsLookup(b *testing.B) {
	ids := []uint32{2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
	vals := []types.Datum{types.NewInt(9876), types.NewInt(9876), types.NewInt(9876), types.NewInt(76), types.NewInt(76),
		types.NewInt(76), types.NewInt(6), types.NewInt(6), types.NewInt(6), types.NewText("padding twenty bytes")}
	row := EncodeRow(nil, ids, vals)
	want := []uint32{7}
	out, present := make([]RowField, 1), make([]bool, 1)
	for b.Loop() {
		if err := DecodeRowFields(row, want, out, present); err != nil || out[0].I != 76 {
			b.Fatal(err, out[0].I)
		}
	}
}
