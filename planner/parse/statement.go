package parse

import (
	"strings"
	"vitess.io/vitess/go/vt/sqlparser"
)

// statement dispatches one statement's tokens on its leading words.
func (r *rewriter) statement(toks []token) (Statement, error) {
	toks = tableShorthand(toks)
	if toks[0].is("with") {
		rest, mods, err := r.modifyingCTEs(toks) // modifying.go
		if err != nil {
			return Statement{}, err
		}
		if mods != nil {
			st, err := r.statement(rest)
			st.ModifyingCTEs = mods
			for _, m := range mods {
				st.NumParams = max(st.NumParams, m.Stmt.NumParams)
			}
			return st, err
		}
	}
	var st Statement
	var err error
	first := toks[0]
	second := token{}
	if len(toks) > 1 {
		second = toks[1]
	}
	switch {
	case first.is("begin") || first.is("start") || first.is("commit") || first.is("end") ||
		first.is("rollback") || first.is("abort") || first.is("savepoint") || first.is("release"):
		return r.transaction(toks)
	case first.is("set") || first.is("reset"):
		return r.set(toks)
	case first.is("show"):
		return r.show(toks)
	case first.is("copy"):
		return r.copyStmt(toks)
	case first.is("analyze") || first.is("analyse"):
		return r.analyze(toks)
	case first.is("reindex"):
		return r.reindex(toks)
	case first.is("vacuum"):
		return r.vacuum(toks)
	case first.is("declare") || first.is("fetch") || first.is("move") || first.is("close"):
		return r.cursor(toks)
	case first.is("prepare") || first.is("execute") || first.is("deallocate"):
		return r.prepared(toks)
	case first.is("truncate"):
		return r.truncate(toks)
	case first.is("comment"):
		return r.comment(toks)
	case (first.is("create") || first.is("alter") || first.is("drop")) && (second.is("role") || second.is("user") || second.is("group")) && len(toks) > 2:
		return r.role(toks) // role.go
	case first.is("grant") || first.is("revoke"):
		return r.grantOrRevoke(toks) // grant.go
	case (first.is("create") || first.is("refresh") || first.is("drop")) && second.is("materialized") && len(toks) > 2 && toks[2].is("view"):
		return r.matView(toks)
	case first.is("create") && (second.is("trigger") || (second.is("temp") || second.is("temporary")) && len(toks) > 2 && toks[2].is("trigger")),
		first.is("drop") && second.is("trigger"):
		return r.trigger(toks)
	case first.is("explain"):
		return r.explain(toks)
	case first.is("lock"):
		return r.lock(toks)
	case first.is("discard"):
		return r.discard(toks)
	case first.is("listen") || first.is("unlisten") || first.is("notify"):
		return r.notify(toks)
	case first.is("checkpoint"):
		c := &cursor{r: r, toks: toks, i: 1}
		return Statement{Notify: &NotifyStmt{Op: "checkpoint"}}, c.end()
	case first.is("create") && (second.is("function") || second.is("procedure")),
		first.is("create") && second.is("or") && len(toks) > 3 && (toks[3].is("function") || toks[3].is("procedure")),
		(first.is("drop") || first.is("alter")) && (second.is("function") || second.is("procedure") || second.is("routine")):
		return r.routine(toks)
	case first.is("create") && (second.is("aggregate") || second.is("or") && len(toks) > 3 && toks[3].is("aggregate")),
		first.is("drop") && second.is("aggregate"):
		return r.aggregate(toks) // aggregate.go
	case (first.is("create") || first.is("drop") || first.is("alter")) && (second.is("type") || second.is("domain")):
		return r.userType(toks)
	case first.is("call"):
		return r.call(toks)
	case first.is("do"):
		return doBlock(r.sql, toks)
	case (first.is("create") || first.is("drop")) && second.is("schema"),
		first.is("alter") && second.is("schema") && len(toks) > 3 && toks[3].is("rename"):
		return r.schema(toks)
	case first.is("alter") && len(toks) > 4 && toks[len(toks)-3].is("owner") && toks[len(toks)-2].is("to"):
		if st, ok, err := r.alterOwner(toks); ok {
			return st, err
		}
	case first.is("alter") && second.is("view"):
		if st, ok, err := r.viewDefault(toks); ok { // view.go
			return st, err
		}
	case first.is("alter") && second.is("index") && toks[len(toks)-1].isPunct(")"):
		if st, ok, err := r.alterOptions(toks); ok {
			return st, err
		}
	case first.is("alter") && second.is("index"):
		if st, ok, err := r.attachIndex(toks); ok { // pgdump.go
			return st, err
		}
	case (first.is("create") || first.is("alter") || first.is("drop")) && second.is("sequence"),
		first.is("create") && (second.is("temp") || second.is("temporary") || second.is("unlogged")) && len(toks) > 2 && toks[2].is("sequence"):
		return r.sequence(toks)
	case (first.is("create") || first.is("drop")) && second.is("database"):
		return r.database(toks)
	case first.is("drop") && second.is("index"):
		return r.dropIndex(toks)
	case first.is("create"):
		if st, ok, err := r.createAs(toks); ok {
			return st, err
		}
		return r.create(toks)
	case first.is("alter") && second.is("table"):
		if st, ok, err := r.alterColumnOptions(toks); ok { // pgdump.go
			return st, err
		}
		if st, ok, err := r.alterOptions(toks); ok {
			return st, err
		}
		if st, ok, err := r.dropConstraint(toks); ok {
			return st, err
		}
		if st, ok, err := r.setSchema(toks); ok {
			return st, err
		}
		if st, ok, err := r.attachPartition(toks); ok {
			return st, err
		}
		if st, ok, err := r.alterColumn(toks); ok {
			return st, err
		}
		if st, ok, err := r.addIdentity(toks); ok {
			return st, err
		}
		toks, err = r.alterTable(toks)
	case first.is("drop") && (second.is("table") || second.is("view")):
		if n := len(toks); n > 2 && (toks[n-1].is("cascade") || toks[n-1].is("restrict")) {
			st.Cascade = toks[n-1].is("cascade")
			toks = toks[:n-1]
		}
	case first.is("insert") || first.is("update") || first.is("delete"):
		return r.dml(toks)
	case first.is("select") || first.isPunct("(") || first.is("values") || first.is("with") || first.is("table"):
		if st, ok, err := r.selectInto(toks); ok {
			return st, err
		}
		return r.query(toks)
	}
	if err != nil {
		return st, err
	}
	st.AST, err = r.vitessParse(toks)
	st.NumParams = r.numParams()
	return st, err
}

