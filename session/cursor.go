package session

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/exec"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
	"github.com/kvsql/kvsql/wire/backend"
)

// A cursor (DECLARE ... CURSOR FOR query) keeps its query's operator open
// in the transaction and the rows fetched so far, so FETCH and MOVE can go
// forwards and back. Its position is 0 before the first row, k on row k,
// and one past the last row after it. A cursor lives until CLOSE or the
// end of its transaction; WITH HOLD cursors are read whole at DECLARE and
// outlive it.
type cursorState struct {
	cols []backend.Column
	op   exec.Operator // nil once exhausted
	rows [][]types.Datum
	pos  int64
	hold bool
	// size is the memory rows hold; past limit (the session's per-query
	// memory limit at DECLARE) reading more fails with 53200. A cursor
	// without SCROLL that holds more than keep (work_mem) forgets the
	// rows before its position (base counts them), so a client fetching
	// a huge result in pieces (psql's FETCH_COUNT) holds about one piece.
	size, limit, keep int64
	scroll            bool
	base              int64
	// noScroll is DECLARE ... NO SCROLL: every move backwards fails.
	noScroll bool
	// failed is set when reading the query failed: the cursor is dead
	// (PostgreSQL's failed portal) until it is closed.
	failed bool
	// declaredIn is the transaction that declared the cursor until that
	// transaction commits: its rollback closes the cursor, held or not.
	// level is how many savepoints it had then: rolling back to one of
	// them closes the cursor too.
	declaredIn *txn
	level      int
	// For pg_cursors: the text of the statement that declared it, its
	// options and when.
	statement  string
	binary     bool
	scrollable bool
	created    time.Time
	// table is the table the query simply scans (0: none), whose primary
	// key each row carries in its columns key, for WHERE CURRENT OF.
	table uint64
	key   []int
}

// errScanForward is PostgreSQL's error for moving a cursor without
// SCROLL back to rows it no longer has.
func errScanForward() error {
	e := pgerror.New(pgerror.ObjectNotInPrerequisiteState, "cursor can only scan forward")
	e.Hint = "Declare it with SCROLL option to enable backward scan."
	return e
}

// end is the number of rows read so far.
func (c *cursorState) end() int64 { return c.base + int64(len(c.rows)) }

// forget drops the rows before the cursor's position (keeping the
// current one, which FETCH RELATIVE 0 returns).
func (c *cursorState) forget() {
	n := c.pos - 1 - c.base
	if n <= 0 {
		return
	}
	for _, r := range c.rows[:n] {
		c.size -= rowBytes(r)
	}
	c.rows = append([][]types.Datum(nil), c.rows[n:]...)
	c.base += n
}

// row returns row k (1-based), reading the query as far as needed; nil
// when the query has fewer rows.
func (c *cursorState) row(k int64) ([]types.Datum, error) {
	if k >= 1 && k <= c.base {
		return nil, errScanForward()
	}
	for c.end() < k && c.op != nil {
		r, err := c.op.Next()
		if err != nil {
			return nil, err
		}
		if r == nil {
			err := c.op.Close()
			c.op = nil
			if err != nil {
				return nil, err
			}
			break
		}
		sz := rowBytes(r)
		if c.size+sz > c.keep && !c.scroll {
			c.forget()
		}
		if c.size+sz > c.limit {
			return nil, outOfMemory(sz)
		}
		c.size += sz
		c.rows = append(c.rows, append([]types.Datum(nil), r...))
	}
	if k < 1 || k > c.end() {
		return nil, nil
	}
	return c.rows[k-1-c.base], nil
}

// total reads every row and returns how many there are.
func (c *cursorState) total() (int64, error) {
	for c.op != nil {
		if _, err := c.row(c.end() + 1); err != nil {
			return 0, err
		}
	}
	return c.end(), nil
}

func (c *cursorState) close() {
	if c.op != nil {
		_ = c.op.Close()
		c.op = nil
	}
}

// closeCursors ends the cursors of finished, a transaction that
// committed (all but the held ones) or rolled back (aborted: also the
// held ones it declared).
func (s *Session) closeCursors(finished *txn, aborted bool) {
	for name, c := range s.cursors {
		if !c.hold || aborted && c.declaredIn == finished {
			c.close()
			delete(s.cursors, name)
			continue
		}
		if c.declaredIn == finished {
			c.declaredIn = nil
		}
	}
}

