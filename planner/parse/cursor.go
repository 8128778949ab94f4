package parse

import (
	"strconv"
)

// CursorStmt is DECLARE, FETCH, MOVE or CLOSE.
type CursorStmt struct {
	Op     string // "declare", "fetch", "move", "close"
	Name   string // "" for CLOSE ALL
	Query  *Statement
	Hold   bool // DECLARE ... WITH HOLD
	Scroll bool // DECLARE ... SCROLL (NO SCROLL: false)
	Binary bool // DECLARE BINARY
	// FETCH/MOVE: how far. Dir is "next" (count rows forward), "prior"
	// (count rows backward), "absolute", "relative", "first", "last";
	// All means every remaining row in the direction.
	Dir   string
	Count int64
	All   bool
}

// cursor parses DECLARE name [BINARY] [ASENSITIVE | INSENSITIVE]
// [[NO] SCROLL] CURSOR [{WITH | WITHOUT} HOLD] FOR query, FETCH / MOVE
// [direction] [FROM | IN] name, and CLOSE {name | ALL}.
func (r *rewriter) cursor(toks []token) (Statement, error) {
	var st Statement
	c := &cursor{r: r, toks: toks, i: 1}
	cs := &CursorStmt{Op: toks[0].val}
	st.Cursor = cs
	switch cs.Op {
	case "declare":
		name, err := c.name()
		if err != nil {
			return st, err
		}
		cs.Name = name
		for !c.done() && !c.peek("cursor") {
			switch {
			case c.accept("binary"):
				cs.Binary = true
			case c.accept("asensitive"), c.accept("insensitive"):
			case c.accept("scroll"):
				cs.Scroll = true
			case c.accept("no"):
				if err := c.expect("scroll"); err != nil {
					return st, err
				}
			default:
				return st, c.errHere()
			}
		}
		if err := c.expect("cursor"); err != nil {
			return st, err
		}
		if c.accept("with") {
			if err := c.expect("hold"); err != nil {
				return st, err
			}
			cs.Hold = true
		} else if c.accept("without") {
			if err := c.expect("hold"); err != nil {
				return st, err
			}
		}
		if err := c.expect("for"); err != nil {
			return st, err
		}
		if c.done() {
			return st, c.errHere()
		}
		q, err := r.query(toks[c.i:])
		if err != nil {
			return st, err
		}
		cs.Query = &q
		st.NumParams = r.numParams()
		return st, nil
	case "close":
		if c.accept("all") {
			return st, c.end()
		}
		name, err := c.name()
		if err != nil {
			return st, err
		}
		cs.Name = name
		return st, c.end()
	}
	// FETCH / MOVE
	cs.Dir, cs.Count = "next", 1
	count := func() (int64, bool) {
		if c.done() {
			return 0, false
		}
		t := c.toks[c.i]
		neg := false
		if t.isOp("-") && c.i+1 < len(c.toks) {
			neg, t = true, c.toks[c.i+1]
		}
		if t.kind != tkNumber {
			return 0, false
		}
		n, err := strconv.ParseInt(t.val, 10, 64)
		if err != nil {
			return 0, false
		}
		if neg {
			c.i++
			n = -n
		}
		c.i++
		return n, true
	}
	switch {
	case c.accept("next"):
	case c.accept("prior"):
		cs.Dir = "prior"
	case c.accept("first"):
		cs.Dir = "first"
	case c.accept("last"):
		cs.Dir = "last"
	case c.accept("absolute"), c.accept("relative"):
		cs.Dir = c.toks[c.i-1].val
		n, ok := count()
		if !ok {
			return st, c.errHere()
		}
		cs.Count = n
	case c.accept("all"):
		cs.All = true
	case c.accept("forward"), c.accept("backward"):
		if c.toks[c.i-1].val == "backward" {
			cs.Dir = "prior"
		}
		if c.accept("all") {
			cs.All = true
		} else if n, ok := count(); ok {
			cs.Count = n
		}
	default:
		if n, ok := count(); ok {
			cs.Count = n
		}
	}
	if cs.Count < 0 && (cs.Dir == "next" || cs.Dir == "prior") {
		cs.Count = -cs.Count
		if cs.Dir == "next" {
			cs.Dir = "prior"
		} else {
			cs.Dir = "next"
		}
	}
	if !c.accept("from") {
		c.accept("in")
	}
	name, err := c.name()
	if err != nil {
		return st, err
	}
	cs.Name = name
	return st, c.end()
}
