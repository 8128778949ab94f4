package fuzz

import (
	"context"
	"fmt"
	"regexp"
	"strings"
)

// The oracles. Each judges one final statement run after a script.
const (
	Differential = "differential" // kvsql's answer against PostgreSQL's
	TLP          = "tlp"          // ternary logic partitioning, kvsql alone
	NoREC        = "norec"        // non-optimizing reference engine construction, kvsql alone
	Check        = "check"        // index.Check after a write, kvsql alone
	Perf         = "perf"         // a statement 10 times slower than on PostgreSQL
)

// Oracles lists the oracles in report order.
var Oracles = []string{Differential, TLP, NoREC, Check, Perf}

// env is the pair of databases a script runs on; pg is nil without
// PostgreSQL.
type env struct {
	kv kvTarget
	pg *pgTarget
	// viewArith is set once a view with arithmetic exists: any query
	// may then overflow, or not, depending on its plan.
	viewArith bool
}

// note records what a state statement s means for later judgements.
func (e *env) note(s stmt) {
	if q := s.sql(kvsqlDialect); strings.HasPrefix(q, "CREATE VIEW") && arithmetic(q) {
		e.viewArith = true
	}
}

func (e *env) reset(ctx context.Context) error {
	e.viewArith = false
	if err := e.kv.reset(ctx); err != nil {
		return fmt.Errorf("kvsql: %w", err)
	}
	if e.pg != nil {
		return e.pg.reset(ctx)
	}
	return nil
}

// replay runs script on fresh databases, ignoring the answers.
func (e *env) replay(ctx context.Context, script []stmt) error {
	if err := e.reset(ctx); err != nil {
		return err
	}
	for _, s := range script {
		e.note(s)
		e.kv.exec(ctx, s.sql(kvsqlDialect))
		if e.pg != nil {
			e.pg.exec(ctx, s.sql(pgDialect))
		}
	}
	return nil
}

// outcome is an oracle's verdict on one statement: kind is "" when it
// holds, else what broke; the answers are for the report.
type outcome struct {
	kind, detail  string
	left, right   string // the two answers compared (kvsql/PostgreSQL, or the two kvsql queries)
	leftQ, rightQ string // the two statements, when the oracle runs two
	unsupported   string // the known-unsupported entry that excused a failure
	skipped       bool   // the oracle could not judge (an error both ways, say)
	diverged      bool   // skipped, but one database ran the statement and the other did not
	kvRes, pgRes  result
	problems      []string
}

var literals = regexp.MustCompile(`[0-9]+|"[^"]*"|'[^']*'`)

// signature identifies a failure's kind for deduplication and for the
// reducer, which keeps a change only when the failure stays the same: a
// wrong answer is one kind, an error is its message without its
// literals.
func (o outcome) signature() string {
	switch o.kind {
	case "rows", "command tag", "inconsistent", "slow":
		return o.kind
	}
	return o.kind + "/" + literals.ReplaceAllString(o.detail, "#")
}

// crashed reports a kvsql answer that is a crash whatever the oracle: an
// internal error, a dropped connection or no answer in time.
func crashed(r result) (string, bool) {
	switch r.code {
	case "XX000", "lost":
		return "crash", true
	case "timeout":
		return "timeout", true
	}
	return "", false
}

