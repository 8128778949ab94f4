package exec

import (
	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/planner"
)

// Reusable is an operator tree built once for a plan and run again for
// each execution of the plan: a prepared statement executed many times
// (pgx and pgbench -M prepared send Bind/Execute/Sync for every
// statement) builds its operators, their row buffers and the runState
// once instead of at every execution.
//
// Only trees made entirely of operators that can be rerun are reusable
// (rerunner: scans of the table's own files, projections, filters,
// limits, sorts and top-N sorts over row inputs, and lookup joins into
// the table's own files — the operators of OLTP point and short range
// reads and of a sorted lookup join such as the chat bench's chat list —
// VALUES lists, and INSERT, UPDATE and DELETE of a table of the store's
// own, such as YCSB's update by primary key and TPC-B's history insert);
// for any other plan BuildReusable returns no Reusable and the tree is
// used once, as Build's.
//
// One Reusable runs one execution at a time: Rerun refuses (nil) while
// the root of the previous run is not closed, so a second portal of the
// same statement builds its own tree. A Reusable is not safe for
// concurrent use; its owner (a session's prepared statement) runs on one
// goroutine. It is valid for its plan only: a replanned statement builds
// a new one.
type Reusable struct {
	rs   *runState
	plan planner.Node
	ops  []rerunner // every operator of the tree
	root reusedRoot
	busy bool // root handed out and not yet closed
}

// rerunner is an operator a Reusable tree can run again. rerun restores
// the state the operator's constructor left — nothing read, nothing open
// — keeping the buffers it allocated; its runState has been bound to the
// new execution (runState.bind) before. REQUIRES: the operator is closed.
type rerunner interface {
	Operator
	rerun()
}

// reuseCollector gathers the operators of a tree being built for a
// Reusable; ok turns false at the first one that cannot rerun.
type reuseCollector struct {
	ops []rerunner
	ok  bool
}

// note records op, built for node n of the tree.
func (c *reuseCollector) note(n planner.Node, op Operator) {
	r, ok := op.(rerunner)
	if !ok || !rerunnable(n, op) {
		c.ok = false
		return
	}
	c.ops = append(c.ops, r)
}

// rerunnable reports whether op, a rerunner built for n, can rerun as
// built. A memoized scan's operator depends on the rows its memo read at
// build time (memo.go). A sort over a batch input (buildSortInput) reads
// a vectorized subtree that rs.build never noted, so nothing would
// rerun it. A lookup join into a foreign table keeps the foreign
// reader's per-execution state (foreign_lookup.go). An UPDATE that may
// move rows to another partition keeps its mover's inserters between
// rows (partition.go), as an INSERT into a partitioned table keeps one
// per partition, and a write to a foreign table goes through the
// execution's foreign batch: those are built per execution.
func rerunnable(n planner.Node, op Operator) bool {
	switch op := op.(type) {
	case *scanOp:
		sc, ok := n.(*planner.Scan)
		return ok && sc.Memo == nil
	case *sortOp:
		_, rows := op.input.(*rowOpSource)
		return rows
	case *topNOp:
		_, rows := op.src.(*rowOpSource)
		return rows
	case *lookupJoinOp:
		return op.fl == nil
	case *updateOp:
		return op.node.Move == nil && op.table.Foreign == nil
	case *deleteOp:
		return op.table.Foreign == nil
	case *insertOp:
		return op.node.Route == nil && op.table.Foreign == nil
	}
	return true
}

// reusedRoot is a Reusable's root as its runs hand it out: closing it
// closes the tree and makes the Reusable free for the next run.
type reusedRoot struct {
	Operator
	r *Reusable
}

func (o *reusedRoot) Close() error {
	err := o.Operator.Close()
	o.r.rs.unbind()
	o.r.busy = false
	return err
}

// unbind drops what the runState holds of the execution that just ended
// (its Ctx: the transaction, snapshot and parameters; the expression
// caches' entries), so a kept tree idle between executions does not keep
// a finished transaction's write buffer alive. The next run binds again.
func (rs *runState) unbind() {
	rs.ctx, rs.goctx = nil, nil
	rs.cache, rs.subMemos, rs.memos, rs.works, rs.ctes = nil, nil, nil, nil, nil
	rs.env.Rebind(eval.Env{})
}

// BuildReusable builds n like Build. When every operator of the tree can
// rerun it also returns the tree as a Reusable, whose first run is op:
// close op, then Rerun gives the tree for the next execution. Otherwise
// the Reusable is nil and op is Build's.
func BuildReusable(ctx *Ctx, n planner.Node) (Operator, *Reusable, error) {
	if ctx.Analyze {
		op, err := Build(ctx, n)
		return op, nil, err
	}
	rs := newRunState(ctx)
	rs.reuse = &reuseCollector{ok: true}
	op, err := rs.build(rs.env, n)
	c := rs.reuse
	rs.reuse = nil // operators built while running (subqueries) are not the tree's
	if err != nil {
		return nil, nil, err
	}
	if rs.holdsBuffers {
		return &stmtOp{Operator: op, rs: rs}, nil, nil
	}
	if !c.ok {
		return op, nil, nil
	}
	r := &Reusable{rs: rs, plan: n, ops: c.ops, busy: true}
	r.root = reusedRoot{Operator: op, r: r}
	return &r.root, r, nil
}

