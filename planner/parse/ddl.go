package parse

import (
	"strconv"
	"strings"

	"github.com/kvsql/kvsql/pgerror"
)

// columnConstraintWords end a column's type and a DEFAULT expression.
var columnConstraintWords = map[string]bool{
	"not": true, "null": true, "primary": true, "unique": true, "references": true,
	"check": true, "constraint": true, "collate": true, "generated": true, "default": true,
}

// tableConstraintWords start a table constraint rather than a column.
var tableConstraintWords = map[string]bool{
	"constraint": true, "primary": true, "unique": true, "foreign": true,
	"check": true, "key": true, "index": true, "exclude": true,
}

// create handles CREATE TABLE / INDEX / VIEW and passes anything else on.
func (r *rewriter) create(toks []token) (Statement, error) {
	var st Statement
	i := 1
	if i < len(toks) && toks[i].is("or") && i+1 < len(toks) && toks[i+1].is("replace") {
		i += 2
	}
	temp := false
	if i < len(toks) && (toks[i].is("temp") || toks[i].is("temporary")) {
		temp = true
		i++
	}
	if i < len(toks) && toks[i].is("unlogged") {
		toks = append(toks[:i:i], toks[i+1:]...)
	}
	var err error
	switch {
	case i < len(toks) && toks[i].is("table"):
		if st, ok, err := r.inheritTable(toks, i+1, temp); ok {
			return st, err
		}
		if temp {
			toks = append(append(toks[:i-1:i-1], raw("temporary", toks[i-1].pos)), toks[i:]...)
		}
		toks, err = r.createTable(toks, i+1)
	case i < len(toks) && toks[i].is("view"):
		if temp {
			st.Temp = true
			toks = append(toks[:i-1:i-1], toks[i:]...)
		}
	case i < len(toks) && (toks[i].is("index") || toks[i].is("unique")):
		return r.createIndex(toks)
	}
	if err != nil {
		return st, err
	}
	st.AST, err = r.vitessParse(toks)
	st.NumParams = r.numParams()
	return st, err
}

// likeOnly reports whether a CREATE TABLE element list is LIKE name
// alone, returning those tokens.
func likeOnly(elems []token) ([]token, bool) {
	if len(elems) < 2 || !elems[0].is("like") {
		return nil, false
	}
	for k, t := range elems[1:] {
		isName := t.kind == tkIdent || t.kind == tkQIdent
		if k%2 == 0 && !isName || k%2 == 1 && !t.isPunct(".") {
			return nil, false
		}
	}
	return elems, len(elems)%2 == 0
}

// createTable rewrites the column definitions of CREATE TABLE whose name
// starts at toks[i].
func (r *rewriter) createTable(toks []token, i int) ([]token, error) {
	open := -1
	for k := i; k < len(toks); k++ {
		if toks[k].isPunct("(") {
			open = k
			break
		}
		if toks[k].is("as") {
			return toks, nil // CREATE TABLE ... AS SELECT: vitess reports it
		}
	}
	if open < 0 {
		return toks, nil
	}
	closing := matchForward(toks, open)
	if closing < 0 {
		return nil, syntaxErr(r.sql, toks[open].pos, "unterminated column list")
	}
	if like, ok := likeOnly(toks[open+1 : closing]); ok {
		// CREATE TABLE t (LIKE s): vitess's spelling is CREATE TABLE t
		// LIKE s. LIKE beside other elements or with INCLUDING options
		// is left for vitess to refuse.
		return append(append(append([]token{}, toks[:open]...), like...), toks[closing+1:]...), nil
	}
	out := append([]token{}, toks[:open+1]...)
	first := true
	for _, elem := range splitTop(toks[open+1 : closing]) {
		var item []token
		if len(elem) > 0 && elem[0].kind == tkIdent && tableConstraintWords[elem[0].val] {
			rest, err := r.takeCheck(elem, "")
			if err != nil {
				return nil, err
			}
			if rest, err = r.refClause(rest); err != nil {
				return nil, err
			}
			if len(rest) == 0 {
				continue // a CHECK constraint: Statement.Checks has it
			}
			item = rest
		} else {
			col, err := r.columnDef(elem)
			if err != nil {
				return nil, err
			}
			item = col
		}
		if !first {
			out = append(out, raw(",", elem0pos(elem, toks[open].pos)))
		}
		first = false
		out = append(out, item...)
	}
	for _, fk := range r.columnFKs {
		out = append(out, raw(",", toks[closing].pos))
		out = append(out, fk...)
	}
	r.columnFKs = nil
	_, rest, err := r.tableTail(toks[closing+1:])
	if err != nil {
		return nil, err
	}
	if len(rest) > 0 && rest[0].is("with") {
		n, err := r.storageParams(rest)
		if err != nil {
			return nil, err
		}
		rest = rest[n:]
	} else if len(rest) >= 2 && rest[0].is("without") && rest[1].is("oids") {
		rest = rest[2:]
	}
	if len(rest) > 0 {
		return nil, unsupported(r.sql, rest[0].pos, "table options after the column list are not supported")
	}
	return append(out, toks[closing]), nil
}

