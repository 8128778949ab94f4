package encoding

import (
	"encoding/hex"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// randRow returns strictly ascending column IDs (small gaps mostly, some
// large ones up to MaxUint32) and random values of random kinds.
func randRow(r *rand.Rand) ([]uint32, []types.Datum) {
	n := r.IntN(12)
	ids := make([]uint32, 0, n)
	vals := make([]types.Datum, 0, n)
	next := uint64(r.IntN(3))
	for range n {
		if r.IntN(10) == 0 {
			next += uint64(r.Uint32() >> r.IntN(32))
		}
		if next > math.MaxUint32 {
			break
		}
		ids = append(ids, uint32(next))
		vals = append(vals, randDatum(r, keyKinds[r.IntN(len(keyKinds))]))
		next += 1 + uint64(r.IntN(3))
	}
	return ids, vals
}

func TestRowRoundTrip(t *testing.T) {
	r := newRand(t)
	missing := types.NewText("<default>")
	for range 2000 {
		ids, vals := randRow(r)
		enc := EncodeRow([]byte("xx"), ids, vals)[2:]
		gotIDs, gotVals, err := DecodeRowAll(enc)
		if err != nil || len(gotIDs) != len(ids) {
			t.Fatalf("DecodeRowAll(%x): %v %v %v", enc, gotIDs, gotVals, err)
		}
		for i := range ids {
			if gotIDs[i] != ids[i] || !sameDatum(gotVals[i], vals[i]) {
				t.Fatalf("column %d: got %d=%v, want %d=%v", i, gotIDs[i], gotVals[i], ids[i], vals[i])
			}
		}
		// Ask for a random subset of the written IDs plus IDs that were
		// never written: the former are found, the latter stay default.
		want := map[uint32]types.Datum{}
		for i, id := range ids {
			want[id] = vals[i]
		}
		var ask []uint32
		for id := uint32(0); id < 40; id++ {
			if r.IntN(2) == 0 {
				ask = append(ask, id)
			}
		}
		out := make([]types.Datum, len(ask))
		for i := range out {
			out[i] = missing
		}
		if err := DecodeRow(enc, ask, out); err != nil {
			t.Fatalf("DecodeRow(%x, %v): %v", enc, ask, err)
		}
		for i, id := range ask {
			w, ok := want[id]
			if !ok {
				w = missing
			}
			if !sameDatum(out[i], w) {
				t.Fatalf("DecodeRow(%s) column %d: got %v, want %v", PrettyRow(enc), id, out[i], w)
			}
		}
	}
}

func TestRowExactBytes(t *testing.T) {
	for _, tc := range []struct {
		ids  []uint32
		vals []types.Datum
		hex  string
	}{
		{nil, nil, ""},
		// id 1 gap 1 int 42 (zigzag 84); id 2 gap 0 NULL; id 5 gap 2 text "ab".
		{[]uint32{1, 2, 5}, []types.Datum{types.NewInt(42), types.Null, types.NewText("ab")}, "1354002502" + "6162"},
		{[]uint32{0}, []types.Datum{types.NewInt(-1)}, "0301"},
		{[]uint32{3, 4}, []types.Datum{types.NewBool(true), types.NewBool(false)}, "3201"},
		{[]uint32{7}, []types.Datum{types.NewFloat(1)}, "74000000000000f03f"},
		{[]uint32{8}, []types.Datum{types.Null}, "8001"}, // gap 8: a 2-byte header
		{[]uint32{0, 1}, []types.Datum{types.NewDate(-2), types.NewTimestamp(2)}, "07030804"},
		{[]uint32{0}, []types.Datum{types.NewBytes(nil)}, "0600"},
	} {
		if got := hex.EncodeToString(EncodeRow(nil, tc.ids, tc.vals)); got != tc.hex {
			t.Errorf("EncodeRow(%v, %v) = %s, want %s", tc.ids, tc.vals, got, tc.hex)
		}
	}
}

// TestRowNullVersusAbsent: a stored NULL overwrites the default, an
// absent column leaves it.
func TestRowNullVersusAbsent(t *testing.T) {
	enc := EncodeRow(nil, []uint32{1, 2}, []types.Datum{types.NewInt(1), types.Null})
	out := []types.Datum{types.NewInt(-1), types.NewInt(-2), types.NewInt(-3)}
	if err := DecodeRow(enc, []uint32{1, 2, 3}, out); err != nil {
		t.Fatal(err)
	}
	if out[0] != types.NewInt(1) || out[1] != types.Null || out[2] != types.NewInt(-3) {
		t.Fatalf("got %v", out)
	}
}

func TestDecodeRowCorrupt(t *testing.T) {
	for _, bad := range []string{
		"03",                     // int without a body
		"0380",                   // truncated varint
		"038000",                 // non-shortest varint
		"04000000",               // short float
		"0505616263",             // string longer than the value
		"09",                     // unknown tag
		"80",                     // truncated header
		"808080808002",           // column ID 2^32
		"03ffffffffffffffffff02", // varint over 64 bits
	} {
		b, _ := hex.DecodeString(bad)
		if _, _, err := DecodeRowAll(b); !errors.Is(err, ErrCorrupt) || !pgerror.HasCode(err, pgerror.DataCorrupted) {
			t.Errorf("DecodeRowAll(%s): err = %v, want ErrCorrupt with XX001", bad, err)
		}
		out := make([]types.Datum, 1)
		if err := DecodeRow(b, []uint32{math.MaxUint32}, out); !errors.Is(err, ErrCorrupt) {
			t.Errorf("DecodeRow(%s): err = %v, want ErrCorrupt", bad, err)
		}
	}
	if err := DecodeRow(nil, []uint32{1, 2}, make([]types.Datum, 1)); pgerror.CodeOf(err) != pgerror.Internal {
		t.Errorf("short out: %v", err)
	}
}

func TestEncodeRowPanicsOnBadIDs(t *testing.T) {
	for _, ids := range [][]uint32{{2, 2}, {3, 1}, {1}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("EncodeRow(%v, 2 values) did not panic", ids)
				}
			}()
			EncodeRow(nil, ids, []types.Datum{types.Null, types.Null})
		}()
	}
}
