package parse

import (
	"errors"
	"regexp"
	"strconv"
	"sync"

	"github.com/kvsql/kvsql/pgerror"
	"vitess.io/vitess/go/vt/sqlparser"
)

// Statement is one parsed SQL statement. Exactly one of AST, Compound, Set,
// Show, Copy, DropIndex, Analyze and Database describes it, except that
// AST is also set for EXPLAIN (with Explained holding the inner statement)
// and Returning accompanies an INSERT/UPDATE/DELETE AST. Empty is set, and
// nothing else, for a text without any statement (see ParseOne).
type Statement struct {
	SQL       string                 // the original text of this one statement
	AST       sqlparser.Statement    // the vitess tree; nil when a field below carries the statement
	Returning []sqlparser.SelectExpr // INSERT/UPDATE/DELETE ... RETURNING list; AST holds the statement without it
	Compound  *Compound              // a top-level INTERSECT / EXCEPT (and UNION mixed with them)
	// Notices are NOTICEs the text raised while it was read (42622 for an
	// identifier truncated to 63 bytes), to be sent before it runs. Parse
	// puts those of the whole text on its first statement.
	Notices []*pgerror.Error

	// IndexMethod is CREATE INDEX ... USING method in lower case: "" when
	// absent, else as written ("btree" is the default method; "keyid" and
	// "inverted" choose kvsql's non-unique index forms; others are left for
	// the planner to reject).
	IndexMethod string
	// IfNotExists is set for CREATE INDEX IF NOT EXISTS (vitess's CREATE
	// INDEX tree has no such flag).
	IfNotExists bool
	// Temp is set for CREATE TEMP VIEW (vitess has no temporary views; the
	// AST is a plain CREATE VIEW). CREATE TEMP TABLE is vitess's own
	// CreateTable.Temp.
	Temp bool
	// Isolation is the isolation level named by BEGIN / START TRANSACTION
	// ("serializable", "repeatable read", "read committed", "read
	// uncommitted"), or "".
	Isolation string
	// IdentityAlways names the columns of a CREATE TABLE declared
	// GENERATED ALWAYS AS IDENTITY (the type becomes a serial type; BY
	// DEFAULT identity columns are plain serial columns).
	IdentityAlways []string
	// Overriding is "system" or "user" for INSERT ... OVERRIDING SYSTEM
	// VALUE / OVERRIDING USER VALUE, else "".
	Overriding string
	// OnConflict is INSERT's ON CONFLICT clause (the AST is the INSERT
	// without it), or nil.
	OnConflict *OnConflictClause
	// Cascade is DROP TABLE ... CASCADE.
	Cascade bool
	// Checks are CREATE TABLE's CHECK constraints, column and table
	// level, taken out of the text vitess parses.
	Checks []CheckDef
	// TargetAlias is the alias of INSERT INTO t AS alias and of DELETE
	// FROM t [AS] alias USING ... (vitess has no grammar for them; the
	// AST names the table alone), or "".
	TargetAlias string
	// Explained is the statement under EXPLAIN; AST is then a
	// *sqlparser.ExplainStmt whose Statement is Explained.AST (nil when the
	// inner statement has no vitess tree, e.g. a Compound).
	Explained *Statement

	Set        *SetStmt
	Show       *ShowStmt
	Copy       *CopyStmt
	DropIndex  *DropIndexStmt
	Analyze    *AnalyzeStmt
	Reindex    *ReindexStmt
	Vacuum     *VacuumStmt
	Truncate   *TruncateStmt
	Cursor     *CursorStmt
	Prepare    *PrepareStmt
	Execute    *ExecuteStmt
	Deallocate *DeallocateStmt
	Trigger    *TriggerStmt
	Database   *DatabaseStmt
	Sequence   *SequenceStmt
	// AlterColumn is ALTER TABLE ... ALTER COLUMN ... SET/DROP NOT NULL
	// or TYPE.
	AlterColumn *AlterColumnStmt
	Comment     *CommentStmt
	MatView     *MatViewStmt

	NumParams int  // highest $n used, or the number of ? placeholders
	Empty     bool // no statement at all (ParseOne of "" or ";")

	from, to int // byte span of SQL in the whole text (set for Compound operands)
}

