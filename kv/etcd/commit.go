package etcd

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
)

// opKind names a buffered write.
type opKind uint8

const (
	opSet opKind = iota + 1
	opDelete
	opDeleteRange
	opMerge
)

// op is one write of a batch; for opDeleteRange, value is the range's end.
type op struct {
	kind       opKind
	key, value []byte
}

// batch is a kv.Batch: writes are recorded and sent as one etcd Txn by
// Commit.
type batch struct {
	e         *Engine
	ops       []op
	committed bool
	closed    bool
}

var _ kv.Batch = (*batch)(nil)

var errCommitted = errors.New("etcd: batch already committed")

func (b *batch) add(o op) error {
	switch {
	case b.closed || b.e.closed.Load():
		return kv.ErrClosed
	case b.committed:
		return errCommitted
	}
	b.ops = append(b.ops, o)
	return nil
}

// Set implements kv.Writer.
func (b *batch) Set(key, value []byte) error {
	return b.add(op{kind: opSet, key: clone(key), value: clone(value)})
}

// Delete implements kv.Writer.
func (b *batch) Delete(key []byte) error { return b.add(op{kind: opDelete, key: clone(key)}) }

// DeleteRange implements kv.Writer; an empty range is not recorded.
func (b *batch) DeleteRange(start, end []byte) error {
	if !nonEmpty(start, end) {
		return b.add(op{}) // checks usability; dropped below
	}
	return b.add(op{kind: opDeleteRange, key: clone(start), value: clone(end)})
}

// Merge implements kv.Writer.
func (b *batch) Merge(key, operand []byte) error {
	return b.add(op{kind: opMerge, key: clone(key), value: clone(operand)})
}

// Commit implements kv.Batch. A commit is durable when it returns (a
// quorum has it on disk), whatever sync says.
func (b *batch) Commit(bool) error {
	switch {
	case b.closed || b.e.closed.Load():
		return kv.ErrClosed
	case b.committed:
		return errCommitted
	}
	b.committed = true
	return b.e.commit(b.ops)
}

// Count implements kv.Batch.
func (b *batch) Count() int {
	n := 0
	for _, o := range b.ops {
		if o.kind != 0 {
			n++
		}
	}
	return n
}

// Close implements kv.Batch.
func (b *batch) Close() error {
	if b.closed {
		return kv.ErrClosed
	}
	b.closed, b.ops = true, nil
	return nil
}

// plan is the net effect of a batch's writes, in the form one etcd Txn
// accepts: etcd refuses a Txn that writes a key twice or puts a key inside
// a range it deletes, so writes to one key collapse into the last, and a
// deleted range is cut around the keys the batch sets inside it.
type plan struct {
	ranges [][2][]byte // disjoint, sorted deleted ranges
	dels   [][]byte    // single deleted keys outside ranges
	puts   []kvPair    // keys set to a value known now
	merges []kvPair    // keys whose value becomes the stored value + value
}

type kvPair struct{ key, value []byte }

// keyState is the pending effect of a batch on one key.
type keyState struct {
	kind  opKind // opSet, opDelete or opMerge (append to the stored value)
	value []byte
}

