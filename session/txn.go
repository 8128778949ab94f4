package session

import (
	"bytes"
	"github.com/kvsql/kvsql/exec"
	"github.com/kvsql/kvsql/foreign"
	"slices"
	"sort"
	"time"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
)

// txn is one transaction: a kv.Txn overlay (its writes, read-your-writes,
// its read set), the catalog as the transaction sees it, and its
// savepoints.
type txn struct {
	db *DB
	// start is the transaction's timestamp (now(), transaction_timestamp):
	// the start of its first statement.
	start time.Time
	// database is the session's database, or the one CREATE/DROP
	// DATABASE changes ("" when unknown: such a transaction conflicts with
	// every catalog change).
	database string
	kv       *kv.Txn
	snapSeq  uint64
	// cat is the catalog the transaction sees: baseCat, the committed
	// one at its snapshot, plus its own DDL (catChanged).
	cat, baseCat *catalog.Catalog
	catChanged   bool
	explicit     bool
	// implicit marks the implicit transaction block of a multi-statement
	// Query (Session.BeginQuery): it ends with the Query, and BEGIN
	// turns it into an explicit one.
	implicit bool
	// registered: the snapshot is counted in db.mu.active, which keeps
	// the commit log t needs for validation. Transactions from beginRead
	// are not, and can neither commit writes nor refresh.
	registered bool
	// snapRead reads the snapshot of a transaction from beginRead
	// directly, bypassing kv's write buffer (snapread.go); its snap is
	// nil in every other transaction.
	snapRead snapReader
	// ref is the reference to its shared snapshot that a transaction
	// from beginRead reads through, kept here so that a reused one
	// (Session.endRead) allocates none.
	ref    snapRef
	failed bool
	// readOnly refuses every write with 25006 (BEGIN READ ONLY,
	// SET TRANSACTION READ ONLY, default_transaction_read_only).
	readOnly bool
	// deferrable is the DEFERRABLE mode of BEGIN, START TRANSACTION and
	// SET TRANSACTION: only SHOW transaction_deferrable reads it (it
	// matters only to SERIALIZABLE READ ONLY transactions, which never
	// wait here).
	deferrable bool
	// readCommitted runs t at READ COMMITTED: each statement reads the
	// newest snapshot and only t's writes are validated at commit
	// (validationSpans). Otherwise t is SERIALIZABLE (REPEATABLE READ
	// runs as SERIALIZABLE, which the standard allows).
	readCommitted bool
	// queried is set once t ran a statement (SET TRANSACTION ISOLATION
	// LEVEL must come before); level is the isolation level asked for.
	queried    bool
	level      string
	savepoints []savepoint
	// fresh holds the tables t created or truncated, each with the
	// savepoint depth (len(savepoints)) it was at: COPY FREEZE needs its
	// table fresh in the current subtransaction (copy.go).
	fresh    map[uint64]int
	rowDelta map[uint64]int64
	// pid is the session's backend PID (for lock and deadlock errors).
	pid uint32
	// locks are the row locks t holds (locks.go).
	locks txnLocks
	// xid is t's transaction id once a function asked for it
	// (txid_current), else 0.
	xid int64
	// advisory are the advisory locks t took for itself
	// (pg_advisory_xact_lock), released when it ends (advisory.go).
	advisory []advisoryHold
	// notifyWork is what its LISTEN, UNLISTEN and NOTIFY statements
	// leave for its commit (notify.go).
	notifyWork *txnNotify
	// deferred holds the constraint checks t defers to its commit and
	// the modes SET CONSTRAINTS chose (exec.Deferred).
	deferred exec.Deferred
	// foreign holds, by foreign database, the writes t's statements
	// made to an application's store, buffered until COMMIT
	// (foreign.go).
	foreign map[string]*foreign.Overlay
	// settings records t's SETs, taken back when it rolls back
	// (settings_txn.go).
	settings txnSettings
	// undurable is a seq t's snapshot holds that may not be durable yet
	// (0: none): a restarted statement moves to the newest applied state
	// without waiting for its sync (moveSnapshot), and nothing the
	// statement shows may leave before that state is durable
	// (awaitDurable).
	undurable uint64
}