// storageParams are PostgreSQL's table storage parameters. They tune its
// heap (fill factor, vacuum, TOAST), which kvsql does not have: CREATE
// TABLE accepts and ignores them, as pgbench and pg_dump emit them.
var storageParams = map[string]bool{
	"fillfactor": true, "toast_tuple_target": true, "parallel_workers": true,
	"autovacuum_enabled": true, "vacuum_index_cleanup": true, "vacuum_truncate": true,
	"user_catalog_table": true, "log_autovacuum_min_duration": true,
}

// indexParams are the storage parameters of a btree index: they tune
// PostgreSQL's index pages, which kvsql does not have; CREATE INDEX
// accepts and ignores them.
var indexParams = map[string]bool{"fillfactor": true, "deduplicate_items": true}

// storageParams reads a table's WITH (name [= value], ...) at the start of
// toks and returns how many tokens it spans. An unknown name is 22023, as
// in PostgreSQL; fillfactor must be 10 to 100.
func (r *rewriter) storageParams(toks []token) (int, error) {
	return r.withParams(toks, storageParams, true)
}

// withParams reads WITH (name [= value], ...) with the parameter names
// known (and, when prefixed, autovacuum_* and toast.*).
func (r *rewriter) withParams(toks []token, known map[string]bool, prefixed bool) (int, error) {
	if len(toks) < 2 || !toks[1].isPunct("(") {
		return 0, syntaxErr(r.sql, toks[0].pos, `syntax error at or near "with"`)
	}
	end := matchForward(toks, 1)
	if end < 0 {
		return 0, syntaxErr(r.sql, toks[1].pos, "unterminated WITH options")
	}
	for _, p := range splitTop(toks[2:end]) {
		if len(p) == 0 || p[0].kind != tkIdent {
			return 0, syntaxErr(r.sql, toks[1].pos, "storage parameter name expected")
		}
		name := p[0].val
		if len(p) >= 3 && p[1].isPunct(".") && p[2].kind == tkIdent { // toast.name
			name, p = name+"."+p[2].val, p[2:]
		}
		isPrefixed := prefixed && (strings.HasPrefix(name, "autovacuum_") || strings.HasPrefix(name, "toast."))
		if !known[name] && !isPrefixed {
			return 0, pgerror.Newf(invalidParameterValue, "unrecognized parameter %q", name)
		}
		if name == "fillfactor" && len(p) == 3 && p[1].isOp("=") {
			if v, err := strconv.Atoi(p[2].val); err != nil || v < 10 || v > 100 {
				e := pgerror.Newf(invalidParameterValue, "value %s out of bounds for option \"fillfactor\"", p[2].val)
				e.Detail = `Valid values are between "10" and "100".`
				return 0, e
			}
		}
	}
	return end + 1, nil
}

// invalidParameterValue is PostgreSQL's 22023.
const invalidParameterValue pgerror.Code = "22023"

func elem0pos(elem []token, def int) int {
	if len(elem) > 0 {
		return elem[0].pos
	}
	return def
}

