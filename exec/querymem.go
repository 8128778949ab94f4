package exec

import (
	"fmt"
	"math"

	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// DefaultMaxQueryMem is the per-statement memory limit used when
// Ctx.MaxQueryMem is zero or negative.
const DefaultMaxQueryMem = 1 << 30

// queryMem is the memory account of one statement. Every operator that
// holds rows charges it through its memAccount: sort, hash aggregation,
// hash join, DISTINCT, row buffers, INTERSECT/EXCEPT, TopN, window
// partitions, subquery results and memo tables. Operators that can spill
// treat a full account like a full work_mem and spill; the others fail the
// statement with PostgreSQL's 53200 "out of memory", and the statement's
// end frees everything. So one runaway query cannot take the memory that
// other sessions need.
//
// One queryMem serves one execution, which runs on one goroutine.
type queryMem struct {
	used, peak, limit int64
}

// charge records n more bytes, or fails with 53200 when they would take
// the statement past its limit. A nil account charges nothing.
func (q *queryMem) charge(n int64) error {
	if q == nil {
		return nil
	}
	if n > 0 && q.used+n > q.limit {
		e := pgerror.New(pgerror.OutOfMemory, "out of memory")
		e.Detail = fmt.Sprintf("Failed on request of size %d in memory context \"ExecutorState\".", n)
		return e
	}
	q.used += n
	q.peak = max(q.peak, q.used)
	return nil
}

// release returns n bytes charged earlier.
func (q *queryMem) release(n int64) {
	if q != nil {
		q.used -= n
	}
}

// room reports whether n more bytes fit.
func (q *queryMem) room(n int64) bool { return q == nil || q.used+n <= q.limit }

// CheckRowSize fails with PostgreSQL's 54000 "row is too big" when the
// values of row hold more than limit bytes (<= 0: eval.DefaultMaxValueSize).
// Rows written to tables and rows sent to clients are checked, so a row
// of several values each under the value cap is still bounded.
func CheckRowSize(row []types.Datum, limit int64) error {
	if limit <= 0 {
		limit = eval.DefaultMaxValueSize
	}
	var n int64
	for i := range row {
		n += int64(len(row[i].S))
	}
	if n > limit {
		return pgerror.Newf(pgerror.ProgramLimitExceeded, "row is too big: size %d, maximum size %d", n, limit)
	}
	return nil
}

// memAccount tracks the bytes one operator holds against its budget
// (work_mem for operators that spill) and charges them to the statement's
// queryMem as well.
type memAccount struct {
	used, limit int64
	q           *queryMem
}

// memAccount returns an account with the given budget that charges the
// statement's.
func (rs *runState) memAccount(limit int64) memAccount {
	return memAccount{limit: limit, q: rs.qmem}
}

// heldAccount is the account of an operator that cannot spill: only the
// statement's limit bounds it.
func (rs *runState) heldAccount() memAccount {
	return memAccount{limit: math.MaxInt64, q: rs.qmem}
}

// fits reports whether n more bytes stay within the budget and within the
// statement's limit: a spilling operator spills when either is full.
func (m *memAccount) fits(n int64) bool { return m.used+n <= m.limit && m.q.room(n) }

// grow records n more bytes held; its error (53200) fails the statement.
func (m *memAccount) grow(n int64) error {
	if err := m.q.charge(n); err != nil {
		return err
	}
	m.used += n
	return nil
}

// reset releases everything the account holds (after spilling, and on
// Close).
func (m *memAccount) reset() {
	m.q.release(m.used)
	m.used = 0
}