type savepoint struct {
	name       string
	mark       int
	reads      int // the read set's length (kv.Txn.ReadMark)
	cat        *catalog.Catalog
	catChanged bool
	// readOnly is the access mode when the savepoint was set, restored
	// when it is released or rolled back to.
	readOnly bool
	// deferred is how many deferred checks were pending.
	deferred int
	// foreign is each foreign overlay's mark (an overlay missing here
	// was started after the savepoint: back to empty).
	foreign map[string]int
	// settings is the length of the transaction's SET journal.
	settings int
	// notes and listens are how many notifications and LISTENs were
	// pending (notify.go).
	notes, listens int
}

// sortSpans sorts spans by Start (nil first) in place and returns them.
// Spans already in order (a write set without deleted ranges: a bulk
// load's hundreds of thousands of keys) cost one pass.
func sortSpans(spans []kv.KeySpan) []kv.KeySpan {
	less := func(a, b kv.KeySpan) int { return bytes.Compare(a.Start, b.Start) }
	if !slices.IsSortedFunc(spans, less) {
		slices.SortFunc(spans, less)
	}
	return spans
}

// endAfter reports whether span end e (nil: unbounded) lies after key k.
func endAfter(e, k []byte) bool { return e == nil || bytes.Compare(e, k) > 0 }

// mergeSpans returns spans as a sorted list of disjoint spans covering
// the same keys: the form spansOverlap searches. Overlapping and touching
// spans are merged. The input is not modified.
func mergeSpans(spans []kv.KeySpan) []kv.KeySpan {
	if len(spans) == 0 {
		return nil
	}
	s := sortSpans(append([]kv.KeySpan(nil), spans...))
	out := s[:1]
	for _, x := range s[1:] {
		last := &out[len(out)-1]
		if last.End == nil {
			break // the last span reaches the end of the keyspace
		}
		if bytes.Compare(x.Start, last.End) <= 0 {
			if endAfter(x.End, last.End) {
				last.End = x.End
			}
			continue
		}
		out = append(out, x)
	}
	return out
}

// spansOverlap reports whether some span of writes intersects some span
// of reads. reads must be sorted and disjoint (mergeSpans); writes need
// not be. Each write span costs one binary search: O(w log r).
func spansOverlap(writes, reads []kv.KeySpan) bool {
	if len(reads) == 0 {
		return false
	}
	for _, w := range writes {
		// The first read span ending after w.Start is the only candidate:
		// the ones before it end at or before w.Start, the ones after it
		// start later than it does.
		i := sort.Search(len(reads), func(i int) bool { return endAfter(reads[i].End, w.Start) })
		if i < len(reads) && (w.End == nil || bytes.Compare(reads[i].Start, w.End) < 0) {
			return true
		}
	}
	return false
}

// mark returns a point to roll the transaction back to (statement
// atomicity inside an explicit transaction).
func (t *txn) mark() savepoint {
	sp := savepoint{mark: t.kv.Savepoint(), reads: t.kv.ReadMark(), cat: t.cat, catChanged: t.catChanged, readOnly: t.readOnly,
		deferred: t.deferred.Mark(), settings: len(t.settings.journal)}
	if w := t.notifyWork; w != nil {
		sp.notes, sp.listens = len(w.notes), len(w.ops)
	}
	for name, o := range t.foreign {
		if sp.foreign == nil {
			sp.foreign = map[string]int{}
		}
		sp.foreign[name] = o.Mark()
	}
	return sp
}

func (t *txn) rollbackTo(sp savepoint) error {
	if err := t.kv.RollbackTo(sp.mark); err != nil {
		return pgerror.Wrap(err, pgerror.Internal)
	}
	for name, o := range t.foreign {
		o.RollbackTo(sp.foreign[name])
	}
	t.cat, t.catChanged = sp.cat, sp.catChanged
	if !t.catChanged {
		// The snapshot may have moved since the mark, and its catalog
		// with it (moveSnapshot).
		t.cat = t.baseCat
	}
	t.deferred.Rewind(sp.deferred)
	if w := t.notifyWork; w != nil {
		w.notes, w.ops = w.notes[:sp.notes], w.ops[:sp.listens]
	}
	return nil
}