func (r *rewriter) numParams() int {
	if r.maxParam > 0 {
		return r.maxParam
	}
	return r.qmarks
}

// dml handles INSERT / UPDATE / DELETE: SQLite's INSERT OR REPLACE / OR
// IGNORE, and RETURNING, which is parsed separately as a select list.
func (r *rewriter) dml(toks []token) (Statement, error) {
	if st, ok := r.fastInsert(toks); ok { // fastinsert.go
		return st, nil
	}
	var st Statement
	if toks[0].is("insert") && len(toks) > 2 && toks[1].is("or") {
		switch {
		case toks[2].is("replace"):
			toks = append([]token{raw("replace", toks[0].pos)}, toks[3:]...)
		case toks[2].is("ignore"):
			toks = append([]token{raw("insert ignore", toks[0].pos)}, toks[3:]...)
		default:
			return st, unsupported(r.sql, toks[2].pos, "INSERT OR %s is not supported", toks[2].val)
		}
	}
	if k := findEnd(toks, 0, map[string]bool{"returning": true}); k < len(toks) && toks[k].is("returning") {
		if k+1 >= len(toks) {
			return st, syntaxErr(r.sql, toks[k].pos, "syntax error at end of RETURNING")
		}
		sel := append([]token{raw("select", toks[k].pos)}, toks[k+1:]...)
		ast, err := r.vitessParse(sel)
		if err != nil {
			return st, err
		}
		s, ok := ast.(*sqlparser.Select)
		if !ok || len(s.From) > 0 && !isDual(s.From) || s.Where != nil || s.OrderBy != nil || s.Limit != nil {
			return st, syntaxErr(r.sql, toks[k].pos, "syntax error in RETURNING list")
		}
		st.Returning = s.SelectExprs.Exprs
		toks = toks[:k]
	}
	if !toks[0].is("insert") {
		var err error
		if toks, st.CurrentOf, err = r.currentOf(toks); err != nil {
			return st, err
		}
	}
	if toks[0].is("update") {
		toks = updateFrom(toks)
	}
	if toks[0].is("delete") && len(toks) > 3 && toks[1].is("from") && findEnd(toks, 0, map[string]bool{"using": true}) < len(toks) {
		// DELETE FROM name [. name] [AS] alias USING ...
		k := 3
		for k+1 < len(toks) && toks[k].isPunct(".") {
			k += 2
		}
		a := k
		if a < len(toks) && toks[a].is("as") {
			a++
		}
		if a < len(toks) && (toks[a].kind == tkIdent && !toks[a].is("using") || toks[a].kind == tkQIdent) {
			st.TargetAlias = toks[a].val
			toks = append(toks[:k:k], toks[a+1:]...)
		}
	}
	if toks[0].is("insert") {
		var err error
		if toks, st.OnConflict, err = r.onConflict(toks); err != nil {
			return st, err
		}
		// INSERT INTO name [. name] AS alias
		if len(toks) > 2 && toks[1].is("into") {
			k := 3
			for k+1 < len(toks) && toks[k].isPunct(".") {
				k += 2
			}
			if k+1 < len(toks) && toks[k].is("as") && (toks[k+1].kind == tkIdent || toks[k+1].kind == tkQIdent) {
				st.TargetAlias = toks[k+1].val
				toks = append(toks[:k:k], toks[k+2:]...)
			}
		}
	}
	ast, err := r.vitessParse(toks)
	if err != nil {
		return st, err
	}
	st.AST = ast
	st.NumParams = r.numParams()
	return st, nil
}

