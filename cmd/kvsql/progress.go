package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mattn/go-isatty"
)

// progressLine keeps one line of a terminal up to date with what a long
// command (kvsql check, catalog import) is doing, rewriting it in place
// at most every interval; clear erases it before the command prints its
// result. It writes nothing when standard error is not a terminal, so
// scripts and logs see only the results.
type progressLine struct {
	w        io.Writer // nil: off
	interval time.Duration
	last     time.Time
	width    int // of the text on the line now
}

// newProgressLine returns a progress line on standard error, off unless
// that is a terminal.
func newProgressLine() *progressLine {
	p := &progressLine{interval: 100 * time.Millisecond}
	if isatty.IsTerminal(os.Stderr.Fd()) {
		p.w = os.Stderr
	}
	return p
}

// show replaces the line with the formatted text, unless it was
// replaced less than an interval ago (counts that change often).
func (p *progressLine) show(format string, args ...any) {
	if p == nil || p.w == nil || time.Since(p.last) < p.interval {
		return
	}
	p.phase(format, args...)
}

// phase replaces the line with the formatted text now (a new step).
func (p *progressLine) phase(format string, args ...any) {
	if p == nil || p.w == nil {
		return
	}
	p.last = time.Now()
	text := fmt.Sprintf(format, args...)
	// Pad over what was there: the new text may be shorter.
	fmt.Fprintf(p.w, "\r%-*s", p.width, text)
	p.width = len(text)
}

// clear erases the line, leaving the cursor at its start.
func (p *progressLine) clear() {
	if p == nil || p.w == nil || p.width == 0 {
		return
	}
	fmt.Fprintf(p.w, "\r%*s\r", p.width, "")
	p.width, p.last = 0, time.Time{}
}
