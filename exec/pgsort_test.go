package exec

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPgSortTies: equal keys come out in PostgreSQL 15's order. Each
// case is "SELECT g FROM generate_series(1, n) g ORDER BY (g*7919 + n) %
// mod" as PostgreSQL answered it: insertion sort (n < 7), median of three,
// and the ninther (n > 40) all decide where equal keys land.
func TestPgSortTies(t *testing.T) {
	for _, c := range []struct {
		n, mod int
		want   []int
	}{
		{7, 2, []int{5, 3, 7, 1, 4, 2, 6}},
		{8, 3, []int{8, 2, 5, 4, 1, 7, 6, 3}},
		{12, 2, []int{4, 8, 2, 10, 6, 12, 7, 3, 5, 1, 9, 11}},
		{41, 3, []int{29, 38, 17, 26, 41, 20, 23, 8, 35, 2, 11, 32, 5, 14, 31, 4, 7, 10, 13, 16, 19, 22, 25, 28, 1, 34, 37, 40, 15, 30, 6, 12, 33, 39, 9, 21, 24, 36, 18, 27, 3}},
		{45, 10, []int{35, 15, 5, 45, 25, 34, 44, 4, 14, 24, 3, 23, 43, 13, 33, 2, 22, 32, 42, 12, 1, 11, 21, 31, 41, 30, 10, 20, 40, 9, 19, 39, 29, 38, 8, 18, 28, 17, 7, 37, 27, 36, 16, 26, 6}},
	} {
		key := func(g int) int { return (g*7919 + c.n) % c.mod }
		got := make([]int, c.n)
		for i := range got {
			got[i] = i + 1
		}
		pgSort(got, func(a, b int) int { return cmp.Compare(key(a), key(b)) })
		if !slices.Equal(got, c.want) {
			t.Errorf("n=%d mod=%d: got %v, PostgreSQL %v", c.n, c.mod, got, c.want)
		}
	}
}

// TestPgSortSorts: on random inputs of every size up to a few hundred,
// with few and many distinct keys, pgSort's output is ordered and a
// permutation of its input.
func TestPgSortSorts(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	type item struct{ k, id int }
	for range 2000 {
		n := r.IntN(300)
		distinct := 1 + r.IntN(n+1)
		s := make([]item, n)
		for i := range s {
			s[i] = item{r.IntN(distinct), i}
		}
		switch r.IntN(4) { // presorted and reversed inputs too
		case 0:
			slices.SortFunc(s, func(a, b item) int { return cmp.Compare(a.k, b.k) })
		case 1:
			slices.SortFunc(s, func(a, b item) int { return cmp.Compare(b.k, a.k) })
		}
		got := slices.Clone(s)
		pgSort(got, func(a, b item) int { return cmp.Compare(a.k, b.k) })
		if !slices.IsSortedFunc(got, func(a, b item) int { return cmp.Compare(a.k, b.k) }) {
			t.Fatalf("n=%d: not sorted: %v", n, got)
		}
		ids := func(s []item) []int {
			out := make([]int, len(s))
			for i, x := range s {
				out[i] = x.id
			}
			slices.Sort(out)
			return out
		}
		if !slices.Equal(ids(got), ids(s)) {
			t.Fatalf("n=%d: not a permutation of the input", n)
		}
	}
}