// discard parses DISCARD {ALL | PLANS | SEQUENCES | TEMP | TEMPORARY}.
func (r *rewriter) discard(toks []token) (Statement, error) {
	c := &cursor{r: r, toks: toks, i: 1}
	var st Statement
	for _, what := range []string{"all", "plans", "sequences", "temp", "temporary"} {
		if c.accept(what) {
			st.Discard = strings.TrimSuffix(what, "orary")
			return st, c.end()
		}
	}
	return st, c.errHere()
}

// NotifyStmt is LISTEN channel, UNLISTEN {channel | *} or NOTIFY
// channel [, 'payload'] (and CHECKPOINT, which like them runs outside
// the planner and changes no data).
type NotifyStmt struct {
	Op      string // "listen", "unlisten", "notify" or "checkpoint"
	Channel string // "" for UNLISTEN *
	Payload string
}

// notify parses LISTEN, UNLISTEN and NOTIFY.
func (r *rewriter) notify(toks []token) (Statement, error) {
	c := &cursor{r: r, toks: toks, i: 1}
	n := &NotifyStmt{Op: strings.ToLower(toks[0].val)}
	var st Statement
	if n.Op == "unlisten" && !c.done() && c.toks[c.i].isOp("*") {
		c.i++
	} else {
		name, err := c.name()
		if err != nil {
			return st, err
		}
		n.Channel = name
	}
	if n.Op == "notify" && !c.done() && c.toks[c.i].isPunct(",") {
		c.i++
		p, err := c.stringLit()
		if err != nil {
			return st, err
		}
		n.Payload = p
	}
	st.Notify = n
	return st, c.end()
}

// currentOf takes UPDATE's and DELETE's WHERE CURRENT OF cursor off the
// tokens (vitess has no grammar for it), returning the cursor's name.
func (r *rewriter) currentOf(toks []token) ([]token, string, error) {
	k := findEnd(toks, 0, map[string]bool{"where": true})
	if k+2 >= len(toks) || !toks[k].is("where") || !toks[k+1].is("current") || !toks[k+2].is("of") {
		return toks, "", nil
	}
	c := &cursor{r: r, toks: toks, i: k + 3}
	name, err := c.name()
	if err != nil {
		return nil, "", err
	}
	if err := c.end(); err != nil {
		return nil, "", err
	}
	return toks[:k], name, nil
}

func isDual(from []sqlparser.TableExpr) bool {
	if len(from) != 1 {
		return false
	}
	a, ok := from[0].(*sqlparser.AliasedTableExpr)
	if !ok {
		return false
	}
	tn, ok := a.Expr.(sqlparser.TableName)
	return ok && tn.Name.String() == "dual"
}

