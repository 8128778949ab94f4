package parse

import (
	"strconv"

	"vitess.io/vitess/go/vt/sqlparser"
)

// Window functions as PostgreSQL spells them reach vitess in two
// stand-ins, since vitess reads only MySQL's narrower forms:
//
//   - A frame clause (ROWS, RANGE or GROUPS; BETWEEN bounds with any
//     offset expression; EXCLUDE) is read here into a WindowFrame, and the
//     text vitess parses holds `ROWS FrameMarkerBase+i PRECEDING` in the
//     place of Statement.Frames[i].
//   - A call name(args) [FILTER (WHERE cond)] OVER ... becomes
//     first_value(MarkerWindow('name', args...)) OVER ..., or
//     first_value(MarkerWindowFilter('name', cond, args...)) with a FILTER,
//     so that any function, with any arguments, carries an OVER clause.
//     count(*) is named 'count(*)' with no arguments.

// MarkerWindow and MarkerWindowFilter stand for a window function call
// inside the first_value vitess attaches the OVER clause to.
const (
	MarkerWindow       = "kvsql_window"
	MarkerWindowFilter = "kvsql_window_filter"
)

// FrameMarkerBase + i stands in the AST for Statement.Frames[i].
const FrameMarkerBase = 987654321000

// FrameUnit is what a frame's offsets count: rows, a distance in the
// ORDER BY value (RANGE), or peer groups (GROUPS).
type FrameUnit uint8

const (
	FrameRange FrameUnit = iota
	FrameRows
	FrameGroups
)

// FrameBoundKind is where a frame starts or ends.
type FrameBoundKind uint8

const (
	BoundUnboundedPreceding FrameBoundKind = iota
	BoundPreceding
	BoundCurrentRow
	BoundFollowing
	BoundUnboundedFollowing
)

// FrameExclusion is a frame's EXCLUDE option.
type FrameExclusion uint8

const (
	ExcludeNoOthers FrameExclusion = iota
	ExcludeCurrentRow
	ExcludeGroup
	ExcludeTies
)

// WindowFrame is a window's frame clause. End is CURRENT ROW when the
// clause names only its start.
type WindowFrame struct {
	Unit       FrameUnit
	Start, End FrameBound
	Exclude    FrameExclusion
}

// FrameBound is one end of a frame; Offset is set for BoundPreceding and
// BoundFollowing.
type FrameBound struct {
	Kind   FrameBoundKind
	Offset sqlparser.Expr
}

// rawFrame is a WindowFrame whose offsets are still text (parsed when
// the statement is complete, as expressions of their own).
type rawFrame struct {
	frame        WindowFrame
	start, end   string // offset texts
	startP, endP int    // their positions
}

var frameUnits = map[string]FrameUnit{"rows": FrameRows, "range": FrameRange, "groups": FrameGroups}

// atFrameClause reports whether toks[i], a word ROWS, RANGE or GROUPS
// emitted after out, opens a window's frame clause: it stands directly
// inside OVER (...) or WINDOW name AS (...) and a frame bound follows.
func atFrameClause(toks []token, i int, out []token) bool {
	if _, ok := frameUnits[toks[i].val]; !ok || toks[i].kind != tkIdent || i+1 >= len(toks) {
		return false
	}
	open := openParen(out)
	if open < 1 || !(out[open-1].is("over") || out[open-1].is("as")) {
		return false
	}
	next := toks[i+1]
	if next.is("between") || next.is("unbounded") || next.is("current") {
		return true
	}
	end := findEnd(toks, i+1, nil)
	for k := i + 1; k < end; k++ {
		if toks[k].is("preceding") || toks[k].is("following") {
			return true
		}
	}
	return false
}

// openParen returns the index of the innermost parenthesis left open in
// out, or -1.
func openParen(out []token) int {
	depth := 0
	for k := len(out) - 1; k >= 0; k-- {
		switch {
		case out[k].isPunct(")") || out[k].isPunct("]"):
			depth++
		case out[k].isPunct("(") || out[k].isPunct("["):
			if depth == 0 {
				return k
			}
			depth--
		}
	}
	return -1
}