// planOf computes the net effect of ops, in order.
func planOf(ops []op) plan {
	state := map[string]*keyState{}
	var ranges [][2][]byte
	covered := func(k []byte) bool {
		for _, r := range ranges {
			if string(r[0]) <= string(k) && string(k) < string(r[1]) {
				return true
			}
		}
		return false
	}
	for _, o := range ops {
		k := string(o.key)
		switch o.kind {
		case opSet:
			state[k] = &keyState{kind: opSet, value: o.value}
		case opDelete:
			state[k] = &keyState{kind: opDelete}
		case opMerge:
			s := state[k]
			switch {
			case s == nil && covered(o.key):
				state[k] = &keyState{kind: opSet, value: o.value}
			case s == nil:
				state[k] = &keyState{kind: opMerge, value: o.value}
			case s.kind == opDelete:
				state[k] = &keyState{kind: opSet, value: o.value}
			default:
				s.value = append(append([]byte(nil), s.value...), o.value...)
			}
		case opDeleteRange:
			for sk := range state {
				if string(o.key) <= sk && sk < string(o.value) {
					delete(state, sk)
				}
			}
			ranges = append(ranges, [2][]byte{o.key, o.value})
		}
	}
	var p plan
	p.ranges = unionRanges(ranges)
	keys := make([]string, 0, len(state))
	for k := range state {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	holes := map[int][][]byte{} // range index → keys set inside it
	for _, k := range keys {
		s := state[k]
		ri := rangeOf(p.ranges, k)
		switch s.kind {
		case opSet:
			p.puts = append(p.puts, kvPair{[]byte(k), s.value})
			if ri >= 0 {
				holes[ri] = append(holes[ri], []byte(k))
			}
		case opDelete:
			if ri < 0 {
				p.dels = append(p.dels, []byte(k))
			}
		case opMerge:
			p.merges = append(p.merges, kvPair{[]byte(k), s.value})
		}
	}
	if len(holes) > 0 {
		var cut [][2][]byte
		for i, r := range p.ranges {
			from := r[0]
			for _, k := range holes[i] {
				if string(from) < string(k) {
					cut = append(cut, [2][]byte{from, k})
				}
				from = append(append([]byte(nil), k...), 0)
			}
			if string(from) < string(r[1]) {
				cut = append(cut, [2][]byte{from, r[1]})
			}
		}
		p.ranges = cut
	}
	return p
}

// unionRanges merges possibly overlapping ranges into disjoint sorted ones.
func unionRanges(rs [][2][]byte) [][2][]byte {
	if len(rs) == 0 {
		return nil
	}
	rs = append([][2][]byte(nil), rs...)
	sort.Slice(rs, func(i, j int) bool { return string(rs[i][0]) < string(rs[j][0]) })
	out := [][2][]byte{rs[0]}
	for _, r := range rs[1:] {
		last := &out[len(out)-1]
		if string(r[0]) <= string(last[1]) {
			if string(r[1]) > string(last[1]) {
				last[1] = r[1]
			}
			continue
		}
		out = append(out, r)
	}
	return out
}

// rangeOf returns the index of the range of rs holding k, or -1.
func rangeOf(rs [][2][]byte, k string) int {
	i := sort.Search(len(rs), func(i int) bool { return string(rs[i][1]) > k })
	if i < len(rs) && string(rs[i][0]) <= k {
		return i
	}
	return -1
}

// errForeignWriter is returned when the fence moved under this engine.
func (e *Engine) errForeignWriter(value string) error {
	return pgerror.Newf(pgerror.IOError, "etcd: another writer committed to namespace %q of this cluster (fence %q): one kvsql server per store; this one refuses commits until restarted", e.ns, value)
}

// commit applies ops as one etcd Txn, conditional on the fence: every
// commit of this engine writes the fence key, and each one requires the
// fence's mod revision to be the one the previous commit left. So a second
// writer on the same namespace is detected, and a commit whose answer was
// lost (unknown outcome) can be settled: it either moved the fence or can
// never apply later, once a later commit has moved it.
func (e *Engine) commit(ops []op) error {
	if e.closed.Load() {
		return kv.ErrClosed
	}
	p := planOf(ops)
	if len(p.ranges)+len(p.dels)+len(p.puts)+len(p.merges) == 0 {
		return nil
	}
	if err := e.claimForCommit(); err != nil {
		return err
	}
	e.commitMu.Lock()
	defer e.commitMu.Unlock()
	if e.commitMu.broken != nil {
		return e.commitMu.broken
	}
	if applied, err := e.settleLocked(); err != nil {
		if e.commitMu.broken != nil {
			return e.commitMu.broken
		}
		return fmt.Errorf("%w%w", pgerror.Newf(pgerror.ConnectionFailure,
			"etcd: the cluster is unavailable, the transaction was not committed (an earlier commit's outcome is not settled yet: %v)", err), notCommitted{})
	} else if applied {
		return errAppliedLate
	}
	fenceIs := clientv3.Compare(clientv3.ModRevision(e.fence), "=", e.commitMu.fenceRev)
	if len(p.merges) > 0 {
		if err := e.readMergeBasesLocked(&p, fenceIs); err != nil {
			return err
		}
	}
	var then []clientv3.Op
	for _, r := range p.ranges {
		then = append(then, clientv3.OpDelete(e.key(r[0]), clientv3.WithRange(e.key(r[1]))))
	}
	for _, k := range p.dels {
		then = append(then, clientv3.OpDelete(e.key(k)))
	}
	for _, kv := range p.puts {
		then = append(then, clientv3.OpPut(e.key(kv.key), string(kv.value)))
	}
	fence := e.nextFence()
	then = append(then, clientv3.OpPut(e.fence, fence))
	ctx, cancel := e.ctx()
	resp, err := e.cli.Txn(ctx).If(fenceIs).Then(then...).Commit()
	cancel()
	if err != nil {
		outcome, cerr := commitError(err)
		if outcome == refused {
			return cerr
		}
		e.commitMu.pending = fence
		applied, serr := e.settleLocked()
		switch {
		case serr != nil:
			// Still unknown: the next commit settles it, once the cluster
			// answers again. The client must be told exactly that.
			return fmt.Errorf("%w%w", pgerror.Newf(pgerror.StatementCompletionUnknown,
				"etcd: the cluster stopped answering during the commit; whether the transaction committed is not known: this server learns the outcome once a majority of the cluster's members answers again (%v)", err), notCommitted{})
		case applied:
			return nil // it did commit: the fence holds our value
		}
		// Settled: it did not commit, and never will.
		return fmt.Errorf("%w%w", pgerror.Newf(pgerror.ConnectionFailure,
			"etcd: the cluster did not answer in time; the transaction was not committed (%v)", err), notCommitted{})
	}
	if !resp.Succeeded {
		return e.fenceMovedLocked()
	}
	e.commitMu.fenceRev = resp.Header.Revision
	e.rev.Store(resp.Header.Revision)
	return nil
}

// nextFence returns a fresh fence value of this engine: its id, a slash
// and a sequence number.
func (e *Engine) nextFence() string {
	return e.id + "/" + strconv.FormatUint(e.seq.Add(1), 10)
}

// ours reports whether a fence value was written by this engine.
func (e *Engine) ours(fence string) bool { return strings.HasPrefix(fence, e.id+"/") }

// readMergeBasesLocked reads the stored values of p's merge keys and
// turns the merges into puts. The read is conditional on the fence, and
// so is the commit: nobody writes between the two.
// REQUIRES: commitMu held.
func (e *Engine) readMergeBasesLocked(p *plan, fenceIs clientv3.Cmp) error {
	gets := make([]clientv3.Op, len(p.merges))
	for i, m := range p.merges {
		gets[i] = clientv3.OpGet(e.key(m.key))
	}
	ctx, cancel := e.ctx()
	resp, err := e.cli.Txn(ctx).If(fenceIs).Then(gets...).Commit()
	cancel()
	if err != nil {
		_, cerr := commitError(err) // a read: nothing was written either way
		return cerr
	}
	if !resp.Succeeded {
		return e.fenceMovedLocked()
	}
	for i, m := range p.merges {
		var v []byte
		if kvs := resp.Responses[i].GetResponseRange().GetKvs(); len(kvs) > 0 {
			v = append(v, kvs[0].Value...)
		}
		p.puts = append(p.puts, kvPair{m.key, append(v, m.value...)})
	}
	p.merges = nil
	return nil
}

// settleLocked settles a commit whose outcome is unknown (pending) by
// reading the fence:
//   - it holds the pending commit's value: the commit was applied;
//   - it is where our last known commit left it: a fence-only Txn
//     conditional on that moves it (a "bump"), after which the pending
//     commit can never apply;
//   - it holds another value of ours: a bump whose own answer was lost
//     applied first, so the pending commit did not;
//   - anything else is a foreign writer.
//
// It reports whether the pending commit was applied; an error (the
// cluster still does not answer) leaves it pending.
// REQUIRES: commitMu held.
func (e *Engine) settleLocked() (applied bool, err error) {
	pending := e.commitMu.pending
	if pending == "" {
		return false, nil
	}
	ctx, cancel := e.ctx()
	defer cancel()
	resp, err := e.cli.Get(ctx, e.fence)
	if err != nil {
		_, cerr := commitError(err)
		return false, cerr
	}
	if len(resp.Kvs) > 0 && resp.Kvs[0].ModRevision != e.commitMu.fenceRev {
		value, rev := string(resp.Kvs[0].Value), resp.Kvs[0].ModRevision
		if !e.ours(value) {
			return false, e.fenceMovedLocked()
		}
		e.commitMu.fenceRev = rev
		e.rev.Store(max(e.rev.Load(), rev))
		e.commitMu.pending = ""
		return value == pending, nil
	}
	tr, err := e.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.ModRevision(e.fence), "=", e.commitMu.fenceRev)).
		Then(clientv3.OpPut(e.fence, e.nextFence())).Commit()
	if err != nil {
		_, cerr := commitError(err)
		return false, cerr
	}
	if !tr.Succeeded {
		return e.settleLocked() // it applied just now, or a foreign writer
	}
	e.commitMu.fenceRev = tr.Header.Revision
	e.rev.Store(tr.Header.Revision)
	e.commitMu.pending = ""
	return false, nil
}

// fenceMovedLocked handles a failed fence compare: someone else moved
// the fence, and this engine stops committing.
// REQUIRES: commitMu held.
func (e *Engine) fenceMovedLocked() error {
	v := "?"
	ctx, cancel := e.ctx()
	defer cancel()
	if resp, err := e.cli.Get(ctx, e.fence); err == nil && len(resp.Kvs) > 0 {
		v = string(resp.Kvs[0].Value)
	}
	e.commitMu.broken = e.errForeignWriter(v)
	return e.commitMu.broken
}

// errAppliedLate is the error of a commit made after an earlier one whose
// outcome was unknown turned out applied: this one was not sent, and the
// caller learns that its record of commits misses the earlier one
// (kv.ErrLateCommit). The engine goes on: the next commit is sent.
var errAppliedLate = fmt.Errorf("etcd: %w: this transaction was not committed", kv.ErrLateCommit)
