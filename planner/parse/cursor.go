package parse

import (
	"strconv"

	"vitess.io/vitess/go/vt/sqlparser"
)

// CursorStmt is DECLARE, FETCH, MOVE or CLOSE.
type CursorStmt struct {
	Op       string // "declare", "fetch", "move", "close"
	Name     string // "" for CLOSE ALL
	Query    *Statement
	Hold     bool // DECLARE ... WITH HOLD
	Scroll   bool // DECLARE ... SCROLL
	NoScroll bool // DECLARE ... NO SCROLL: any move backwards fails
	Binary   bool // DECLARE BINARY
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
				cs.NoScroll = true
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
		if sel, ok := q.AST.(*sqlparser.Select); ok && sel.Lock != sqlparser.NoLock {
			// A locking cursor reads forwards only, as in PostgreSQL.
			if cs.Scroll {
				clause := "FOR UPDATE"
				switch sel.Lock {
				case sqlparser.ForShareLock, sqlparser.ShareModeLock, sqlparser.ForShareLockNoWait, sqlparser.ForShareLockSkipLocked:
					clause = "FOR SHARE"
				}
				e := unsupported(r.sql, toks[0].pos, "DECLARE SCROLL CURSOR ... %s is not supported", clause)
				e.Detail = "Scrollable cursors must be READ ONLY."
				return st, e
			}
			cs.NoScroll = true
		}
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

// Scrollable reports whether the cursor can move backwards, as
// pg_cursors.is_scrollable shows it: SCROLL can, NO SCROLL cannot, and
// without either PostgreSQL decides by the plan. kvsql keeps the rows a
// cursor read, so it could always go back; it reports what PostgreSQL's
// plans usually allow: a query that reads a relation can, one without
// FROM (a Result node) cannot.
func (cs *CursorStmt) Scrollable() bool {
	if cs.Scroll || cs.NoScroll {
		return cs.Scroll
	}
	sel, ok := cs.Query.AST.(*sqlparser.Select)
	return ok && !isDual(sel.From)
}

// Backward reports whether FETCH / MOVE cs, on a cursor at position pos
// (0 before the first row), moves backwards at some point: what a NO
// SCROLL cursor refuses. ABSOLUTE and FIRST rewind unless the target is
// ahead; LAST reads to the end and steps back; RELATIVE 0 re-reads the
// current row.
func (cs *CursorStmt) Backward(pos int64) bool {
	switch cs.Dir {
	case "prior":
		return cs.All || cs.Count > 0
	case "first":
		return pos > 0
	case "last":
		return true
	case "absolute":
		return cs.Count < 0 || pos > 0 && cs.Count <= pos
	case "relative":
		return cs.Count <= 0
	}
	return false
}