// frameClause reads the frame clause at toks[i] (its unit), which runs to
// the window specification's closing parenthesis, records it in r.frames
// and returns the stand-in tokens and the index of that parenthesis.
func (r *rewriter) frameClause(toks []token, i int) ([]token, int, error) {
	end := findEnd(toks, i+1, nil)
	rf := rawFrame{frame: WindowFrame{Unit: frameUnits[toks[i].val]}}
	c := i + 1
	var err error
	if toks[c].is("between") {
		if rf.frame.Start, rf.start, rf.startP, c, err = r.frameBound(toks, c+1, end); err != nil {
			return nil, 0, err
		}
		if c >= end || !toks[c].is("and") {
			return nil, 0, r.frameSyntax(toks, c)
		}
		if rf.frame.End, rf.end, rf.endP, c, err = r.frameBound(toks, c+1, end); err != nil {
			return nil, 0, err
		}
	} else {
		if rf.frame.Start, rf.start, rf.startP, c, err = r.frameBound(toks, c, end); err != nil {
			return nil, 0, err
		}
		rf.frame.End = FrameBound{Kind: BoundCurrentRow}
	}
	if c < end && toks[c].is("exclude") {
		switch {
		case c+2 < end && toks[c+1].is("current") && toks[c+2].is("row"):
			rf.frame.Exclude, c = ExcludeCurrentRow, c+3
		case c+1 < end && toks[c+1].is("group"):
			rf.frame.Exclude, c = ExcludeGroup, c+2
		case c+1 < end && toks[c+1].is("ties"):
			rf.frame.Exclude, c = ExcludeTies, c+2
		case c+2 < end && toks[c+1].is("no") && toks[c+2].is("others"):
			rf.frame.Exclude, c = ExcludeNoOthers, c+3
		default:
			return nil, 0, r.frameSyntax(toks, c+1)
		}
	}
	if c != end {
		return nil, 0, r.frameSyntax(toks, c)
	}
	r.frames = append(r.frames, rf)
	n := strconv.Itoa(FrameMarkerBase + len(r.frames) - 1)
	pos := toks[i].pos
	return []token{raw("rows", pos), raw(n, pos), raw("preceding", pos)}, end, nil
}

// frameBound reads one frame bound starting at toks[c]: UNBOUNDED
// PRECEDING|FOLLOWING, CURRENT ROW, or an offset expression followed by
// PRECEDING|FOLLOWING. It returns the bound, the offset's text and
// position, and the index after the bound.
func (r *rewriter) frameBound(toks []token, c, end int) (FrameBound, string, int, int, error) {
	if c >= end {
		return FrameBound{}, "", 0, c, r.frameSyntax(toks, c)
	}
	if c+1 < end && toks[c].is("unbounded") && toks[c+1].is("preceding") {
		return FrameBound{Kind: BoundUnboundedPreceding}, "", 0, c + 2, nil
	}
	if c+1 < end && toks[c].is("unbounded") && toks[c+1].is("following") {
		return FrameBound{Kind: BoundUnboundedFollowing}, "", 0, c + 2, nil
	}
	if c+1 < end && toks[c].is("current") && toks[c+1].is("row") {
		return FrameBound{Kind: BoundCurrentRow}, "", 0, c + 2, nil
	}
	depth := 0
	for k := c; k < end; k++ {
		t := toks[k]
		switch {
		case t.isPunct("(") || t.isPunct("["):
			depth++
		case t.isPunct(")") || t.isPunct("]"):
			depth--
		case depth == 0 && t.is("and"):
			return FrameBound{}, "", 0, k, r.frameSyntax(toks, k)
		case depth == 0 && (t.is("preceding") || t.is("following")):
			if k == c {
				return FrameBound{}, "", 0, k, r.frameSyntax(toks, k)
			}
			kind := BoundPreceding
			if t.is("following") {
				kind = BoundFollowing
			}
			return FrameBound{Kind: kind}, r.sql[toks[c].pos:toks[k-1].end], toks[c].pos, k + 1, nil
		}
	}
	return FrameBound{}, "", 0, end, r.frameSyntax(toks, end)
}

// frameSyntax is PostgreSQL's syntax error at toks[c] of a frame clause.
func (r *rewriter) frameSyntax(toks []token, c int) error {
	if c >= len(toks) {
		return syntaxErr(r.sql, len(r.sql), "syntax error at end of input")
	}
	return syntaxErr(r.sql, toks[c].pos, "syntax error at or near %q", r.sql[toks[c].pos:toks[c].end])
}