// Compound is a set operation. Left and Right are each a SELECT (a
// Statement with a *sqlparser.Select, *sqlparser.Union or
// *sqlparser.ValuesStatement AST) or a nested Compound. OrderBy and Limit
// apply to the result of the whole operation (nil when absent).
type Compound struct {
	Op          string // "UNION", "INTERSECT" or "EXCEPT"
	All         bool
	Left, Right *Statement
	OrderBy     sqlparser.OrderBy
	Limit       *sqlparser.Limit
}

// SetStmt is SET name {TO|=} value[, ...], SET [SESSION|LOCAL] ..., SET
// TIME ZONE value (Name "timezone"), SET NAMES value (Name
// "client_encoding"), or RESET name / RESET ALL (Reset, Name "all").
type SetStmt struct {
	Name  string   // lower-cased, dotted if qualified
	Value []string // raw values: strings decoded, unquoted words lower-cased, DEFAULT as "default"
	Local bool
	Reset bool
}

// ShowStmt is SHOW name / SHOW ALL (Name "all"). SHOW TIME ZONE has Name
// "timezone" and SHOW TRANSACTION ISOLATION LEVEL "transaction_isolation".
type ShowStmt struct{ Name string }

// CopyStmt is COPY table [(cols)] FROM STDIN / TO STDOUT [options], or COPY
// (query) TO STDOUT.
type CopyStmt struct {
	Schema    string // qualifier of Table, or ""
	Table     string // "" when Query is set
	Columns   []string
	From      bool   // FROM STDIN (else TO STDOUT)
	Format    string // "text", "csv" or "binary"
	Delimiter string // "" means the format's default
	Null      string // the NULL string; NullSet tells whether it was given
	NullSet   bool
	Header    bool
	Quote     string // CSV QUOTE, "" for the default
	Escape    string // CSV ESCAPE, "" for the default
	Query     *Statement
}

// DropIndexStmt is PostgreSQL's DROP INDEX [IF EXISTS] name[, ...].
type DropIndexStmt struct {
	Names    []string
	IfExists bool
	Cascade  bool
}

// AnalyzeStmt is ANALYZE [VERBOSE] [table[, ...]] (no tables: all).
type AnalyzeStmt struct{ Tables []string }

// TruncateStmt is TRUNCATE [TABLE] [ONLY] name [*] [, ...]
// [RESTART IDENTITY | CONTINUE IDENTITY] [CASCADE | RESTRICT].
type TruncateStmt struct {
	Tables          []string
	RestartIdentity bool
}

// VacuumStmt is VACUUM [FULL] [FREEZE] [VERBOSE] [ANALYZE] [table, ...]
// (or with a parenthesised option list): kvsql compacts the tables' key
// ranges, and with ANALYZE refreshes their statistics.
type VacuumStmt struct {
	Tables  []string
	Analyze bool
}

// ReindexStmt is REINDEX [INDEX | TABLE] name: Kind is "index", "table",
// or "" when the name may be either (SQLite's form).
type ReindexStmt struct {
	Kind string
	Name string
}

// DatabaseStmt is CREATE DATABASE name or DROP DATABASE [IF EXISTS] name.
type DatabaseStmt struct {
	Create                bool
	Name                  string
	IfExists, IfNotExists bool
}

var (
	parserOnce sync.Once
	vtParser   *sqlparser.Parser
	vtPosRE    = regexp.MustCompile(`at position (\d+)`)
)

// vitess returns the shared vitess parser.
func vitess() *sqlparser.Parser {
	parserOnce.Do(func() {
		p, err := sqlparser.New(sqlparser.Options{MySQLServerVersion: "8.0.30", TruncateErrLen: 200})
		if err != nil {
			panic("parse: vitess parser: " + err.Error()) // broken invariant: fixed options
		}
		vtParser = p
	})
	return vtParser
}

