package planner

import (
	"strings"

	"github.com/kvsql/kvsql/pgerror"
	"vitess.io/vitess/go/vt/sqlparser"
)

// SELECT ... FOR UPDATE / FOR SHARE: which tables' rows a query locks,
// and how (LockRows).

// setOpLockError is PostgreSQL's error for FOR UPDATE / FOR SHARE on a
// set operation or one of its operands.
func setOpLockError(l sqlparser.Lock) error {
	return pgerror.Newf(pgerror.FeatureNotSupported, "%s is not allowed with UNION/INTERSECT/EXCEPT", strings.ToUpper(rowLock(l).String()))
}

// lockTarget is a table whose rows a SELECT ... FOR UPDATE / FOR SHARE
// locks: its relation, and the position of its columns in the FROM
// layout.
type lockTarget struct {
	rel    *relation
	offset int
}

// lockTargets checks that a SELECT ... FOR UPDATE / FOR SHARE reads rows
// it can lock, as PostgreSQL requires, and returns the tables whose rows
// it locks: those OF names (b.lockOf), or every table of its FROM
// clause. kvsql locks the rows of base tables; a derived table, view or
// function in FROM is refused when it would be locked.
func (b *binder) lockTargets(sel *sqlparser.Select, from *fromResult, grouped bool) ([]lockTarget, error) {
	clause := strings.ToUpper(rowLock(sel.Lock).String())
	switch {
	case grouped:
		return nil, pgerror.Newf(pgerror.FeatureNotSupported, "%s is not allowed with GROUP BY clause or aggregate functions", clause)
	case sel.Distinct:
		return nil, pgerror.Newf(pgerror.FeatureNotSupported, "%s is not allowed with DISTINCT clause", clause)
	}
	type candidate struct {
		lockTarget
		nullable bool
	}
	var all []candidate
	var walk func(f *fromResult, base int, nullable bool)
	walk = func(f *fromResult, base int, nullable bool) {
		for _, r := range f.rels {
			if o := r.outer; o != nil {
				lbase, rbase := base+r.offset, base+r.offset+len(o.lf.cols)
				if o.right {
					rbase, lbase = base+r.offset, base+r.offset+len(o.rf.cols)
				}
				walk(o.lf, lbase, nullable || o.full)
				walk(o.rf, rbase, true)
				continue
			}
			all = append(all, candidate{lockTarget{rel: r, offset: base + r.offset}, nullable})
		}
	}
	walk(from, 0, false)
	check := func(c candidate) error {
		if c.nullable {
			return pgerror.Newf(pgerror.FeatureNotSupported, "%s cannot be applied to the nullable side of an outer join", clause)
		}
		if c.rel.table == nil {
			return pgerror.Newf(pgerror.FeatureNotSupported, "%s is supported on tables only, not on a derived table, view, function or partitioned table in FROM", clause)
		}
		return nil
	}
	var out []lockTarget
	if b.lockOf == nil {
		for _, c := range all {
			if err := check(c); err != nil {
				return nil, err
			}
			out = append(out, c.lockTarget)
		}
		return out, nil
	}
	for _, name := range b.lockOf {
		found := false
		for _, c := range all {
			r := c.rel
			if r.alias == name || r.alias == "" && r.table != nil && r.table.Name == name {
				if err := check(c); err != nil {
					return nil, err
				}
				out = append(out, c.lockTarget)
				found = true
				break
			}
		}
		if !found {
			return nil, pgerror.Newf(pgerror.UndefinedTable, "relation %q in %s clause not found in FROM clause", name, clause)
		}
	}
	return out, nil
}

// rowLock translates vitess's locking clause. PostgreSQL's FOR NO KEY
// UPDATE and FOR KEY SHARE arrive as FOR UPDATE and FOR SHARE (the dialect
// layer maps them): kvsql has no weaker lock modes.
func rowLock(l sqlparser.Lock) RowLock {
	switch l {
	case sqlparser.ForShareLock, sqlparser.ShareModeLock:
		return RowLock{Shared: true}
	case sqlparser.ForShareLockNoWait:
		return RowLock{Shared: true, Wait: LockNoWait}
	case sqlparser.ForShareLockSkipLocked:
		return RowLock{Shared: true, Wait: LockSkip}
	case sqlparser.ForUpdateLockNoWait:
		return RowLock{Wait: LockNoWait}
	case sqlparser.ForUpdateLockSkipLocked:
		return RowLock{Wait: LockSkip}
	}
	return RowLock{}
}
