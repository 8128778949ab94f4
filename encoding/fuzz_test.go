package encoding

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// keySeeds and rowSeeds are the fuzz seed corpora; TestFuzzSeedCorpus
// keeps testdata/fuzz/<target>/ in step with them (-rewrite writes it).
// grid is a two-dimensional array seed, {{1,2},{3,NULL}}.
var grid = types.NewArrayShaped([]types.Datum{types.NewInt(1), types.NewInt(2), types.NewInt(3), types.Null},
	types.ArrayShape{Lens: []int{2, 2}, Lower: []int{1, 1}})

func keySeeds() [][]byte {
	return [][]byte{
		EncodeKey(nil, 52, []types.Datum{types.NewInt(1), types.NewText("a\x00b"), types.Null}, []Direction{Ascending, Descending}),
		EncodeKey(nil, 1<<20, []types.Datum{types.NewInt(math.MinInt64), types.NewFloat(math.NaN()), types.NewFloat(-2.5)}, []Direction{Descending}),
		EncodeKey(nil, 3, []types.Datum{types.NewBytes([]byte{0xff, 0}), types.NewDate(19724), types.NewTimestamp(-77), types.NewBool(true)}, nil),
		EncodeKey(nil, 3, []types.Datum{types.NewInt(math.MaxInt64), types.NewInt(-257), types.NewInt(64)}, []Direction{Descending, Descending, Descending}),
		EncodeKey(nil, 7, []types.Datum{grid, types.NewArrayShaped([]types.Datum{types.Null}, types.ArrayShape{Lens: []int{1}, Lower: []int{-3}})}, []Direction{Ascending, Descending}),
		{0x05, 0x29, 0xff},
		{0xf8},
	}
}

func rowSeeds() [][]byte {
	return [][]byte{
		EncodeRow(nil, []uint32{1, 2, 5, 6, 100}, []types.Datum{types.NewInt(42), types.Null, types.NewText("ab"), types.NewFloat(2.5), types.NewBytes([]byte{1})}),
		EncodeRow(nil, []uint32{0, 3, math.MaxUint32}, []types.Datum{types.NewBool(false), types.NewDate(-1), types.NewTimestamp(math.MinInt64)}),
		EncodeRow(nil, []uint32{9}, []types.Datum{types.NewFloat(math.Copysign(0, -1))}),
		EncodeRow(nil, []uint32{1, 2}, []types.Datum{grid, types.NewArrayShaped([]types.Datum{types.NewText("x")}, types.ArrayShape{Lens: []int{1}, Lower: []int{0}})}),
		{0x03, 0x80, 0x00},
		{},
	}
}

// FuzzDecodeKey: decoding arbitrary bytes never panics; an error is
// ErrCorrupt with XX001; a key that decodes re-encodes to exactly the same
// bytes (every value has one accepted form), and Pretty renders it
// without the bad marker.
func FuzzDecodeKey(f *testing.F) {
	for _, s := range keySeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		// DecodeKeyInt agrees with DecodeKeyDatum on whatever it accepts.
		irest, iv, iok, ierr := DecodeKeyInt(b)
		drest, d, _, derr := DecodeKeyDatum(b)
		switch {
		case ierr != nil && derr == nil:
			t.Fatalf("DecodeKeyInt(%x) = %v, DecodeKeyDatum accepts it", b, ierr)
		case iok && (derr != nil || d.Kind != types.KindInt || d.I != iv || !bytes.Equal(irest, drest)):
			t.Fatalf("DecodeKeyInt(%x) = %d, DecodeKeyDatum = %v, %v", b, iv, d, derr)
		case !iok && ierr == nil && derr == nil && d.Kind == types.KindInt:
			t.Fatalf("DecodeKeyInt(%x) declined the integer %v", b, d)
		}
		space, vals, err := DecodeKey(b)
		pretty := Pretty(b)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) || !pgerror.HasCode(err, pgerror.DataCorrupted) {
				t.Fatalf("DecodeKey(%x): error %v lacks ErrCorrupt/XX001", b, err)
			}
			return
		}
		if bytes.Contains([]byte(pretty), []byte(badMarker)) {
			t.Fatalf("Pretty(%x) = %s for a valid key", b, pretty)
		}
		// Recover the directions, then re-encode.
		rest, _, _ := DecodeUvarintAsc(b)
		var dirs []Direction
		for len(rest) > 0 {
			var dir Direction
			rest, _, dir, err = DecodeKeyDatum(rest)
			if err != nil {
				t.Fatalf("DecodeKeyDatum failed where DecodeKey succeeded: %v", err)
			}
			dirs = append(dirs, dir)
		}
		again := EncodeKey(nil, space, vals, dirs)
		if !bytes.Equal(again, b) {
			t.Fatalf("re-encoding %x (%s) gave %x", b, pretty, again)
		}
	})
}