// Parse splits sql into statements at semicolons outside strings, quoted
// identifiers, comments and dollar quotes, drops empty statements, and
// parses each one. Errors are *pgerror.Error with code 42601 (syntax) or
// 0A000 (a construct kvsql does not support) and a Position into sql.
func Parse(sql string) ([]Statement, error) {
	toks, err := lex(sql)
	if err != nil {
		return nil, err
	}
	if err := checkNesting(toks); err != nil {
		return nil, err
	}
	notices := identNotices(sql, toks)
	var stmts []Statement
	start := 0
	for k := 0; k <= len(toks); k++ {
		if k < len(toks) && !toks[k].isPunct(";") {
			continue
		}
		if k < len(toks) && inTriggerBody(toks[start:k]) {
			continue // a ; inside CREATE TRIGGER ... BEGIN ... END
		}
		if k > start {
			st, err := parseTokens(sql, toks[start:k])
			if err != nil {
				return nil, err
			}
			stmts = append(stmts, st)
		}
		start = k + 1
	}
	if len(notices) > 0 && len(stmts) > 0 {
		// PostgreSQL's scanner reports them while it reads the whole
		// text, before the first statement runs.
		stmts[0].Notices = notices
	}
	return stmts, nil
}

// ParseOne parses a text holding at most one statement. A text without any
// statement (empty, only comments or semicolons) yields
// Statement{Empty: true} and no error, as PostgreSQL answers such a query
// with EmptyQueryResponse; more than one statement is a 42601 error.
func ParseOne(sql string) (Statement, error) {
	stmts, err := Parse(sql)
	if err != nil {
		return Statement{}, err
	}
	switch len(stmts) {
	case 0:
		return Statement{SQL: sql, Empty: true}, nil
	case 1:
		return stmts[0], nil
	}
	return Statement{}, pgerror.New(pgerror.SyntaxError, "cannot insert multiple commands into a prepared statement")
}

// parseTokens parses the tokens of one statement.
func parseTokens(sql string, toks []token) (Statement, error) {
	if alt, ok := emulated(sql[toks[0].pos:toks[len(toks)-1].end]); ok { // pgcompat.go
		st, err := ParseOne(alt)
		st.SQL = sql[toks[0].pos:toks[len(toks)-1].end]
		return st, err
	}
	r := &rewriter{sql: sql}
	st, err := r.statement(toks)
	if err != nil {
		return Statement{}, err
	}
	st.SQL = sql[toks[0].pos:toks[len(toks)-1].end]
	st.IdentityAlways, st.Overriding, st.Checks = r.identityAlways, r.overriding, r.checks
	return st, nil
}

// vitessParse rewrites toks into vitess text, parses it strictly and
// applies the fix-ups. It is the path every statement vitess has grammar
// for goes through.
func (r *rewriter) vitessParse(toks []token) (sqlparser.Statement, error) {
	toks = expandArray(toks) // expandarray.go
	toks, err := r.clauses(toks)
	if err != nil {
		return nil, err
	}
	toks = valuesRows(toks)
	if toks, err = r.arrayAssignments(toks); err != nil {
		return nil, err
	}
	toks = seriesInFrom(toks)
	toks = notOperands(toks)
	toks = fullJoins(toks)
	toks = groupingSets(toks)
	toks, err = r.exprs(toks)
	if err != nil {
		return nil, err
	}
	text, err := r.emit(toks)
	if err != nil {
		return nil, err
	}
	ast, err := vitess().ParseStrictDDL(text)
	if err != nil {
		return nil, r.vitessError(err, toks)
	}
	if r.maxParam > 0 && r.qmarks > 0 {
		return nil, syntaxErr(r.sql, toks[0].pos, "cannot mix $n and ? parameters")
	}
	return r.fixup(ast).(sqlparser.Statement), nil
}

