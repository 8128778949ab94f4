package exec

import (
	"bytes"
	"math"
	"math/rand"
	"testing"

	"github.com/kvsql/kvsql/types"
)

func TestRowFormatRoundTrip(t *testing.T) {
	row := []types.Datum{types.Null, types.NewBool(true), types.NewInt(math.MinInt64), types.NewFloat(-0.5),
		types.NewFloat(math.Inf(1)), types.NewText("héllo"), types.NewBytes([]byte{0, 255}), types.NewDate(-3), types.NewTimestamp(1 << 50),
		types.NewTime(3600e6), types.NewInterval(types.IntervalValue{Months: -1, Days: 2, Micros: 3}), {Kind: types.KindDecimal, S: "-101.50"},
		types.NewArray([]types.Datum{types.NewInt(1), types.Null}), types.NewRecord([]types.Datum{types.NewInt(1), types.Null, types.NewText("a,b")})}
	kinds := map[types.Kind]bool{}
	for _, d := range row {
		kinds[d.Kind] = true
	}
	for k := types.KindNull; k <= types.KindRecord; k++ {
		if !kinds[k] {
			t.Errorf("the row has no %s value: every kind must round-trip", k)
		}
	}
	b := appendRow(nil, row)
	got, n, err := decodeRow(append(b, 0xee), nil)
	if err != nil {
		t.Fatal(err)
	}
	if n != len(b) {
		t.Errorf("decodeRow took %d bytes, the row has %d", n, len(b))
	}
	if render([][]types.Datum{got}) != render([][]types.Datum{row}) {
		t.Errorf("round trip: %v != %v", got, row)
	}
	for i := 0; i < len(b); i++ {
		if _, _, err := decodeRow(b[:i], nil); err == nil {
			t.Errorf("a row cut to %d of %d bytes decoded", i, len(b))
		}
	}
}

// randRow is a row of random values of every kind the format writes,
// text values sometimes longer than a spill file's read buffer.
func randRow(r *rand.Rand) []types.Datum {
	row := make([]types.Datum, r.Intn(6))
	for i := range row {
		switch r.Intn(8) {
		case 0:
			row[i] = types.Null
		case 1:
			row[i] = types.NewBool(r.Intn(2) == 0)
		case 2:
			row[i] = types.NewInt(r.Int63() - r.Int63())
		case 3:
			row[i] = types.NewFloat(r.NormFloat64())
		case 4:
			n := r.Intn(20)
			if r.Intn(50) == 0 {
				n = spillBufSize + r.Intn(1000)
			}
			b := make([]byte, n)
			r.Read(b)
			row[i] = types.NewText(string(b))
		case 5:
			row[i] = types.NewJSONB(`{"a": 1}`)
		case 6:
			row[i] = types.NewBytes([]byte{byte(r.Intn(256))})
		default:
			row[i] = types.NewTimestamp(r.Int63())
		}
	}
	return row
}

// TestSpillFileRandom: rows written to a spill file read back equal, both
// from the file (records decoded in its read buffer or, when longer,
// copied out) and decoded straight from their bytes as a sort payload.
func TestSpillFileRandom(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	f, err := newSpillFile(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer f.close()
	var rows [][]types.Datum
	for i := 0; i < 3000; i++ {
		row := randRow(r)
		rows = append(rows, row)
		if err := f.write(row); err != nil {
			t.Fatal(err)
		}
		got, err := decodePayload(appendRow(nil, row), nil)
		if err != nil || render([][]types.Datum{got}) != render([][]types.Datum{row}) {
			t.Fatalf("payload %d: %v != %v (%v)", i, got, row, err)
		}
	}
	for pass := 0; pass < 2; pass++ {
		sr, err := f.reader()
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range rows {
			got, err := sr.next()
			if err != nil || got == nil || render([][]types.Datum{got}) != render([][]types.Datum{want}) {
				t.Fatalf("row %d: %v != %v (%v)", i, got, want, err)
			}
		}
		if got, err := sr.next(); got != nil || err != nil {
			t.Fatalf("past the end: %v, %v", got, err)
		}
	}
}

// FuzzReadRow: decoding arbitrary bytes never panics, takes no more than
// it is given, and whatever decodes re-encodes to the bytes it took (or,
// for non-canonical varints, to a row that decodes the same).
func FuzzReadRow(f *testing.F) {
	f.Add(appendRow(nil, []types.Datum{types.NewInt(7), types.NewText("x")}))
	f.Add([]byte{0x02, 0x04, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		row, n, err := decodeRow(b, nil)
		if err != nil {
			return
		}
		if n > len(b) {
			t.Fatalf("took %d of %d bytes", n, len(b))
		}
		enc := appendRow(nil, row)
		if !bytes.Equal(b[:n], enc) {
			again, m, err := decodeRow(enc, nil)
			if err != nil || m != len(enc) || render([][]types.Datum{again}) != render([][]types.Datum{row}) {
				t.Fatalf("re-encoding changed %v", row)
			}
		}
	})
}