// explain handles EXPLAIN [ANALYZE] [VERBOSE] stmt and EXPLAIN (options)
// stmt. The AST is a *sqlparser.ExplainStmt (Type AnalyzeType for ANALYZE)
// whose Statement is the inner vitess tree; Explained is the inner
// Statement with everything vitess cannot hold.
func (r *rewriter) explain(toks []token) (Statement, error) {
	var st Statement
	i := 1
	analyze := false
	if i < len(toks) && toks[i].isPunct("(") {
		end := matchForward(toks, i)
		if end < 0 {
			return st, syntaxErr(r.sql, toks[i].pos, "unterminated EXPLAIN options")
		}
		for _, opt := range splitTop(toks[i+1 : end]) {
			if len(opt) > 0 && opt[0].is("analyze") && (len(opt) == 1 || opt[1].is("true") || opt[1].is("on")) {
				analyze = true
			}
		}
		i = end + 1
	}
	for i < len(toks) && (toks[i].is("analyze") || toks[i].is("analyse") || toks[i].is("verbose")) {
		analyze = analyze || !toks[i].is("verbose")
		i++
	}
	if i >= len(toks) {
		return st, syntaxErr(r.sql, toks[len(toks)-1].end, "syntax error at end of input")
	}
	in, err := r.nested(toks[i:])
	if err != nil {
		return st, err
	}
	in.SQL = r.sql[toks[i].pos:toks[len(toks)-1].end]
	if cs := in.Cursor; cs != nil && cs.Op == "declare" {
		// EXPLAIN DECLARE explains the cursor's query (and declares
		// nothing), as in PostgreSQL.
		q := *cs.Query
		q.SQL = r.sql[toks[i].pos:toks[len(toks)-1].end]
		in = q
	}
	typ := sqlparser.EmptyType
	if analyze {
		typ = sqlparser.AnalyzeType
	}
	st.AST = &sqlparser.ExplainStmt{Type: typ, Statement: in.AST}
	st.Explained = &in
	st.NumParams = in.NumParams
	return st, nil
}

// OnConflictClause is INSERT ... ON CONFLICT [(columns) | ON CONSTRAINT
// name] DO NOTHING | DO UPDATE SET ... [WHERE ...].
type OnConflictClause struct {
	Columns    []string // the conflict target's columns, if written
	Constraint string   // ON CONSTRAINT name, if written
	Update     bool     // DO UPDATE (else DO NOTHING)
	Set        sqlparser.UpdateExprs
	Where      sqlparser.Expr // DO UPDATE ... WHERE
}

// onConflict cuts INSERT's ON CONFLICT clause (at parenthesis depth 0) off
// toks and parses it; the DO UPDATE's SET list and WHERE are parsed as
// those of an UPDATE.
func (r *rewriter) onConflict(toks []token) ([]token, *OnConflictClause, error) {
	depth, k := 0, -1
	for i, t := range toks {
		switch {
		case t.isPunct("("):
			depth++
		case t.isPunct(")"):
			depth--
		case depth == 0 && t.is("on") && i+1 < len(toks) && toks[i+1].is("conflict"):
			k = i
		}
		if k >= 0 {
			break
		}
	}
	if k < 0 {
		return toks, nil, nil
	}
	oc := &OnConflictClause{}
	c := &cursor{r: r, toks: toks, i: k + 2}
	switch {
	case c.i < len(toks) && toks[c.i].isPunct("("):
		end := matchForward(toks, c.i)
		if end < 0 {
			return nil, nil, syntaxErr(r.sql, toks[c.i].pos, "unterminated conflict target")
		}
		for _, part := range splitTop(toks[c.i+1 : end]) {
			if len(part) != 1 || part[0].kind != tkIdent && part[0].kind != tkQIdent {
				return nil, nil, unsupported(r.sql, toks[c.i].pos, "ON CONFLICT targets other than column names are not supported")
			}
			oc.Columns = append(oc.Columns, part[0].val)
		}
		c.i = end + 1
		if c.peek("where") {
			return nil, nil, unsupported(r.sql, toks[c.i].pos, "ON CONFLICT (...) WHERE (a partial index's predicate) is not supported")
		}
	case c.peek("on") && c.i+2 < len(toks) && toks[c.i+1].is("constraint"):
		oc.Constraint = toks[c.i+2].val
		c.i += 3
	}
	if !c.peek("do") || c.i+1 >= len(toks) {
		return nil, nil, syntaxErr(r.sql, toks[min(c.i, len(toks)-1)].pos, "DO NOTHING or DO UPDATE expected after ON CONFLICT")
	}
	c.i++
	switch {
	case c.peek("nothing") && c.i+1 == len(toks):
	case c.peek("update") && c.i+1 < len(toks) && toks[c.i+1].is("set"):
		oc.Update = true
		pos := toks[c.i].pos
		upd := append([]token{{kind: tkIdent, val: "update", pos: pos}, raw("kvsql_excluded", pos), {kind: tkIdent, val: "set", pos: pos}}, toks[c.i+2:]...)
		ast, err := r.vitessParse(upd)
		if err != nil {
			return nil, nil, err
		}
		u, ok := ast.(*sqlparser.Update)
		if !ok || u.OrderBy != nil || u.Limit != nil {
			return nil, nil, syntaxErr(r.sql, toks[c.i].pos, "syntax error in ON CONFLICT DO UPDATE")
		}
		oc.Set = u.Exprs
		if u.Where != nil {
			oc.Where = u.Where.Expr
		}
	default:
		return nil, nil, syntaxErr(r.sql, toks[c.i].pos, "syntax error at or near %q", toks[c.i].val)
	}
	return toks[:k], oc, nil
}