// probe judges s, run on the current databases, by oracle.
func (e *env) probe(ctx context.Context, oracle string, s stmt) outcome {
	switch oracle {
	case TLP:
		ts := s.(tlpStmt)
		whole, parts := ts.queries()
		o := e.compareKV(ctx, whole, parts, func(a, b result) string { return sameRows(a, b, false) })
		if o.kind == "one form failed" {
			// Only the partitions hold the predicate: an error in it
			// alone is for the differential oracle to judge.
			o.kind, o.skipped = "", true
		}
		return o
	case NoREC:
		ns := s.(norecStmt)
		opt, unopt := ns.queries()
		return e.compareKV(ctx, opt, unopt, func(a, b result) string {
			if len(a.rows) != 1 || len(b.rows) != 1 || len(a.rows[0]) != 1 || len(b.rows[0]) != 1 {
				return fmt.Sprintf("%d rows vs %d", len(a.rows), len(b.rows))
			}
			x, y := "0", "0"
			if v := a.rows[0][0]; v != nil {
				x = *v
			}
			if v := b.rows[0][0]; v != nil {
				y = *v
			}
			if x != y {
				return fmt.Sprintf("count %s vs sum %s", x, y)
			}
			return ""
		})
	case Check:
		k := e.kv.exec(ctx, s.sql(kvsqlDialect))
		o := outcome{kvRes: k, left: formatResult(k)}
		if kind, ok := crashed(k); ok {
			o.kind, o.detail = kind, k.msg
			return o
		}
		probs, err := e.kv.check()
		if err != nil {
			o.kind, o.detail = "check failed to read", err.Error()
			return o
		}
		if len(probs) > 0 {
			o.kind = "inconsistent"
			for _, p := range probs {
				o.problems = append(o.problems, p.String())
			}
			o.detail = fmt.Sprintf("%d problem(s): %s", len(probs), probs[0])
			o.right = strings.Join(o.problems, "\n")
		}
		return o
	}
	ordered := false
	if q, ok := s.(queryStmt); ok {
		ordered = q.q.ordered()
	}
	k := e.kv.exec(ctx, s.sql(kvsqlDialect))
	o := outcome{kvRes: k, left: formatResult(k)}
	if kind, ok := crashed(k); ok {
		o.kind, o.detail = kind, k.msg
		return o
	}
	if e.pg == nil {
		o.skipped = true
		return o
	}
	p := e.pg.exec(ctx, s.sql(pgDialect))
	o.pgRes, o.right = p, formatResult(p)
	o.kind, o.detail = diff(k, p, ordered)
	if o.kind != "" && k.failed() != p.failed() && class(k.code+p.code) == "22" && (e.viewArith || arithmetic(s.sql(kvsqlDialect))) {
		// Whether an overflow is raised depends on which rows reach the
		// arithmetic (in the statement or in a view it reads) and on
		// constant folding, which differ between plans: not a wrong
		// answer. After a write, though, the databases differ.
		o.kind, o.skipped, o.diverged = "", true, true
	}
	if o.kind != "" && k.failed() {
		if u := unsupported(k); u != "" {
			o.kind, o.unsupported = "", u
		}
	}
	return o
}

// arithmetic reports whether sql has an operator that can overflow.
func arithmetic(sql string) bool {
	for _, op := range []string{" + ", " - ", " * ", " / ", " % ", "abs("} {
		if strings.Contains(sql, op) {
			return true
		}
	}
	return false
}

// compareKV runs two statements on kvsql that must agree by same.
func (e *env) compareKV(ctx context.Context, a, b string, same func(a, b result) string) outcome {
	ra := e.kv.exec(ctx, a)
	o := outcome{leftQ: a, rightQ: b, left: formatResult(ra), kvRes: ra}
	if kind, ok := crashed(ra); ok {
		o.kind, o.detail = kind, ra.msg
		return o
	}
	rb := e.kv.exec(ctx, b)
	o.right = formatResult(rb)
	if kind, ok := crashed(rb); ok {
		o.kind, o.detail = kind, rb.msg
		return o
	}
	if ra.failed() || rb.failed() {
		// An error is no answer to compare; one query failing where the
		// other ran is worth a look only when it is not a data error
		// (an overflow may hit rows the other form never evaluates).
		if ra.failed() != rb.failed() && class(ra.code+rb.code) != "22" {
			o.kind, o.detail = "one form failed", fmt.Sprintf("%s%s", ra.msg, rb.msg)
			if u := unsupported(ra); u != "" {
				o.kind, o.unsupported = "", u
			} else if u := unsupported(rb); u != "" {
				o.kind, o.unsupported = "", u
			}
			return o
		}
		o.skipped = true
		return o
	}
	if d := same(ra, rb); d != "" {
		o.kind, o.detail = "rows", d
	}
	return o
}