// columnDef rewrites `name type [constraints]`: the type becomes a marker
// resolved by fixup to its canonical name, GENERATED ... AS IDENTITY turns
// the type into the matching serial type, and DEFAULT expressions are
// parenthesised (vitess accepts only literals unparenthesised).
func (r *rewriter) columnDef(elem []token) ([]token, error) {
	if len(elem) < 2 {
		if len(elem) == 0 {
			return nil, syntaxErr(r.sql, 0, "column definition expected")
		}
		return nil, syntaxErr(r.sql, elem[0].pos, "column %q needs a type", elem[0].val)
	}
	tn, next, ok, err := parseType(r.sql, elem, 1)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, syntaxErr(r.sql, elem[1].pos, "type name expected")
	}
	rest, err := r.takeCheck(elem[next:], elem[0].val)
	if err != nil {
		return nil, err
	}
	if rest, err = r.takeReferences(rest, elem[0]); err != nil {
		return nil, err
	}
	var cons, nullity []token
	for j := 0; j < len(rest); j++ {
		t := rest[j]
		switch {
		case t.is("generated"):
			// GENERATED {ALWAYS | BY DEFAULT} AS IDENTITY [(options)]
			k := j + 1
			if k < len(rest) && rest[k].is("always") {
				r.identityAlways = append(r.identityAlways, elem[0].val)
				k++
			} else if k+1 < len(rest) && rest[k].is("by") && rest[k+1].is("default") {
				r.identityByDefault = append(r.identityByDefault, elem[0].val)
				k += 2
			} else {
				return nil, syntaxErr(r.sql, t.pos, "ALWAYS or BY DEFAULT expected")
			}
			if k+1 >= len(rest) || !rest[k].is("as") || !rest[k+1].is("identity") {
				return nil, unsupported(r.sql, t.pos, "generated columns are not supported")
			}
			k += 2
			if k < len(rest) && rest[k].isPunct("(") {
				if k = matchForward(rest, k); k < 0 {
					return nil, syntaxErr(r.sql, t.pos, "unterminated identity options")
				}
				k++
			}
			switch tn.Name {
			case "integer":
				tn.Name = "serial"
			case "bigint":
				tn.Name = "bigserial"
			case "smallint":
				tn.Name = "smallserial"
			default:
				return nil, syntaxErr(r.sql, t.pos, "identity column type must be smallint, integer, or bigint")
			}
			j = k - 1
		case t.is("default"):
			end := findEnd(rest, j+1, columnConstraintWords)
			if end == j+1 {
				return nil, syntaxErr(r.sql, t.pos, "DEFAULT expression expected")
			}
			cons = append(cons, t, raw("(", t.pos))
			cons = append(cons, rest[j+1:end]...)
			cons = append(cons, raw(")", t.pos))
			j = end - 1
		case t.is("not") && j+1 < len(rest) && rest[j+1].is("null"), t.is("null"):
			// [NOT] NULL may follow other constraints in PostgreSQL
			// (id INT PRIMARY KEY NOT NULL); vitess wants it first.
			n := 1
			if t.is("not") {
				n = 2
			}
			nullity = append(nullity, rest[j:j+n]...)
			j += n - 1
		case t.is("unique") || t.is("primary") && j+1 < len(rest) && rest[j+1].is("key"):
			k := j + 1
			if t.is("primary") {
				k++
			}
			k = keyAttrsEnd(rest, k)
			if k == j+1 || t.is("primary") && k == j+2 {
				cons = append(cons, t)
				continue
			}
			// UNIQUE NULLS NOT DISTINCT, PRIMARY KEY DEFERRABLE ...:
			// attributes vitess has no grammar for. The key becomes a
			// table constraint over the column, which refClause reads.
			start := j
			if n := len(cons); n >= 2 && cons[n-2].is("constraint") {
				start, cons = -1, cons[:n-2]
			}
			elemToks := []token{}
			if start < 0 {
				elemToks = append(elemToks, rest[j-2:j]...)
			}
			keyWords := rest[j : j+1]
			if t.is("primary") {
				keyWords = rest[j : j+2]
			}
			elemToks = append(elemToks, keyWords...)
			attrStart := j + len(keyWords)
			lp, rp := token{kind: tkPunct, val: "(", pos: t.pos, end: t.pos}, token{kind: tkPunct, val: ")", pos: t.pos, end: t.pos}
			elemToks = append(elemToks, lp, elem[0], rp)
			elemToks = append(elemToks, rest[attrStart:k]...)
			clause, err := r.refClause(elemToks)
			if err != nil {
				return nil, err
			}
			r.columnFKs = append(r.columnFKs, clause)
			j = k - 1
		default:
			cons = append(cons, t)
		}
	}
	out := []token{elem[0]}
	out = append(out, r.addType(tn, tn.pos)...)
	out = append(out, nullity...)
	return append(out, cons...), nil
}