// updateFrom spells PostgreSQL's UPDATE t SET ... FROM items WHERE ... as
// vitess's multi-table UPDATE t, items SET ... WHERE ...; the planner
// takes the first table as the target and joins the others.
func updateFrom(toks []token) []token {
	depth, set, from, end := 0, -1, -1, len(toks)
	for i, t := range toks {
		switch {
		case t.isPunct("("):
			depth++
		case t.isPunct(")"):
			depth--
		case depth != 0:
		case set < 0 && t.is("set"):
			set = i
		case set >= 0 && from < 0 && t.is("from"):
			from = i
		case from >= 0 && t.is("where"):
			end = i
		}
		if end < len(toks) {
			break
		}
	}
	if set < 0 || from < 0 || from+1 >= end {
		return toks
	}
	out := append([]token{}, toks[:set]...)
	out = append(out, raw(",", toks[from].pos))
	out = append(out, toks[from+1:end]...)
	out = append(out, toks[set:from]...)
	return append(out, toks[end:]...)
}

// tableShorthand spells TABLE name, SQL's shorthand for SELECT * FROM
// name, out where a query starts: the statement's first word, after an
// opening parenthesis, after UNION, INTERSECT or EXCEPT [ALL | DISTINCT],
// after AS (CREATE TABLE t AS TABLE s; TABLE is reserved, so no alias is
// spelled so) and after INSERT INTO t (INSERT INTO t TABLE s). Elsewhere
// (CREATE TABLE, LOCK TABLE, RETURNS TABLE (...)) TABLE is left alone.
func tableShorthand(toks []token) []token {
	var out []token
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.is("table") && i+1 < len(toks) && (toks[i+1].kind == tkIdent || toks[i+1].kind == tkQIdent) && queryStarts(toks, i) {
			if out == nil {
				out = append(make([]token, 0, len(toks)+2), toks[:i]...)
			}
			out = append(out, token{kind: tkIdent, val: "select", pos: t.pos, end: t.end}, token{kind: tkOp, val: "*", pos: t.pos, end: t.end},
				token{kind: tkIdent, val: "from", pos: t.pos, end: t.end})
			continue
		}
		if out != nil {
			out = append(out, t)
		}
	}
	if out == nil {
		return toks
	}
	return out
}

// queryStarts reports whether a query may start at toks[i].
func queryStarts(toks []token, i int) bool {
	if i == 0 {
		return true
	}
	prev := toks[i-1]
	if prev.is("all") || prev.is("distinct") {
		if i < 2 {
			return false
		}
		prev = toks[i-2]
	}
	if prev.isPunct("(") || prev.is("union") || prev.is("intersect") || prev.is("except") || prev.is("as") {
		return true
	}
	// INSERT INTO t [(cols)] TABLE s
	if i >= 3 && toks[i-3].is("insert") && toks[i-2].is("into") {
		return true
	}
	return prev.isPunct(")") && insertColumnList(toks, i-1)
}

// insertColumnList reports whether the ')' at toks[end] closes the column
// list of INSERT INTO t (...).
func insertColumnList(toks []token, end int) bool {
	open := matchBack(toks, end)
	return open >= 3 && toks[open-3].is("insert") && toks[open-2].is("into")
}