// closeCursorsAfter ends the cursors declared after savepoint i of the
// open transaction (ROLLBACK TO that savepoint).
func (s *Session) closeCursorsAfter(i int) {
	for name, c := range s.cursors {
		if c.declaredIn == s.cur && c.level > i {
			c.close()
			delete(s.cursors, name)
		}
	}
}

// cursorColumns are the columns a FETCH of the named cursor returns.
func (s *Session) cursorColumns(cs *parse.CursorStmt) []backend.Column {
	if cs.Op != "fetch" {
		return nil
	}
	if c, ok := s.cursors[cs.Name]; ok {
		return c.cols
	}
	return nil
}

func (s *Session) cursorStmt(ctx context.Context, cs *parse.CursorStmt, sql string, params []types.Datum) (backend.Result, error) {
	switch cs.Op {
	case "declare":
		return s.declare(ctx, cs, sql, params)
	case "close":
		if cs.Name == "" {
			for name, c := range s.cursors {
				c.close()
				delete(s.cursors, name)
			}
			return &staticResult{tag: "CLOSE CURSOR ALL"}, nil
		}
		c, ok := s.cursors[cs.Name]
		if !ok {
			return nil, pgerror.Newf(pgerror.InvalidCursorName, "cursor %q does not exist", cs.Name)
		}
		c.close()
		delete(s.cursors, cs.Name)
		return &staticResult{tag: "CLOSE CURSOR"}, nil
	}
	c, ok := s.cursors[cs.Name]
	if !ok {
		return nil, pgerror.Newf(pgerror.InvalidCursorName, "cursor %q does not exist", cs.Name)
	}
	if c.failed {
		return nil, pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "portal %q cannot be run", cs.Name)
	}
	if c.noScroll && cs.Backward(c.pos) {
		return nil, errScanForward()
	}
	rows, err := c.fetch(cs)
	if err != nil {
		if !pgerror.HasCode(err, pgerror.ObjectNotInPrerequisiteState) {
			c.failed = true
		}
		return nil, err
	}
	if cs.Op == "move" {
		return &staticResult{tag: fmt.Sprintf("MOVE %d", len(rows))}, nil
	}
	// The rows the cursor keeps may end with hidden key columns.
	out := make([][]types.Datum, len(rows))
	for i, r := range rows {
		out[i] = r[:len(c.cols)]
	}
	return &staticResult{rows: out, tag: fmt.Sprintf("FETCH %d", len(rows))}, nil
}

// declare opens a cursor: in the transaction block, or, WITH HOLD, read
// whole in a transaction of its own (or the block's).
func (s *Session) declare(ctx context.Context, cs *parse.CursorStmt, sql string, params []types.Datum) (backend.Result, error) {
	if s.cur == nil && !cs.Hold {
		return nil, pgerror.New(pgerror.NoActiveSQLTransaction, "DECLARE CURSOR can only be used in transaction blocks")
	}
	if _, dup := s.cursors[cs.Name]; dup {
		return nil, pgerror.Newf(pgerror.DuplicateCursor, "cursor %q already exists", cs.Name)
	}
	limit := s.queryMemLimit()
	c := &cursorState{hold: cs.Hold, scroll: cs.Scroll, noScroll: cs.NoScroll, limit: limit, keep: min(s.workMem(), limit),
		statement: sql, binary: cs.Binary, scrollable: cs.Scrollable(), created: time.Now()}
	if s.cur != nil {
		c.declaredIn, c.level = s.cur, len(s.cur.savepoints)
	}
	open := func(t *txn) error {
		pl := s.planner(t.cat)
		pl.CursorTarget = &planner.CursorTarget{}
		plan, _, err := pl.Plan(cs.Query, nil)
		if err != nil {
			return err
		}
		if tg := pl.CursorTarget; tg.Table != nil && len(tg.Key) == len(tg.Table.PrimaryKey) {
			c.table, c.key = tg.Table.ID, tg.Key
		}
		for _, col := range plan.Columns() {
			if !col.Hidden {
				c.cols = append(c.cols, backend.Column{Name: col.Name, Type: col.T, TableOID: col.TableID, Attr: col.Attr})
			}
		}
		op, err := exec.Build(s.execCtx(context.WithoutCancel(ctx), t, params), plan)
		if err != nil {
			return err
		}
		c.op = op
		if cs.Hold {
			_, err = c.total()
		}
		return err
	}
	var err error
	if cs.Hold {
		err = s.inTxn(open)
	} else {
		err = open(s.cur)
	}
	if err != nil {
		c.close()
		return nil, err
	}
	if s.cursors == nil {
		s.cursors = map[string]*cursorState{}
	}
	s.cursors[cs.Name] = c
	return &staticResult{tag: "DECLARE CURSOR"}, nil
}