// markFresh records that t created or truncated table id.
func (t *txn) markFresh(id uint64) {
	if t.fresh == nil {
		t.fresh = map[uint64]int{}
	}
	t.fresh[id] = len(t.savepoints)
}

// isFresh reports whether t created or truncated table id in its current
// subtransaction.
func (t *txn) isFresh(id uint64) bool {
	d, ok := t.fresh[id]
	return ok && d == len(t.savepoints)
}

// endSubtransactions adjusts fresh when the savepoints after the i-th
// end (released: what they did now belongs to savepoint i's level) or
// are rolled back (undone: forgotten).
func (t *txn) endSubtransactions(i int, rolledBack bool) {
	for id, d := range t.fresh {
		switch {
		case d <= i:
		case rolledBack:
			delete(t.fresh, id)
		default:
			t.fresh[id] = i
		}
	}
}

func (t *txn) addRows(tableID uint64, n int64) {
	if t.rowDelta == nil {
		t.rowDelta = map[uint64]int64{}
	}
	t.rowDelta[tableID] += n
}

// setCatalog installs a catalog changed by DDL in this transaction.
func (t *txn) setCatalog(c *catalog.Catalog) {
	t.cat, t.catChanged = c, true
}

// refresh moves t's snapshot forward if the reads t made so far are
// still valid, i.e. no commit after t's snapshot wrote into t's read set
// (the check commit does). Those reads then return what they would
// return at the new snapshot, so t is equivalent to a transaction that
// began there and made the same reads: serializability is kept, and the
// window in which a commit by someone else makes t fail shrinks from
// "since BEGIN" to "since the start of the statement that read the key".
// Session.run calls it before each statement of an explicit transaction.
//
// The new snapshot is the one the last WAL sync published
// (DB.durableShared), as begin's: it holds every acknowledged commit and
// no other, so the statement does not wait for a sync, as a PostgreSQL
// statement sees only commits whose WAL record is flushed. Waiting for
// the newest state instead cost TPC-B at 8 clients a sync per statement
// (a block profile: 11.4 s of 23.8 s blocked in the session were the
// refreshes' sync waits), where a row changed by a commit still being
// synced costs one statement restart (acquireLock), which waits for that
// sync. Without a published snapshot (NoSync, a catalog change not yet
// durable) t moves to the newest state and, unless NoSync, waits until
// it is durable.
//
// If the reads are no longer valid, t is doomed once it writes: a t that
// has written (or changed the catalog) gets 40001 now rather than at
// COMMIT; a t that has only read stays on its old snapshot, where its
// reads are consistent, and may still commit if it writes nothing.
func (t *txn) refresh() error { return t.moveSnapshot(false) }

