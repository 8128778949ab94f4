package exec

import "slices"

// PostgreSQL's order of equal keys. SQL leaves the order of rows whose
// sort keys are equal open, but users and their tests see the order
// PostgreSQL gives: an in-memory sort there is the Bentley–McIlroy
// quicksort of its sort_template.h ("Engineering a Sort Function", 1993),
// which is not stable, and its output order of ties follows from the
// input order and the algorithm's exact steps. pgSort takes the same
// steps, so over input in the same order (a scan of a table loaded and
// not updated since reads in insertion order on both) equal keys come
// out as on PostgreSQL: SELECT ... ORDER BY four, the window functions'
// frames over peers, DISTINCT ON's pick. A sort that spills runs stays
// stable (sortOp's runs and merge keep input order among equals); so
// does a top-N sort, where PostgreSQL uses a bounded heap instead.

// sortLikePG sorts s into key order with equal keys as PostgreSQL's
// in-memory sort leaves them. Without equal keys every correct sort
// gives that one order, so s is first sorted by byKeySeq (the key, then
// the input position: pdqsort, the cheaper sort) and, only when two
// neighbours then tie on byKey, put back in input order (bySeq: a
// parallel scan's rows arrive interleaved) and sorted again by pgSort.
func sortLikePG[E any](s []E, byKeySeq, byKey, bySeq func(a, b E) int) {
	slices.SortFunc(s, byKeySeq)
	for i := 1; i < len(s); i++ {
		if byKey(s[i-1], s[i]) == 0 {
			slices.SortFunc(s, bySeq)
			pgSort(s, byKey)
			return
		}
	}
}

// pgSortSmall is the size below which pgSort sorts by insertion.
const pgSortSmall = 7

// pgSortNinther is the size above which the pivot is the median of three
// medians of three (Tukey's ninther) rather than the median of three.
const pgSortNinther = 40

// pgSort sorts s by cmp as PostgreSQL's qsort does, step for step:
// insertion sort below seven elements; otherwise a pass that returns at
// once if s is already in order; the pivot, the median of the first,
// middle and last elements (of three such medians past forty elements),
// swapped to the front; a three-way partition that gathers elements
// equal to the pivot at both ends and then swaps them to the middle;
// recursion into the smaller side and iteration over the larger.
func pgSort[E any](s []E, cmp func(a, b E) int) {
	for {
		n := len(s)
		if n < pgSortSmall {
			for m := 1; m < n; m++ {
				for l := m; l > 0 && cmp(s[l-1], s[l]) > 0; l-- {
					s[l], s[l-1] = s[l-1], s[l]
				}
			}
			return
		}
		sorted := true
		for m := 1; m < n; m++ {
			if cmp(s[m-1], s[m]) > 0 {
				sorted = false
				break
			}
		}
		if sorted {
			return
		}
		m := n / 2
		if n > pgSortSmall {
			l, h := 0, n-1
			if n > pgSortNinther {
				d := n / 8
				l = pgMed3(s, l, l+d, l+2*d, cmp)
				m = pgMed3(s, m-d, m, m+d, cmp)
				h = pgMed3(s, h-2*d, h-d, h, cmp)
			}
			m = pgMed3(s, l, m, h, cmp)
		}
		s[0], s[m] = s[m], s[0]
		// s[1:a] and s[d+1:] equal the pivot, s[a:b] are less,
		// s[c+1:d+1] greater; b and c close in on each other.
		a, b := 1, 1
		c, d := n-1, n-1
		for {
			for b <= c {
				r := cmp(s[b], s[0])
				if r > 0 {
					break
				}
				if r == 0 {
					s[a], s[b] = s[b], s[a]
					a++
				}
				b++
			}
			for b <= c {
				r := cmp(s[c], s[0])
				if r < 0 {
					break
				}
				if r == 0 {
					s[c], s[d] = s[d], s[c]
					d--
				}
				c--
			}
			if b > c {
				break
			}
			s[b], s[c] = s[c], s[b]
			b++
			c--
		}
		// Move the equal elements from both ends to the middle.
		k := min(a, b-a)
		pgSwapN(s, 0, b-k, k)
		k = min(d-c, n-d-1)
		pgSwapN(s, b, n-k, k)
		less, greater := b-a, d-c
		if less <= greater {
			if less > 1 {
				pgSort(s[:less], cmp)
			}
			if greater <= 1 {
				return
			}
			s = s[n-greater:]
		} else {
			if greater > 1 {
				pgSort(s[n-greater:], cmp)
			}
			if less <= 1 {
				return
			}
			s = s[:less]
		}
	}
}

// pgMed3 returns the index of the median of s[i], s[j] and s[k], choosing
// among equals as PostgreSQL's med3 does.
func pgMed3[E any](s []E, i, j, k int, cmp func(a, b E) int) int {
	if cmp(s[i], s[j]) < 0 {
		if cmp(s[j], s[k]) < 0 {
			return j
		}
		if cmp(s[i], s[k]) < 0 {
			return k
		}
		return i
	}
	if cmp(s[j], s[k]) > 0 {
		return j
	}
	if cmp(s[i], s[k]) < 0 {
		return i
	}
	return k
}

// pgSwapN swaps the n elements from i with the n elements from j.
func pgSwapN[E any](s []E, i, j, n int) {
	for x := range n {
		s[i+x], s[j+x] = s[j+x], s[i+x]
	}
}
