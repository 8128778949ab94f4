package main

import (
	"strings"
	"testing"
	"time"
)

// TestProgressLine: phases show at once, counts at most every interval,
// each text padded over the longer one before it, and clear blanks the
// line; a line with no terminal writes nothing.
func TestProgressLine(t *testing.T) {
	var b strings.Builder
	p := &progressLine{w: &b, interval: time.Hour}
	p.phase("checking the storage")
	p.show("rows %d", 1) // within the interval: dropped
	p.phase("table 1")
	p.clear()
	want := "\rchecking the storage" + "\rtable 1             " + "\r       \r"
	if b.String() != want {
		t.Errorf("wrote %q, want %q", b.String(), want)
	}
	b.Reset()
	p = &progressLine{w: &b}
	p.show("rows %d", 1)
	p.show("rows %d", 22)
	if got := b.String(); got != "\rrows 1\rrows 22" {
		t.Errorf("with no interval wrote %q", got)
	}
	off := &progressLine{interval: time.Millisecond}
	off.phase("x")
	off.show("y")
	off.clear()
	var none *progressLine
	none.show("z")
}
