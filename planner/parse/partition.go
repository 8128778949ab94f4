package parse

import (
	"strconv"
	"strings"

	"github.com/kvsql/kvsql/pgerror"
)

// PartitionSpec is CREATE TABLE's PARTITION BY clause: the table is
// partitioned (it holds no rows itself) by Strategy over Keys.
type PartitionSpec struct {
	Strategy string   // "range", "list" or "hash"
	Keys     []string // each key: a column name or an expression's SQL text
	// KeyColumns[i] is set when Keys[i] is a plain column name.
	KeyColumns []bool
}

// BoundSpec is a partition's FOR VALUES clause (or DEFAULT), values as
// SQL text the session evaluates against the key types.
type BoundSpec struct {
	Default  bool
	In       []string // FOR VALUES IN (...)
	From, To []string // FOR VALUES FROM (...) TO (...): "minvalue"/"maxvalue" as such
	// FOR VALUES WITH (MODULUS m, REMAINDER r)
	Modulus, Remainder int
	Hash               bool
}

// TableElement is one element of a column list kvsql writes out again:
// Column is set for a column definition (its name, and Rest the text
// after it), Text is the element as written.
type TableElement struct {
	Column, Rest string
	Text         string
	// Like names the table of a LIKE element, whose columns it stands
	// for; LikeDefaults is INCLUDING DEFAULTS.
	Like         string
	LikeDefaults bool
}

// InheritStmt is CREATE TABLE name (...) INHERITS (parents) and CREATE
// TABLE name PARTITION OF parent [(...)] bound: the table's columns come
// from its parents, which only the catalog knows, so the session writes
// the whole definition out and parses that.
type InheritStmt struct {
	Name        string
	Temp        bool
	IfNotExists bool
	Parents     []string
	PartitionOf bool
	Elements    []TableElement
	Bound       *BoundSpec
	PartitionBy *PartitionSpec // the new table's own PARTITION BY
}

// AttachStmt is ALTER TABLE parent ATTACH PARTITION name bound, or
// DETACH PARTITION name; with Inheritance, ALTER TABLE name INHERIT
// parent (or NO INHERIT, Detach).
type AttachStmt struct {
	Parent, Partition string
	Detach            bool
	Bound             *BoundSpec
	Inheritance       bool
}

// tableTail reads what may follow CREATE TABLE's column list: INHERITS
// (...) into inherits and PARTITION BY into r.partitionBy. It returns the
// tokens it did not read.
func (r *rewriter) tableTail(rest []token) (inherits []string, _ []token, err error) {
	c := &cursor{r: r, toks: rest}
	if c.accept("inherits") {
		if inherits, err = c.nameList(); err != nil {
			return nil, nil, err
		}
	}
	if c.peek("partition") {
		if r.partitionBy, err = c.partitionBy(); err != nil {
			return nil, nil, err
		}
	}
	return inherits, rest[c.i:], nil
}

// nameList reads ( name [, ...] ), each possibly qualified.
func (c *cursor) nameList() ([]string, error) {
	if c.done() || !c.toks[c.i].isPunct("(") {
		return nil, c.errHere()
	}
	c.i++
	var names []string
	for {
		n, err := c.refName()
		if err != nil {
			return nil, err
		}
		names = append(names, n)
		if !c.done() && c.toks[c.i].isPunct(",") {
			c.i++
			continue
		}
		break
	}
	if c.done() || !c.toks[c.i].isPunct(")") {
		return nil, c.errHere()
	}
	c.i++
	return names, nil
}

