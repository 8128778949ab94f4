package bench

import (
	"strings"
	"testing"
)

func TestAnswerBook(t *testing.T) {
	b := newAnswerBook()
	q := answer{rows: 3, digest: 0xabc}
	if err := b.record("q", "kvsql", q); err != nil {
		t.Fatal(err)
	}
	if err := b.record("q", "postgres", q); err != nil {
		t.Fatalf("the same answer was refused: %v", err)
	}
	for _, other := range []answer{{rows: 3, digest: 0xabd}, {rows: 2, digest: 0xabc}} {
		err := b.record("q", "postgres", other)
		if err == nil || !strings.Contains(err.Error(), "answers differ") || !strings.Contains(err.Error(), "kvsql") {
			t.Fatalf("%v against %v: %v", other, q, err)
		}
	}
	if err := b.record("r", "postgres", answer{rows: 1}); err != nil {
		t.Fatalf("a second query's first answer: %v", err)
	}
}