// FuzzDecodeRow: decoding arbitrary bytes never panics; a value that
// decodes re-encodes to exactly the same bytes, and DecodeRow agrees with
// DecodeRowAll on the columns it is asked for.
func FuzzDecodeRow(f *testing.F) {
	for _, s := range rowSeeds() {
		f.Add(s)
	}
	ask := []uint32{0, 1, 2, 3, 5, 8, 13, 100, math.MaxUint32}
	f.Fuzz(func(t *testing.T, b []byte) {
		out := make([]types.Datum, len(ask))
		rowErr := DecodeRow(b, ask, out)
		// DecodeRowInto with the columns scattered in reverse gives the
		// same values and the same verdict.
		ords := make([]int, len(ask))
		for i := range ords {
			ords[i] = len(ask) - 1 - i
		}
		into := make([]types.Datum, len(ask))
		if intoErr := DecodeRowInto(b, ask, ords, into); (intoErr == nil) != (rowErr == nil) {
			t.Fatalf("DecodeRowInto(%x) = %v, DecodeRow = %v", b, intoErr, rowErr)
		} else if rowErr == nil {
			for i := range ask {
				if !sameDatum(into[ords[i]], out[i]) {
					t.Fatalf("DecodeRowInto column %d = %v, DecodeRow says %v", ask[i], into[ords[i]], out[i])
				}
			}
		}
		// DecodeRowFields (the batch reader, which skips unwanted bodies
		// without decoding them) gives the same verdict and values.
		fields, present := make([]RowField, len(ask)), make([]bool, len(ask))
		if fErr := DecodeRowFields(b, ask, fields, present); (fErr == nil) != (rowErr == nil) {
			t.Fatalf("DecodeRowFields(%x) = %v, DecodeRow = %v", b, fErr, rowErr)
		} else if fErr == nil {
			for i := range ask {
				kind := types.KindNull // absent reads as NULL in DecodeRow
				if present[i] {
					kind = fields[i].Kind
				}
				if kind != out[i].Kind {
					t.Fatalf("DecodeRowFields column %d kind %v (present %v), DecodeRow says %v", ask[i], kind, present[i], out[i])
				}
			}
		}
		ids, vals, err := DecodeRowAll(b)
		PrettyRow(b)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) || !pgerror.HasCode(err, pgerror.DataCorrupted) {
				t.Fatalf("DecodeRowAll(%x): error %v lacks ErrCorrupt/XX001", b, err)
			}
			return
		}
		if rowErr != nil {
			t.Fatalf("DecodeRow(%x) failed (%v) where DecodeRowAll succeeded", b, rowErr)
		}
		if again := EncodeRow(nil, ids, vals); !bytes.Equal(again, b) {
			t.Fatalf("re-encoding %x gave %x", b, again)
		}
		got := map[uint32]types.Datum{}
		for i, id := range ids {
			got[id] = vals[i]
		}
		for i, id := range ask {
			if want, ok := got[id]; ok && !sameDatum(out[i], want) {
				t.Fatalf("DecodeRow column %d = %v, DecodeRowAll says %v", id, out[i], want)
			}
		}
	})
}

// TestFuzzSeedCorpus checks (or with -rewrite writes) the seed corpus
// files under testdata/fuzz, so `go test -fuzz` starts from them.
func TestFuzzSeedCorpus(t *testing.T) {
	for target, seeds := range map[string][][]byte{"FuzzDecodeKey": keySeeds(), "FuzzDecodeRow": rowSeeds()} {
		dir := filepath.Join("testdata", "fuzz", target)
		for i, s := range seeds {
			path := filepath.Join(dir, fmt.Sprintf("seed%02d", i))
			content := fmt.Appendf(nil, "go test fuzz v1\n[]byte(%q)\n", s)
			if *rewriteFlag {
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, content, 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			have, err := os.ReadFile(path)
			if err != nil || !bytes.Equal(have, content) {
				t.Errorf("%s is stale or missing (run with -rewrite): %v", path, err)
			}
		}
	}
}