// fetch moves the cursor as cs says and returns the rows it passes over
// (FETCH) or would (MOVE counts them).
func (c *cursorState) fetch(cs *parse.CursorStmt) ([][]types.Datum, error) {
	var out [][]types.Datum
	var outSize int64 // the result is held whole: it counts against the limit too
	// step moves by one in a direction; false past either end.
	step := func(d int64) (bool, error) {
		next := c.pos + d
		if next < 1 {
			c.pos = 0
			return false, nil
		}
		r, err := c.row(next)
		if err != nil {
			return false, err
		}
		if r == nil {
			c.pos = c.end() + 1
			return false, nil
		}
		c.pos = next
		if outSize += rowBytes(r); outSize > c.limit {
			return false, outOfMemory(rowBytes(r))
		}
		out = append(out, r)
		return true, nil
	}
	// jump goes to row k (from the end when negative) and returns it.
	jump := func(k int64) error {
		if k < 0 {
			n, err := c.total()
			if err != nil {
				return err
			}
			k = n + 1 + k
			if k < 0 {
				k = 0
			}
		}
		if k == 0 {
			c.pos = 0
			return nil
		}
		c.pos = k - 1
		_, err := step(1)
		return err
	}
	switch cs.Dir {
	case "first":
		return out, jump(1)
	case "last":
		return out, jump(-1)
	case "absolute":
		return out, jump(cs.Count)
	case "relative":
		if cs.Count == 0 {
			if r, err := c.row(c.pos); err != nil || r == nil {
				return out, err
			} else {
				return append(out, r), nil
			}
		}
		target := c.pos + cs.Count
		if target < 0 {
			target = 0
		}
		return out, jump(target)
	}
	d := int64(1)
	if cs.Dir == "prior" {
		d = -1
	}
	for i := int64(0); cs.All || i < cs.Count; i++ {
		ok, err := step(d)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
	}
	return out, nil
}

// cursorList describes the session's open cursors for pg_cursors, by
// name.
func (s *Session) cursorList() []planner.CursorInfo {
	out := make([]planner.CursorInfo, 0, len(s.cursors))
	for name, c := range s.cursors {
		out = append(out, planner.CursorInfo{Name: name, Statement: c.statement, Holdable: c.hold,
			Binary: c.binary, Scrollable: c.scrollable, Created: c.created})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// currentRowKey is planner.CurrentOf: the key of the row cursor name
// stands on, which must be a row of t.
func (s *Session) currentRowKey(name string, t *catalog.Table) ([]types.Datum, error) {
	c, ok := s.cursors[name]
	if !ok {
		return nil, pgerror.Newf(pgerror.InvalidCursorName, "cursor %q does not exist", name)
	}
	if c.hold && c.declaredIn == nil {
		return nil, pgerror.Newf(pgerror.InvalidCursorState, "cursor %q is held from a previous transaction", name)
	}
	if c.table != t.ID || len(c.key) != len(t.PrimaryKey) {
		return nil, pgerror.Newf(pgerror.InvalidCursorState, "cursor %q is not a simply updatable scan of table %q", name, t.Name)
	}
	if c.pos < 1 || c.pos > c.end() || c.pos <= c.base {
		return nil, pgerror.Newf(pgerror.InvalidCursorState, "cursor %q is not positioned on a row", name)
	}
	row := c.rows[c.pos-1-c.base]
	key := make([]types.Datum, len(c.key))
	for i, k := range c.key {
		key[i] = row[k]
	}
	return key, nil
}