// keyAttrsEnd returns where the constraint attributes of a column's
// UNIQUE or PRIMARY KEY starting at toks[k] end: NULLS [NOT] DISTINCT,
// [NOT] DEFERRABLE, INITIALLY DEFERRED | IMMEDIATE.
func keyAttrsEnd(toks []token, k int) int {
	for k < len(toks) {
		switch {
		case toks[k].is("nulls") && k+1 < len(toks) && toks[k+1].is("distinct"):
			k += 2
		case toks[k].is("nulls") && k+2 < len(toks) && toks[k+1].is("not") && toks[k+2].is("distinct"):
			k += 3
		case toks[k].is("deferrable"):
			k++
		case toks[k].is("not") && k+1 < len(toks) && toks[k+1].is("deferrable"):
			k += 2
		case toks[k].is("initially") && k+1 < len(toks):
			k += 2
		default:
			return k
		}
	}
	return k
}

// alterTable rewrites the column definition of ALTER TABLE t ADD [COLUMN]
// [IF NOT EXISTS] name type ...; other ALTER TABLE forms go to vitess as
// they are.
func (r *rewriter) alterTable(toks []token) ([]token, error) {
	k := 2
	if k < len(toks) && toks[k].is("only") {
		// ALTER TABLE ONLY t: the change stays on t, not its children
		// (Statement.AlterOnly).
		r.alterOnly = true
		toks = append(toks[:k:k], toks[k+1:]...)
	}
	if k < len(toks) && toks[k].is("if") && k+1 < len(toks) && toks[k+1].is("exists") {
		return nil, unsupported(r.sql, toks[k].pos, "ALTER TABLE IF EXISTS is not supported")
	}
	for k < len(toks) && (toks[k].kind == tkIdent || toks[k].kind == tkQIdent || toks[k].isPunct(".")) && !toks[k].is("add") {
		k++
	}
	if k < len(toks) {
		// Each ADD [CONSTRAINT name] CHECK (expr) [NO INHERIT] [NOT VALID]
		// goes to Statement.Checks; vitess sees the other subcommands.
		var kept [][]token
		for _, part := range splitTop(toks[k:]) {
			if len(part) < 2 || !part[0].is("add") || !(part[1].is("check") || part[1].is("constraint") && len(part) > 3 && part[3].is("check")) {
				kept = append(kept, part)
				continue
			}
			rest, err := r.takeCheck(part[1:], "")
			if err != nil {
				return nil, err
			}
			if len(rest) > 0 {
				return nil, syntaxErr(r.sql, rest[0].pos, "syntax error at or near %q", rest[0].val)
			}
		}
		if len(kept) == 0 {
			return toks[:k], nil
		}
		if len(kept) == 1 {
			toks = append(toks[:k:k], kept[0]...)
		} else {
			joined := toks[:k:k]
			for i, part := range kept {
				if i > 0 {
					joined = append(joined, token{kind: tkPunct, val: ",", pos: part[0].pos})
				}
				joined = append(joined, part...)
			}
			toks = joined
		}
	}
	if k >= len(toks) || !toks[k].is("add") {
		return parenDefault(toks), nil
	}
	k++
	if k < len(toks) && toks[k].kind == tkIdent && tableConstraintWords[toks[k].val] {
		rest, err := r.refClause(toks[k:])
		if err != nil {
			return nil, err
		}
		return append(toks[:k:k], rest...), nil
	}
	out := append([]token{}, toks[:k]...)
	if k < len(toks) && toks[k].is("column") {
		out = append(out, toks[k])
		k++
	}
	if k+2 < len(toks) && toks[k].is("if") && toks[k+1].is("not") && toks[k+2].is("exists") {
		return nil, unsupported(r.sql, toks[k].pos, "ADD COLUMN IF NOT EXISTS is not supported")
	}
	col, err := r.columnDef(toks[k:])
	if err != nil {
		return nil, err
	}
	return append(out, col...), nil
}