// vitessError converts a vitess parse error into a positioned 42601.
func (r *rewriter) vitessError(err error, toks []token) error {
	msg := err.Error()
	pos := -1
	if m := vtPosRE.FindStringSubmatch(msg); m != nil {
		if n, aerr := strconv.Atoi(m[1]); aerr == nil {
			pos = r.origPos(max(n-1, 0))
		}
	}
	if pos < 0 && len(toks) > 0 {
		pos = toks[0].pos
	}
	word := ""
	for _, t := range toks {
		if t.pos == pos && t.kind != tkRaw {
			word = tokText(r.sql, t)
			break
		}
	}
	var e *pgerror.Error
	if word != "" {
		e = syntaxErr(r.sql, pos, "syntax error at or near %q", word)
	} else {
		e = syntaxErr(r.sql, pos, "syntax error")
	}
	e.Detail = msg
	return e
}

// errIs reports whether err is a *pgerror.Error; a guard for the fuzz
// target and tests.
func errIs(err error) bool {
	var pe *pgerror.Error
	return errors.As(err, &pe)
}

// inTriggerBody reports whether toks, the tokens of a statement so far,
// are a CREATE TRIGGER whose BEGIN ... END body has not ended: a ; there
// belongs to the body.
func inTriggerBody(toks []token) bool {
	i := 0
	if i < len(toks) && toks[i].is("create") {
		i++
	} else {
		return false
	}
	if i < len(toks) && (toks[i].is("temp") || toks[i].is("temporary")) {
		i++
	}
	if i >= len(toks) || !toks[i].is("trigger") {
		return false
	}
	// Count BEGIN ... END around the body and CASE ... END inside it:
	// the body is open until the END that closes its BEGIN.
	depth := -1
	for _, t := range toks[i:] {
		switch {
		case depth < 0:
			if t.is("begin") {
				depth = 1
			}
		case t.is("case"):
			depth++
		case t.is("end"):
			depth--
		}
	}
	return depth > 0
}

// MaxNesting bounds how deeply parentheses (subqueries, expressions) may
// nest in one text. Every later stage — vitess's parser, the binder, the
// planner's rewrites, evaluation — recurses over the tree, and a 200 KB
// query nested 12,000 deep drove the process out of memory; PostgreSQL
// stops such a query with 54001 too (its max_stack_depth).
const MaxNesting = 1000

// MaxSetOperations bounds the UNION, INTERSECT and EXCEPT operators of one
// statement. The parser and binder build and walk a chain of them as a
// left-deep tree, one level per operator, so a chain is a nesting too:
// PostgreSQL 15 recurses over it and, at its default max_stack_depth
// (2MB), refuses a chain of more than about 7,270 operators with 54001,
// whatever the branches hold (measured with SELECT n, parenthesised
// branches and branches reading a table). kvsql refuses the same chains,
// in one pass over the tokens; 100,000 branches took over 60 s to answer
// before.
const MaxSetOperations = 7270

// checkNesting refuses a text whose parentheses nest deeper than
// MaxNesting, or a statement with more than MaxSetOperations set
// operators, before anything recurses over it.
func checkNesting(toks []token) error {
	depth, setOps := 0, 0
	for _, t := range toks {
		switch {
		case t.isPunct(";"):
			setOps = 0
		case t.is("union") || t.is("intersect") || t.is("except"):
			if setOps++; setOps > MaxSetOperations {
				e := pgerror.New(pgerror.StatementTooComplex, "stack depth limit exceeded")
				e.Hint = "The statement chains more than 7270 UNION, INTERSECT or EXCEPT operations."
				return e
			}
		case t.isPunct("("):
			if depth++; depth > MaxNesting {
				e := pgerror.New(pgerror.StatementTooComplex, "stack depth limit exceeded")
				e.Hint = "The query nests parentheses or subqueries more than 1000 levels deep."
				e.Position = t.pos + 1
				return e
			}
		case t.isPunct(")"):
			depth--
		}
	}
	return nil
}
