package sqllogictest

import (
	"math"
	"slices"
	"testing"
	"time"
)

func TestFormatValue(t *testing.T) {
	negZero := math.Copysign(0, -1)
	tests := []struct {
		v    any
		typ  byte
		want string
	}{
		// NULL in every column type.
		{nil, 'I', "NULL"}, {nil, 'R', "NULL"}, {nil, 'T', "NULL"},
		// I: integers, truncation of floats toward zero, clamping, text prefixes.
		{int64(42), 'I', "42"},
		{int32(-7), 'I', "-7"},
		{uint8(200), 'I', "200"},
		{7.9, 'I', "7"},
		{-7.9, 'I', "-7"},
		{2.5, 'I', "2"},
		{1e300, 'I', "9223372036854775807"},
		{-1e300, 'I', "-9223372036854775808"},
		{math.NaN(), 'I', "0"},
		{"12", 'I', "12"},
		{"  -12abc", 'I', "-12"},
		{"3.9", 'I', "3"},
		{"1e3", 'I', "1000"},
		{"abc", 'I', "0"},
		{"", 'I', "0"},
		{[]byte("5"), 'I', "5"},
		{true, 'I', "1"},
		{false, 'I', "0"},
		// R: three decimals, correct rounding, no negative zero.
		{int64(3), 'R', "3.000"},
		{2.5, 'R', "2.500"},
		{1.0 / 3, 'R', "0.333"},
		{2.0 / 3, 'R', "0.667"},
		{-2.0 / 3, 'R', "-0.667"},
		{0.0005, 'R', "0.001"}, // binary value is just above the half
		{1.0005, 'R', "1.000"}, // binary value is just below the half
		{negZero, 'R', "0.000"},
		{-0.0001, 'R', "-0.000"}, // as C's %.3f: the sign of a non-zero value stays
		{float32(0.25), 'R', "0.250"},
		{"2.25x", 'R', "2.250"},
		{"x", 'R', "0.000"},
		{true, 'R', "1.000"},
		// T: text, (empty), @ for bytes outside 0x20..0x7e.
		{"hello world", 'T', "hello world"},
		{"", 'T', "(empty)"},
		{[]byte{}, 'T', "(empty)"},
		{"a\tb\nc", 'T', "a@b@c"},
		{"é", 'T', "@@"},
		{"~\x7f", 'T', "~@"},
		{[]byte{'a', 0, 'b'}, 'T', "a@b"},
		{int64(-5), 'T', "-5"},
		{1.5, 'T', "1.5"},
		{1.0, 'T', "1"},
		{math.Inf(1), 'T', "Infinity"},
		{true, 'T', "true"},
		{false, 'T', "false"},
		{time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), 'T', "2024-02-29"},
		{time.Date(2024, 2, 29, 13, 4, 5, 500000000, time.UTC), 'T', "2024-02-29 13:04:05.5"},
	}
	for _, tc := range tests {
		if got := FormatValue(tc.v, tc.typ); got != tc.want {
			t.Errorf("FormatValue(%#v, %c) = %q, want %q", tc.v, tc.typ, got, tc.want)
		}
	}
}

func TestSortAndHash(t *testing.T) {
	vals := []string{"2", "b", "10", "a", "1", "c"}
	SortValues(vals, 2, RowSort)
	want := []string{"1", "c", "10", "a", "2", "b"}
	if !slices.Equal(vals, want) {
		t.Errorf("RowSort = %q, want %q", vals, want)
	}
	SortValues(vals, 2, ValueSort)
	want = []string{"1", "10", "2", "a", "b", "c"}
	if !slices.Equal(vals, want) {
		t.Errorf("ValueSort = %q, want %q", vals, want)
	}
	// md5 of "1\n2\n3\n".
	if got := HashValues([]string{"1", "2", "3"}); got != "c0710d6b4f15dfa88f600b0e6b624077" {
		t.Errorf("HashValues = %s", got)
	}
	if got := HashLine(nil); got != "0 values hashing to d41d8cd98f00b204e9800998ecf8427e" {
		t.Errorf("HashLine(nil) = %s", got)
	}
}

func TestMatches(t *testing.T) {
	rec := &Record{Kind: KindQuery, Types: "IT", Expected: []string{"1", "a b", "2", "c"}}
	if !Matches(rec, []string{"1", "a b", "2", "c"}) {
		t.Error("value-per-line form did not match")
	}
	if Matches(rec, []string{"1", "a b", "2", "d"}) {
		t.Error("a wrong value matched")
	}
	rows := &Record{Kind: KindQuery, Types: "IT", Expected: []string{"1  x", "2 c"}}
	if !Matches(rows, []string{"1", "x", "2", "c"}) {
		t.Error("row-per-line form did not match")
	}
	if Matches(rows, []string{"1", "x"}) {
		t.Error("too few values matched")
	}
	h := &Record{Kind: KindQuery, Types: "I", IsHash: true, HashCount: 3, ExpectedHash: "c0710d6b4f15dfa88f600b0e6b624077"}
	if !Matches(h, []string{"1", "2", "3"}) {
		t.Error("hash did not match")
	}
	if Matches(h, []string{"1", "2", "4"}) {
		t.Error("wrong values matched the hash")
	}
	empty := &Record{Kind: KindQuery, Types: "I"}
	if !Matches(empty, nil) || Matches(empty, []string{"1"}) {
		t.Error("a query without expected values must match exactly no values")
	}
}