// partitionBy reads PARTITION BY {RANGE | LIST | HASH} (key [, ...]).
func (c *cursor) partitionBy() (*PartitionSpec, error) {
	if err := c.expect("partition"); err != nil {
		return nil, err
	}
	if err := c.expect("by"); err != nil {
		return nil, err
	}
	if c.done() {
		return nil, c.errHere()
	}
	ps := &PartitionSpec{Strategy: c.toks[c.i].val}
	if c.toks[c.i].kind != tkIdent || ps.Strategy != "range" && ps.Strategy != "list" && ps.Strategy != "hash" {
		return nil, pgerror.Newf(invalidParameterValue, "unrecognized partitioning strategy %q", c.toks[c.i].val)
	}
	c.i++
	items, err := c.parenItems()
	if err != nil {
		return nil, err
	}
	for _, it := range items {
		if len(it) == 0 {
			return nil, c.errHere()
		}
		plain := len(it) == 1 && (it[0].kind == tkIdent || it[0].kind == tkQIdent)
		if len(it) > 1 && it[len(it)-1].kind == tkIdent && !it[len(it)-2].isOp("::") {
			// key opclass or key COLLATE name: kvsql keys compare in the
			// type's own order.
			return nil, unsupported(c.r.sql, it[len(it)-1].pos, "operator classes and collations in PARTITION BY are not supported")
		}
		if plain {
			ps.Keys = append(ps.Keys, it[0].val)
		} else {
			ps.Keys = append(ps.Keys, c.r.sql[it[0].pos:it[len(it)-1].end])
		}
		ps.KeyColumns = append(ps.KeyColumns, plain)
	}
	if ps.Strategy == "list" && len(ps.Keys) > 1 {
		return nil, pgerror.New(pgerror.InvalidTableDefinition, `cannot use "list" partition strategy with more than one column`)
	}
	return ps, nil
}

// parenItems reads ( item [, ...] ) and returns each item's tokens.
func (c *cursor) parenItems() ([][]token, error) {
	if c.done() || !c.toks[c.i].isPunct("(") {
		return nil, c.errHere()
	}
	end := matchForward(c.toks, c.i)
	if end < 0 {
		return nil, c.errHere()
	}
	items := splitTop(c.toks[c.i+1 : end])
	c.i = end + 1
	return items, nil
}

// bound reads FOR VALUES ... or DEFAULT.
func (c *cursor) bound() (*BoundSpec, error) {
	if c.accept("default") {
		return &BoundSpec{Default: true}, nil
	}
	if err := c.expect("for"); err != nil {
		return nil, err
	}
	if err := c.expect("values"); err != nil {
		return nil, err
	}
	b := &BoundSpec{}
	texts := func() ([]string, error) {
		items, err := c.parenItems()
		if err != nil {
			return nil, err
		}
		var out []string
		for _, it := range items {
			if len(it) == 0 {
				return nil, c.errHere()
			}
			out = append(out, c.r.sql[it[0].pos:it[len(it)-1].end])
		}
		return out, nil
	}
	var err error
	switch {
	case c.accept("in"):
		b.In, err = texts()
	case c.accept("from"):
		if b.From, err = texts(); err != nil {
			return nil, err
		}
		if err = c.expect("to"); err != nil {
			return nil, err
		}
		b.To, err = texts()
	case c.accept("with"):
		b.Hash = true
		items, perr := c.parenItems()
		if perr != nil {
			return nil, perr
		}
		for _, it := range items {
			if len(it) != 2 || it[1].kind != tkNumber {
				return nil, syntaxErr(c.r.sql, c.toks[c.i-1].pos, "syntax error in partition bound")
			}
			n, _ := strconv.Atoi(it[1].val)
			switch {
			case it[0].is("modulus"):
				b.Modulus = n
			case it[0].is("remainder"):
				b.Remainder = n
			default:
				return nil, syntaxErr(c.r.sql, it[0].pos, "unrecognized hash partition bound specification %q", it[0].val)
			}
		}
	default:
		return nil, c.errHere()
	}
	return b, err
}