// Busy reports whether the last run's root is still open: Rerun would
// refuse.
func (r *Reusable) Busy() bool { return r.busy }

// Plan is the plan the tree was built for.
func (r *Reusable) Plan() planner.Node { return r.plan }

// Rerun binds the tree to ctx (its parameters, transaction, snapshot and
// context) and returns its root, ready to run as a freshly built tree
// would; nil while the previous run's root is still open, or for a ctx
// the tree cannot serve (EXPLAIN ANALYZE): build anew then.
func (r *Reusable) Rerun(ctx *Ctx) Operator {
	if r.busy || ctx.Analyze {
		return nil
	}
	r.rs.bind(ctx)
	for _, op := range r.ops {
		op.rerun()
	}
	r.busy = true
	return &r.root
}

// The operators that can rerun.
var (
	_ rerunner = (*scanOp)(nil)
	_ rerunner = (*projectOp)(nil)
	_ rerunner = (*filterOp)(nil)
	_ rerunner = (*gateOp)(nil)
	_ rerunner = (*limitOp)(nil)
	_ rerunner = (*sortOp)(nil)
	_ rerunner = (*topNOp)(nil)
	_ rerunner = (*lookupJoinOp)(nil)
	_ rerunner = (*updateOp)(nil)
	_ rerunner = (*deleteOp)(nil)
	_ rerunner = (*insertOp)(nil)
	_ rerunner = (*valuesOp)(nil)
)

// rerun keeps the row buffers, the master key buffer of its gets, the
// first span's bound buffers and the read sets (from the plan alone);
// whether index scans batch their master reads depends on the execution
// (Ctx.ReadOnly) and is decided again.
func (s *scanOp) rerun() {
	*s = scanOp{rs: s.rs, env: s.env, node: s.node, t: ticker{rs: s.rs}, cols: s.cols, early: s.early, late: s.late, row: s.row, pk: s.pk, getKey: s.getKey, lo0: s.lo0, hi0: s.hi0}
	s.batchable = s.rs.ctx.ReadOnly && s.usesIndex() && !s.node.IndexOnly && batchedMasterReads
}

// rerun: out is overwritten by every row.
func (p *projectOp) rerun() {}

func (f *filterOp) rerun() {}

func (g *gateOp) rerun() { g.judged, g.closed = false, false }

// rerun: the count and offset are evaluated again at the first Next (they
// may be parameters).
func (l *limitOp) rerun() {
	l.opened, l.count, l.offset, l.last, l.ties = false, 0, 0, nil, false
}

// rerun numbers the input's rows from 0 again and starts empty, with the
// budget of this execution's work_mem; a small sort keeps its record
// arena, entries, scratch and output rows (encSorter.release), and the
// normalized keys keep their kinds slice. Spill files were closed and
// dropped by Close.
func (s *sortOp) rerun() {
	s.input.(*rowOpSource).seq = 0 // rerunnable: a row input
	s.opened, s.pos = false, 0
	s.mem = s.rs.memAccount(s.rs.workMem)
	kinds := s.norm.kinds
	clear(kinds)
	s.norm = normKeys{sk: &s.sk, kinds: kinds, off: !normalizedSort}
	if s.enc != nil {
		s.enc.release()
		clear(s.enc.kinds)
		s.encOn = true
	}
}

// rerun takes its input back from the full sort an unbounded run made
// (consume); the count and offset are evaluated again (parameters).
func (t *topNOp) rerun() {
	t.input = t.src
	t.input.(*rowOpSource).seq = 0 // rerunnable: a row input
	t.mem = t.rs.heldAccount()
	t.opened, t.pos, t.out, t.h.items = false, 0, nil, nil
}

// rerun keeps the table row, primary key, output and key-bound buffers;
// the batch reader of a long left is made again when a run needs it, and
// whether the join may batch depends on the execution (Ctx.ReadOnly).
func (j *lookupJoinOp) rerun() {
	j.lrow, j.matched, j.it, j.getDone, j.keys = nil, false, nil, false, nil
	j.lb, j.seen, j.slot = nil, 0, -1
	j.batchable = j.mayBatch()
}

// again starts the statement over (the operators' rerun): nothing
// written or counted, its input not yet collected; collect is whether
// this execution must collect it. The written row, RETURNING's rows and
// the key scratch keep their buffers.
func (b *dmlBase) again(collect bool) {
	b.t = ticker{rs: b.rs}
	b.collect = collect
	b.buf, b.it, b.seen = nil, nil, nil // Close closed buf
	b.affected, b.done = 0, false
}

// rerun: whether to collect depends on the execution (Ctx.Read); newRow
// is overwritten by every row, kbuf by every write; the rows put aside
// by the last execution (which may have failed with some left) go.
func (o *updateOp) rerun() {
	o.again(mustCollect(o.rs, o.table))
	o.aside, o.asideOut, o.asideMem = nil, false, o.rs.heldAccount()
}

func (o *deleteOp) rerun() { o.again(mustCollect(o.rs, o.table)) }

// rerun takes a new index.Inserter (it learns the key spaces of one
// statement) and forgets the keys ON CONFLICT DO UPDATE touched; row and
// newRow keep their buffers.
func (o *insertOp) rerun() {
	o.again(insertCollects(o.node))
	o.ins, o.touched = nil, nil
}

// rerun starts at the first row again; out keeps its buffer.
func (v *valuesOp) rerun() { v.i = 0 }