// moveSnapshot is refresh; writing says the caller is about to write
// (a restarted statement), so stale reads doom t even if it has written
// nothing yet, and t moves to the newest state: the restart follows a
// commit that wrote (or held) the row, which the durable snapshot may
// not hold yet. A restart does not wait for that state's sync; it
// records it in t.undurable, which the statement's end waits for
// (awaitDurable).
func (t *txn) moveSnapshot(writing bool) error {
	db := t.db
	if !t.registered || t.kv.OpenIters() > 0 || db.sync.applied.Load() == t.snapSeq {
		return nil
	}
	var d *sharedSnap
	if !writing {
		if d = db.durableShared(); d != nil && d.seq <= t.snapSeq {
			// t already holds every acknowledged commit; anything newer
			// is still being synced.
			d.release()
			return nil
		}
	}
	wrote := writing || t.kv.Len() > 0 || t.catChanged
	// Merged outside the mutex: it is t's own data, as its catalog
	// change is.
	reads := t.validationSpans()
	change := t.catalogChange(nil)
	db.mu.Lock()
	upto, cat := db.mu.seq, db.mu.cat
	if d != nil {
		upto, cat = d.seq, d.cat
	}
	// t's own catalog change cannot move onto another one (only its
	// commit can, DB.applyWith): t then stays where it is, or, about to
	// write at the newest state, fails as it would at COMMIT if the two
	// met.
	movable := !t.catChanged || cat == t.baseCat
	if !movable || !db.validToLocked(t, change, reads, upto) {
		db.mu.Unlock()
		d.release()
		if writing || movable && wrote {
			db.stats.conflicts.Add(1)
			return errSerialization
		}
		return nil
	}
	c, stale := d, (*sharedSnap)(nil)
	if c == nil {
		c, stale = db.sharedLocked()
	}
	old := t.snapSeq
	t.snapSeq = c.seq
	if !t.catChanged {
		t.cat = c.cat // another transaction's DDL, valid for t to see
	}
	t.baseCat = c.cat
	db.mu.active[t.snapSeq]++
	// old is still counted while the new entry is added, so the log keeps
	// every commit after the new snapshot.
	db.finishLocked(old)
	db.mu.Unlock()
	stale.release()
	// Cannot fail: t is open and has no open iterator (checked above).
	if err := t.kv.Refresh(&snapRef{s: c}); err != nil {
		return pgerror.Wrap(err, pgerror.Internal)
	}
	db.stats.refreshes.Add(1)
	if t.readCommitted {
		t.kv.RollbackReads(0) // never validated: no need to keep them
	}
	if d == nil && !db.opts.NoSync {
		if writing {
			// The restarted statement runs now, while the commit it waited
			// for is still being synced, and may join that very sync with
			// its own commit; its results wait instead (awaitDurable).
			t.undurable = t.snapSeq
		} else {
			_ = db.sync.wait(t.snapSeq) // an error is the sticky one commit reports
		}
	}
	return nil
}

// awaitDurable waits until the state a restart moved t to is durable
// (see undurable): called once a statement ends, before anything it
// produced (rows, a command tag, an error) reaches the client, so no
// client sees a commit that a crash could still take away. An
// autocommit statement calls it after its own commit, whose sync covers
// that state anyway (WAL order), so its restart costs no sync of its
// own. A sync error is the sticky one commit reports.
func (t *txn) awaitDurable() {
	if seq := t.undurable; seq != 0 {
		t.undurable = 0
		_ = t.db.sync.wait(seq)
	}
}

// validationSpans are the key spans a commit after t's snapshot must not
// have written for t to stay valid (DB.validToLocked): what t read
// (SERIALIZABLE), merged. The keys t's inserts checked
// (kv.Txn.SetIfNew) are not among them: they are marks on t's buffered
// writes, which validation asks for with kv.Txn.MarkedReadIn. READ
// COMMITTED, where each statement reads a fresh snapshot and only
// write-write conflicts that no row lock covers (two transactions
// inserting one key) are refused, validates what t overwrote: it has no
// spans, validation asks t's write buffer (kv.Txn.OverwritesIn). A bulk
// load would otherwise copy, sort and merge a span per row.
func (t *txn) validationSpans() []kv.KeySpan {
	if t.readCommitted {
		return nil
	}
	return mergeSpans(t.kv.ReadSpans())
}

// commitSpans returns what commit needs: the write set, sorted (for the
// commit log), and validationSpans.
func (t *txn) commitSpans() (writes, reads []kv.KeySpan) {
	return sortSpans(t.kv.WriteSet()), t.validationSpans()
}

// conflicts reports whether writes, the write set of a commit after t's
// snapshot, meets what t must not have had changed: its reads
// (validationSpans and the keys its inserts checked) under
// SERIALIZABLE, its overwrites under READ COMMITTED.
func (t *txn) conflicts(writes, reads []kv.KeySpan) bool {
	if t.readCommitted {
		return t.kv.OverwritesIn(writes)
	}
	return spansOverlap(writes, reads) || t.kv.MarkedReadIn(writes)
}

// ddlDB is the database whose catalog t's DDL changed, "" for all.
func (t *txn) ddlDB() string { return t.database }
