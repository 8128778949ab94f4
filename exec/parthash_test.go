package exec

import (
	"testing"

	"github.com/kvsql/kvsql/types"
)

// TestPartitionHashMatchesPostgreSQL: the remainders modulo 4 of int4
// keys -20..40 are the partitions PostgreSQL 15 put them in (recorded
// from PostgreSQL with a table PARTITION BY HASH (a) of four
// partitions), and an (int8, text) key with NULLs lands where
// PostgreSQL's does.
func TestPartitionHashMatchesPostgreSQL(t *testing.T) {
	want := map[int64]uint64{}
	for rem, keys := range [][]int64{
		{-19, -18, -3, 0, 1, 12, 14, 16, 17, 26, 28, 30, 32, 34},
		{-15, -13, -12, -11, -8, -1, 3, 5, 8, 9, 11, 19, 20, 21, 31, 35, 36, 37, 38},
		{-17, -7, -6, -4, -2, 2, 13, 18, 23, 25, 27, 39},
		{-20, -16, -14, -10, -9, -5, 4, 6, 7, 10, 15, 22, 24, 29, 33, 40},
	} {
		for _, k := range keys {
			want[k] = uint64(rem)
		}
	}
	int4 := []types.T{{Family: types.Int4}}
	for k, rem := range want {
		if got := partitionHash([]types.Datum{types.NewInt(k)}, int4) % 4; got != rem {
			t.Errorf("int4 %d: remainder %d, want %d", k, got, rem)
		}
	}
	two := []types.T{{Family: types.Int8}, {Family: types.Text}}
	for _, tc := range []struct {
		a   types.Datum
		b   types.Datum
		rem uint64
	}{
		{types.NewInt(1000000007), types.NewText("x"), 0},
		{types.NewInt(-5000000035), types.NewText(""), 1},
		{types.NewInt(30000000210), types.NewText("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"), 1},
		{types.NewInt(5), types.Null, 2},
		{types.Null, types.NewText("abc"), 1},
		{types.Null, types.Null, 0},
	} {
		if got := partitionHash([]types.Datum{tc.a, tc.b}, two) % 3; got != tc.rem {
			t.Errorf("(%v, %v): remainder %d, want %d", tc.a, tc.b, got, tc.rem)
		}
	}
}