// parseFrames parses the offsets of the frames the rewrite recorded.
func (r *rewriter) parseFrames() ([]WindowFrame, error) {
	var out []WindowFrame
	for _, rf := range r.frames {
		f := rf.frame
		var err error
		if f.Start.Offset, err = r.frameOffset(rf.start, rf.startP); err != nil {
			return nil, err
		}
		if f.End.Offset, err = r.frameOffset(rf.end, rf.endP); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// frameOffset parses an offset's text as an expression of its own.
func (r *rewriter) frameOffset(text string, pos int) (sqlparser.Expr, error) {
	if text == "" {
		return nil, nil
	}
	st, err := ParseOne("SELECT " + text)
	if err != nil {
		return nil, err
	}
	if sel, ok := st.AST.(*sqlparser.Select); ok && len(sel.SelectExprs.Exprs) == 1 {
		if ae, ok := sel.SelectExprs.Exprs[0].(*sqlparser.AliasedExpr); ok {
			return ae.Expr, nil
		}
	}
	return nil, syntaxErr(r.sql, pos, "syntax error in a window frame offset")
}

// nextWindowDefinition reports whether the comma toks[i] separates two
// definitions of a WINDOW clause (out ending in the first one): vitess
// reads WINDOW a AS (...), WINDOW b AS (...) but not the list PostgreSQL
// writes, so the rewrite repeats the keyword.
func nextWindowDefinition(toks []token, i int, out []token) bool {
	if i+3 >= len(toks) || toks[i+1].kind != tkIdent && toks[i+1].kind != tkQIdent || !toks[i+2].is("as") || !toks[i+3].isPunct("(") {
		return false
	}
	n := len(out)
	if n == 0 || !out[n-1].isPunct(")") {
		return false
	}
	m := matchBack(out, n-1)
	return m >= 3 && out[m-1].is("as") && (out[m-2].kind == tkIdent || out[m-2].kind == tkQIdent) &&
		(out[m-3].is("window") || out[m-3].kind == tkRaw && out[m-3].val == "window")
}

// windowCall rewrites the call that ends out, followed by OVER, into its
// stand-in (see the top of this file); out is returned as it is when it
// does not end in a plainly named call.
func (r *rewriter) windowCall(out []token) ([]token, error) {
	closeAt := len(out) - 1
	open := matchBack(out, closeAt)
	if open < 1 {
		return out, nil
	}
	var filter []token
	if out[open-1].is("filter") && out[open+1].is("where") {
		filter = out[open+2 : closeAt]
		closeAt = open - 2
		if closeAt < 0 || !out[closeAt].isPunct(")") {
			return out, nil
		}
		if open = matchBack(out, closeAt); open < 1 {
			return out, nil
		}
	}
	name := out[open-1]
	if open >= 2 && out[open-2].isPunct(".") {
		return out, nil
	}
	args := out[open+1 : closeAt]
	switch {
	case name.kind == tkRaw && name.val == "group_concat":
		// string_agg or array_agg with ORDER BY or DISTINCT.
		for _, t := range args {
			if t.kind == tkRaw && t.val == "order by" {
				return nil, unsupported(r.sql, name.pos, "aggregate ORDER BY is not implemented for window functions")
			}
		}
		return nil, unsupported(r.sql, name.pos, "DISTINCT is not implemented for window functions")
	case name.kind != tkIdent && name.kind != tkQIdent || name.kind == tkIdent && exprKeywords[name.val]:
		return out, nil
	case len(args) > 0 && args[0].is("distinct"):
		return nil, unsupported(r.sql, name.pos, "DISTINCT is not implemented for window functions")
	case topLevelOrderBy(args) >= 0:
		return nil, unsupported(r.sql, name.pos, "aggregate ORDER BY is not implemented for window functions")
	}
	fname := name.val
	if len(args) == 1 && args[0].isOp("*") {
		if fname != "count" {
			return out, nil
		}
		fname, args = "count(*)", nil
	}
	marker := MarkerWindow
	if filter != nil {
		marker = MarkerWindowFilter
	}
	p := name.pos
	punct := func(v string) token { return token{kind: tkPunct, val: v, pos: p, end: p} }
	call := []token{{kind: tkIdent, val: "first_value", pos: p, end: p}, punct("("), raw(marker, p), punct("("),
		{kind: tkString, val: fname, pos: p, end: p}}
	if filter != nil {
		call = append(append(call, punct(",")), filter...)
	}
	if len(args) > 0 {
		call = append(append(call, punct(",")), args...)
	}
	call = append(call, punct(")"), punct(")"))
	return append(out[:open-1:open-1], call...), nil
}