// inheritTable parses CREATE TABLE whose name starts at toks[i] when it
// has INHERITS or is PARTITION OF; ok is false for any other CREATE
// TABLE.
func (r *rewriter) inheritTable(toks []token, i int, temp bool) (st Statement, ok bool, err error) {
	c := &cursor{r: r, toks: toks, i: i}
	is := &InheritStmt{Temp: temp}
	if c.accept("if") {
		if !c.accept("not") || !c.accept("exists") {
			return st, false, nil
		}
		is.IfNotExists = true
	}
	if is.Name, err = c.refName(); err != nil {
		return st, false, nil
	}
	if c.accept("partition") {
		if err := c.expect("of"); err != nil {
			return st, true, err
		}
		parent, err := c.refName()
		if err != nil {
			return st, true, err
		}
		is.Parents, is.PartitionOf = []string{parent}, true
		if !c.done() && c.toks[c.i].isPunct("(") {
			if is.Elements, err = c.elements(); err != nil {
				return st, true, err
			}
		}
		if is.Bound, err = c.bound(); err != nil {
			return st, true, err
		}
	} else {
		if c.done() || !c.toks[c.i].isPunct("(") {
			return st, false, nil
		}
		end := matchForward(c.toks, c.i)
		inherits := end > 0 && end+1 < len(toks) && toks[end+1].is("inherits")
		if end < 0 || !inherits && !hasLike(splitTop(toks[c.i+1:end])) {
			return st, false, nil
		}
		if is.Elements, err = c.elements(); err != nil {
			return st, true, err
		}
		if inherits {
			c.i++
			if is.Parents, err = c.nameList(); err != nil {
				return st, true, err
			}
		}
	}
	if c.peek("partition") {
		if is.PartitionBy, err = c.partitionBy(); err != nil {
			return st, true, err
		}
	}
	if !c.done() {
		return st, true, unsupported(r.sql, c.toks[c.i].pos, "table options after the column list are not supported")
	}
	st.Inherit = is
	return st, true, nil
}

// elements reads a parenthesised column list as written.
func (c *cursor) elements() ([]TableElement, error) {
	items, err := c.parenItems()
	if err != nil {
		return nil, err
	}
	var out []TableElement
	for _, it := range items {
		if len(it) == 0 {
			if len(items) == 1 {
				break // ()
			}
			return nil, c.errHere()
		}
		e := TableElement{Text: c.r.sql[it[0].pos:it[len(it)-1].end]}
		if it[0].is("like") {
			if err := c.r.likeElement(it, &e); err != nil {
				return nil, err
			}
			out = append(out, e)
			continue
		}
		if (it[0].kind == tkIdent && !tableConstraintWords[it[0].val]) || it[0].kind == tkQIdent {
			e.Column = it[0].val
			if len(it) > 1 {
				e.Rest = c.r.sql[it[1].pos:it[len(it)-1].end]
			}
		}
		out = append(out, e)
	}
	return out, nil
}

// attachPartition parses ALTER TABLE [ONLY] parent ATTACH PARTITION name
// bound and ALTER TABLE parent DETACH PARTITION name [CONCURRENTLY |
// FINALIZE]; ok is false for other ALTER TABLEs.
func (r *rewriter) attachPartition(toks []token) (Statement, bool, error) {
	c := &cursor{r: r, toks: toks, i: 2}
	c.accept("only")
	parent, err := c.refName()
	if err != nil {
		return Statement{}, false, nil
	}
	if inh, ok, err := c.alterInherit(parent); ok {
		return Statement{Attach: inh}, true, err
	}
	if c.done() || !(c.peek("attach") || c.peek("detach")) || c.i+1 >= len(toks) || !toks[c.i+1].is("partition") {
		return Statement{}, false, nil
	}
	as := &AttachStmt{Parent: parent, Detach: c.peek("detach")}
	c.i += 2
	if as.Partition, err = c.refName(); err != nil {
		return Statement{}, true, err
	}
	if as.Detach {
		if c.peek("concurrently") || c.peek("finalize") {
			return Statement{}, true, unsupported(r.sql, toks[c.i].pos, "DETACH PARTITION %s is not supported", toks[c.i].val)
		}
	} else if as.Bound, err = c.bound(); err != nil {
		return Statement{}, true, err
	}
	if !c.done() {
		return Statement{}, true, c.errHere()
	}
	return Statement{Attach: as}, true, nil
}