// parenDefault puts parentheses around the expression of ALTER TABLE t
// ALTER [COLUMN] c SET DEFAULT expr when it is not already a parenthesised
// one: vitess's (MySQL's) grammar takes only literals bare, and
// PostgreSQL's SET DEFAULT nextval('s'::regclass) must reach it as
// DEFAULT (nextval(...)).
func parenDefault(toks []token) []token {
	for k := 0; k+2 < len(toks); k++ {
		if !toks[k].is("set") || !toks[k+1].is("default") {
			continue
		}
		e := k + 2
		if toks[e].isPunct("(") || e+1 == len(toks) {
			return toks // already parenthesised, or a single literal
		}
		out := append([]token{}, toks[:e]...)
		out = append(out, token{kind: tkPunct, val: "(", pos: toks[e].pos})
		out = append(out, toks[e:]...)
		return append(out, token{kind: tkPunct, val: ")", pos: toks[len(toks)-1].pos})
	}
	return toks
}

// CheckDef is a CHECK constraint of CREATE TABLE: its name if written,
// the column it was written on ("" for a table constraint) and its
// expression as the user wrote it.
type CheckDef struct {
	Name, Column, Expr string
	// NoInherit marks CHECK ... NO INHERIT: the constraint stays on its
	// table, children do not take it.
	NoInherit bool
	// NotValid marks CHECK ... NOT VALID: ALTER TABLE ... ADD does not
	// check the rows already there (CREATE TABLE has none).
	NotValid bool
}

// takeCheck removes every [CONSTRAINT name] CHECK (expr) [NO INHERIT |
// NOT VALID] from toks, a column's constraints or a table constraint,
// recording each in r.checks with column as its column.
func (r *rewriter) takeCheck(toks []token, column string) ([]token, error) {
	var out []token
	for i := 0; i < len(toks); i++ {
		j, name := i, ""
		if toks[j].is("constraint") && j+2 < len(toks) && toks[j+2].is("check") {
			name, j = toks[j+1].val, j+2
		}
		if !toks[j].is("check") || j+1 >= len(toks) || !toks[j+1].isPunct("(") {
			out = append(out, toks[i])
			continue
		}
		end := matchForward(toks, j+1)
		if end < 0 || end == j+2 {
			return nil, syntaxErr(r.sql, toks[j].pos, "syntax error in CHECK constraint")
		}
		def := CheckDef{Name: name, Column: column, Expr: r.sql[toks[j+2].pos:toks[end].pos]}
		i = end
		for i+1 < len(toks) && (toks[i+1].is("no") && i+2 < len(toks) && toks[i+2].is("inherit") || toks[i+1].is("not") && i+2 < len(toks) && toks[i+2].is("valid")) {
			def.NoInherit = def.NoInherit || toks[i+1].is("no")
			def.NotValid = def.NotValid || toks[i+1].is("not")
			i += 2
		}
		r.checks = append(r.checks, def)
	}
	return out, nil
}

// markerPrimaryKey stands for the referenced table's primary key in a
// REFERENCES clause that names no columns (vitess requires a list).
const markerPrimaryKey = "kvsql_pk"

// MarkerPrimaryKey is markerPrimaryKey for the session, which resolves it.
const MarkerPrimaryKey = markerPrimaryKey

// takeReferences moves a column's REFERENCES clause (vitess parses no ON
// DELETE there, nor a missing column list) to a table-level FOREIGN KEY
// appended to the column list.
func (r *rewriter) takeReferences(toks []token, col token) ([]token, error) {
	for i, t := range toks {
		if !t.is("references") {
			continue
		}
		end := i + 1
		for end < len(toks) && (toks[end].kind == tkIdent || toks[end].kind == tkQIdent || toks[end].isPunct(".")) && !refWords[toks[end].val] {
			end++ // the table name
		}
		if end < len(toks) && toks[end].isPunct("(") {
			if end = matchForward(toks, end); end < 0 {
				return nil, syntaxErr(r.sql, t.pos, "unterminated REFERENCES column list")
			}
			end++
		}
		for end < len(toks) {
			switch u := toks[end]; {
			case u.is("on") && end+2 < len(toks):
				end += 2 // ON DELETE | UPDATE, then the action
				if toks[end].is("set") || toks[end].is("no") {
					end++
				}
				end++
				if end < len(toks) && toks[end].isPunct("(") {
					// ON DELETE SET NULL (cols)
					if end = matchForward(toks, end); end < 0 {
						return nil, syntaxErr(r.sql, u.pos, "unterminated column list")
					}
					end++
				}
			case u.is("match") || u.is("initially"):
				end += 2
			case u.is("deferrable"):
				end++
			case u.is("not") && end+1 < len(toks) && toks[end+1].is("deferrable"):
				end += 2
			default:
				goto done
			}
		}
	done:
		end = min(end, len(toks))
		clause, err := r.refClause(toks[i:end])
		if err != nil {
			return nil, err
		}
		fk := []token{raw("foreign key (", t.pos), col, raw(")", t.pos)}
		if i >= 2 && toks[i-2].is("constraint") {
			// CONSTRAINT name REFERENCES ...: the name goes along.
			fk = append([]token{toks[i-2], toks[i-1]}, fk...)
			i -= 2
		}
		r.columnFKs = append(r.columnFKs, append(fk, clause...))
		return append(append([]token{}, toks[:i]...), toks[end:]...), nil
	}
	return toks, nil
}

