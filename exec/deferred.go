package exec

import (
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// Deferred holds a transaction's deferred constraint checks: the timing
// SET CONSTRAINTS chose, and the foreign-key checks the transaction's
// statements put off. exec/fk.go decides, per check, whether to run it
// now or add it here (defers); the session runs what is pending at
// COMMIT (Check), and SET CONSTRAINTS ... IMMEDIATE runs the checks of
// the constraints it makes immediate (CheckImmediate). A pending check
// is kept as the key it is about, not as a row: when it runs it looks at
// the rows as they are then, so a referencing row deleted since, or a
// referenced key inserted since, satisfies it, as PostgreSQL's deferred
// triggers skip rows that are gone.
//
// A Deferred belongs to one transaction; it is not safe for concurrent
// use (a session runs one statement at a time).
type Deferred struct {
	// all is SET CONSTRAINTS ALL's mode: 1 deferred, -1 immediate, 0
	// not set (each constraint's INITIALLY decides).
	all int8
	// named are the modes SET CONSTRAINTS name set since, by name:
	// true deferred.
	named   map[string]bool
	pending []pendingCheck
	// stmt holds the NO ACTION checks of the statements running now
	// (BeginStatement), run when each ends (exec/fk.go); depth counts
	// those statements (a routine's statement runs inside its caller's).
	stmt  []stmtCheck
	depth int
}

// stmtCheck is a check waiting for its statement's end: pendingCheck
// with the plan's foreign key, which outlives the statement, by pointer.
type stmtCheck struct {
	fk    *planner.FKRef
	vals  []types.Datum
	child bool
}

// pendingCheck is one deferred foreign-key check: child, a referencing
// key vals that must exist in fk's referenced table; otherwise a
// referenced key vals (deleted or changed, NO ACTION) that no
// referencing row may still hold.
type pendingCheck struct {
	fk    planner.FKRef
	vals  []types.Datum
	child bool
}

// defers reports whether the constraint name, with its DEFERRABLE and
// INITIALLY DEFERRED attributes, is deferred now.
func (d *Deferred) defers(name string, deferrable, initially bool) bool {
	if d == nil || !deferrable {
		return false
	}
	if v, ok := d.named[name]; ok {
		return v
	}
	if d.all != 0 {
		return d.all > 0
	}
	return initially
}

func (d *Deferred) add(p pendingCheck) { d.pending = append(d.pending, p) }

// SetAll is SET CONSTRAINTS ALL {DEFERRED | IMMEDIATE}: it overrides
// every mode set before.
func (d *Deferred) SetAll(deferred bool) {
	d.named = nil
	d.all = -1
	if deferred {
		d.all = 1
	}
}

// SetNamed is SET CONSTRAINTS name {DEFERRED | IMMEDIATE} for one
// (deferrable) constraint.
func (d *Deferred) SetNamed(name string, deferred bool) {
	if d.named == nil {
		d.named = map[string]bool{}
	}
	d.named[name] = deferred
}

// Mark returns how many checks are pending, for a savepoint to restore
// with Rewind.
func (d *Deferred) Mark() int { return len(d.pending) }

// Rewind forgets the checks added after mark (ROLLBACK TO SAVEPOINT
// undoes the writes that added them).
func (d *Deferred) Rewind(mark int) {
	if mark >= 0 && mark <= len(d.pending) {
		d.pending = d.pending[:mark]
	}
}

// Pending reports whether any check waits.
func (d *Deferred) Pending() bool { return d != nil && len(d.pending) > 0 }

// Check runs every pending check through rw (COMMIT): the first that
// fails is the error.
func (d *Deferred) Check(rw kv.ReadWriter) error {
	return d.run(rw, func(pendingCheck) bool { return true })
}

// CheckImmediate runs the pending checks of the constraints that are no
// longer deferred (after SET CONSTRAINTS ... IMMEDIATE), keeping the
// others.
func (d *Deferred) CheckImmediate(rw kv.ReadWriter) error {
	return d.run(rw, func(p pendingCheck) bool {
		return !d.defers(p.fk.Name, p.fk.Deferrable, p.fk.InitiallyDeferred)
	})
}

func (d *Deferred) run(rw kv.ReadWriter, due func(pendingCheck) bool) error {
	if d == nil {
		return nil
	}
	var keep []pendingCheck
	for i, p := range d.pending {
		if !due(p) {
			keep = append(keep, p)
			continue
		}
		if err := recheck(rw, &p.fk, p.vals, p.child); err != nil {
			d.pending = append(keep, d.pending[i:]...)
			return err
		}
	}
	d.pending = keep
	return nil
}

// BeginStatement opens a statement's scope: the NO ACTION foreign-key
// checks of its writes wait for EndStatement. It returns the mark to end
// it with.
func (d *Deferred) BeginStatement() int {
	d.depth++
	return len(d.stmt)
}

// EndStatement closes the scope BeginStatement opened at mark: when the
// statement succeeded (ok), it runs the checks the statement queued
// against the rows as they are now (through rw) and returns the first
// failure; otherwise it drops them.
func (d *Deferred) EndStatement(rw kv.ReadWriter, mark int, ok bool) error {
	d.depth--
	var err error
	for i := mark; ok && i < len(d.stmt); i++ {
		c := d.stmt[i]
		if err = recheck(rw, c.fk, c.vals, c.child); err != nil {
			break
		}
	}
	clear(d.stmt[mark:])
	d.stmt = d.stmt[:mark]
	return err
}

// queue adds a check for the running statement's end and reports true,
// or false outside a statement scope (the caller checks at once).
func (d *Deferred) queue(fk *planner.FKRef, vals []types.Datum, child bool) bool {
	if d == nil || d.depth == 0 {
		return false
	}
	d.stmt = append(d.stmt, stmtCheck{fk: fk, vals: vals, child: child})
	return true
}