// markerOnly prefixes the name of a table read with ONLY (FROM ONLY t,
// UPDATE ONLY t, DELETE FROM ONLY t): vitess has no ONLY, and the binder
// (OnlyTable) strips the mark and leaves the table's children out.
const markerOnly = "kvsql_only:"

// OnlyTable reports whether name carries the ONLY mark and returns the
// name without it.
func OnlyTable(name string) (string, bool) {
	if len(name) > len(markerOnly) && name[:len(markerOnly)] == markerOnly {
		return name[len(markerOnly):], true
	}
	return name, false
}

// tableWords precede a table name in FROM, JOIN, UPDATE and DELETE.
var tableWords = map[string]bool{"from": true, "join": true, "update": true}

// inheritanceMarks spells `ONLY t` as the marked name (markerOnly) and
// drops the `*` of `t*`, which names t with its children as a bare t
// does.
func inheritanceMarks(toks []token) []token {
	out := make([]token, 0, len(toks)+4)
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		prev := token{}
		if len(out) > 0 {
			prev = out[len(out)-1]
		}
		afterTableWord := prev.kind == tkIdent && tableWords[prev.val]
		switch {
		case t.is("only") && afterTableWord && i+1 < len(toks) && (toks[i+1].kind == tkIdent || toks[i+1].kind == tkQIdent):
			n := toks[i+1]
			k := i + 1
			for k+2 < len(toks) && toks[k+1].isPunct(".") && (toks[k+2].kind == tkIdent || toks[k+2].kind == tkQIdent) {
				k += 2 // a qualified name: the mark goes on its last part
				out = append(out, toks[k-2], toks[k-1])
				n = toks[k]
			}
			out = append(out, token{kind: tkQIdent, val: markerOnly + n.val, pos: n.pos, end: n.end})
			i = k
			continue
		case t.isOp("*") && (prev.kind == tkIdent || prev.kind == tkQIdent) && len(out) > 1 && out[len(out)-2].kind == tkIdent && tableWords[out[len(out)-2].val]:
			continue
		}
		out = append(out, t)
	}
	return out
}

// MarkOnly returns name marked as read with ONLY (see markerOnly).
func MarkOnly(name string) string { return markerOnly + name }

// hasLike reports whether a column list has a LIKE element.
func hasLike(items [][]token) bool {
	for _, it := range items {
		if len(it) > 0 && it[0].is("like") {
			return true
		}
	}
	return false
}

// likeElement reads LIKE name [{INCLUDING | EXCLUDING} option ...]:
// kvsql copies the columns (names, types, NOT NULL) and, with INCLUDING
// DEFAULTS, their defaults; any other INCLUDING is 0A000.
func (r *rewriter) likeElement(it []token, e *TableElement) error {
	c := &cursor{r: r, toks: it, i: 1}
	name, err := c.refName()
	if err != nil {
		return err
	}
	e.Like = name
	for !c.done() {
		including := c.accept("including")
		if !including && !c.accept("excluding") {
			return c.errHere()
		}
		opt, err := c.name()
		if err != nil {
			return err
		}
		if including && opt != "defaults" {
			return unsupported(r.sql, it[c.i-1].pos, "LIKE ... INCLUDING %s is not supported", strings.ToUpper(opt))
		}
		e.LikeDefaults = including
	}
	return nil
}

// alterInherit reads the rest of ALTER TABLE child INHERIT parent and
// ALTER TABLE child NO INHERIT parent; ok is false for anything else.
func (c *cursor) alterInherit(child string) (*AttachStmt, bool, error) {
	start := c.i
	remove := c.accept("no")
	if !c.accept("inherit") {
		c.i = start
		return nil, false, nil
	}
	parent, err := c.refName()
	if err != nil {
		return nil, true, err
	}
	if !c.done() {
		return nil, true, c.errHere()
	}
	return &AttachStmt{Parent: parent, Partition: child, Detach: remove, Inheritance: true}, true, nil
}