// refWords end the table name of a REFERENCES clause.
var refWords = map[string]bool{
	"on": true, "match": true, "deferrable": true, "not": true, "initially": true,
	"null": true, "primary": true, "unique": true, "default": true, "constraint": true,
	"check": true, "generated": true, "collate": true, "references": true,
}

// refClause rewrites a REFERENCES clause for vitess: a missing column list
// becomes the primary-key marker; MATCH SIMPLE (the default) is dropped
// and MATCH FULL left for vitess, MATCH PARTIAL is 0A000 as in
// PostgreSQL. What vitess has no grammar for — [NOT] DEFERRABLE,
// INITIALLY DEFERRED | IMMEDIATE, ON DELETE SET NULL | SET DEFAULT's
// column list, UNIQUE's NULLS [NOT] DISTINCT and the INCLUDE list of
// UNIQUE and PRIMARY KEY — goes to Statement.FKAttrs, and the marker column
// MarkerFKAttrs<i> at the end of the referenced column list says which
// entry is this clause's. The same words after a UNIQUE or PRIMARY KEY
// table constraint are read likewise (uniqueAttrs).
func (r *rewriter) refClause(toks []token) ([]token, error) {
	var out []token
	var attrs FKAttrs
	listEnd := -1 // in out: the referenced column list's closing parenthesis, or the marker token
	isRef := false
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.is("references"):
			isRef = true
			out = append(out, t)
			j := i + 1
			for j < len(toks) && (toks[j].kind == tkIdent || toks[j].kind == tkQIdent || toks[j].isPunct(".")) && !refWords[toks[j].val] {
				out = append(out, toks[j])
				j++
			}
			if j >= len(toks) || !toks[j].isPunct("(") {
				out = append(out, raw("("+markerPrimaryKey+")", t.pos))
				listEnd = len(out) - 1
			} else if close := matchForward(toks, j); close > 0 {
				out = append(out, toks[j:close+1]...)
				listEnd = len(out) - 1
				j = close + 1
			}
			i = j - 1
		case t.is("include") && !isRef && i+1 < len(toks) && toks[i+1].isPunct("("):
			// UNIQUE (cols) INCLUDE (cols), PRIMARY KEY (cols) INCLUDE (cols)
			inc, next, err := r.includeList(toks, i)
			if err != nil {
				return nil, err
			}
			attrs.Include = append(attrs.Include, inc...)
			i = next - 1
		case t.is("nulls") && !isRef && i+1 < len(toks) && toks[i+1].is("distinct"):
			i++ // UNIQUE NULLS DISTINCT: the default
		case t.is("nulls") && !isRef && i+2 < len(toks) && toks[i+1].is("not") && toks[i+2].is("distinct"):
			i += 2
			attrs.NullsNotDistinct = true
		case t.is("deferrable"), t.is("not") && i+1 < len(toks) && toks[i+1].is("deferrable"):
			if t.is("not") {
				i++
				attrs.NotDeferrable = true
			} else {
				attrs.Deferrable = true
			}
		case t.is("initially") && i+1 < len(toks):
			if toks[i+1].is("deferred") {
				attrs.InitiallyDeferred = true
			} else if !toks[i+1].is("immediate") {
				return nil, syntaxErr(r.sql, toks[i+1].pos, "syntax error at or near \"%s\"", toks[i+1].val)
			}
			i++
		case t.is("match") && i+1 < len(toks):
			switch {
			case toks[i+1].is("full"):
				out = append(out, toks[i], toks[i+1])
			case toks[i+1].is("partial"):
				return nil, unsupported(r.sql, t.pos, "MATCH PARTIAL not yet implemented")
			case !toks[i+1].is("simple"):
				return nil, syntaxErr(r.sql, toks[i+1].pos, "syntax error at or near \"%s\"", toks[i+1].val)
			}
			i++
		case t.is("on") && i+3 < len(toks) && toks[i+2].is("set") && (toks[i+3].is("null") || toks[i+3].is("default")):
			out = append(out, toks[i:i+4]...)
			i += 3
			if i+1 < len(toks) && toks[i+1].isPunct("(") {
				close := matchForward(toks, i+1)
				if close < 0 {
					return nil, syntaxErr(r.sql, toks[i+1].pos, "unterminated column list")
				}
				if !toks[i-2].is("delete") {
					return nil, unsupported(r.sql, toks[i-3].pos, "a column list with SET %s is only supported for ON DELETE actions", strings.ToUpper(toks[i].val))
				}
				cols := []string{}
				for _, c := range toks[i+2 : close] {
					switch {
					case c.isPunct(","):
					case c.kind == tkIdent || c.kind == tkQIdent:
						cols = append(cols, c.val)
					default:
						return nil, syntaxErr(r.sql, c.pos, "syntax error at or near \"%s\"", c.val)
					}
				}
				attrs.DeleteSetColumns = cols
				i = close
			}
		default:
			out = append(out, t)
		}
	}
	if attrs.Deferrable && attrs.NotDeferrable {
		return nil, syntaxErr(r.sql, toks[0].pos, "conflicting constraint properties")
	}
	if attrs.InitiallyDeferred && attrs.NotDeferrable {
		return nil, syntaxErr(r.sql, toks[0].pos, "constraint declared INITIALLY DEFERRED must be DEFERRABLE")
	}
	if attrs.InitiallyDeferred {
		attrs.Deferrable = true
	}
	if !attrs.Deferrable && attrs.DeleteSetColumns == nil && !attrs.NullsNotDistinct && attrs.Include == nil {
		return out, nil
	}
	r.fkAttrs = append(r.fkAttrs, attrs)
	marker := MarkerFKAttrs + strconv.Itoa(len(r.fkAttrs)-1)
	if !isRef {
		// A UNIQUE or PRIMARY KEY constraint: the marker joins its
		// column list, the first parenthesised one.
		for k, t := range out {
			if t.isPunct("(") {
				if close := matchForward(out, k); close > 0 {
					listEnd = close
				}
				break
			}
		}
	}
	if listEnd < 0 {
		return nil, syntaxErr(r.sql, toks[0].pos, "syntax error in constraint")
	}
	if out[listEnd].kind == tkRaw {
		out[listEnd] = raw("("+markerPrimaryKey+", "+marker+")", out[listEnd].pos)
	} else {
		out = append(out[:listEnd:listEnd], append([]token{raw(", "+marker, out[listEnd].pos)}, out[listEnd:]...)...)
	}
	return out, nil
}

// MarkerFKAttrs, followed by an index into Statement.FKAttrs, is the
// marker column refClause appends to a constraint's column list.
const MarkerFKAttrs = "kvsql_conattrs_"

// FKAttrs is what a FOREIGN KEY, UNIQUE or PRIMARY KEY constraint says
// beyond vitess's grammar.
type FKAttrs struct {
	// Deferrable: DEFERRABLE (or INITIALLY DEFERRED, which implies it);
	// NotDeferrable: NOT DEFERRABLE written out.
	Deferrable, NotDeferrable bool
	InitiallyDeferred         bool
	// DeleteSetColumns is ON DELETE SET NULL | SET DEFAULT (cols): the
	// referencing columns the action sets (nil: all of them).
	DeleteSetColumns []string
	// NullsNotDistinct is UNIQUE NULLS NOT DISTINCT.
	NullsNotDistinct bool
	// Include is UNIQUE | PRIMARY KEY (cols) INCLUDE (cols)'s list.
	Include []string
}
