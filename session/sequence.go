package session

import (
	"errors"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// Sequences (serial columns and hidden row ids) are counters kept in the
// store. They are reserved in blocks outside any transaction, so a value
// handed out is never handed out again — not after a rollback and not
// after a crash (the reservation is written before any row that uses it,
// and the WAL keeps that order).

type seqKey struct {
	table uint64
	col   uint32
}

type seqBlock struct{ next, end int64 }

const seqBlockSize = 64

// serialNextVal is the session's exec.Ctx.NextVal: db.nextVal, whose
// value currval and lastval then report for the column's serial sequence
// (table_column_seq), as after PostgreSQL's nextval in the column's
// DEFAULT.
func (s *Session) serialNextVal(t *catalog.Table, col int) (int64, error) {
	v, err := s.db.nextVal(t, col)
	if err != nil || t.Columns[col].Hidden {
		return v, err
	}
	id := catalog.SerialSequenceID(t, col)
	s.currvals[id] = v
	s.lastSeq = id
	return v, nil
}

// nextVal returns the next value of column col of table t.
func (db *DB) nextVal(t *catalog.Table, col int) (int64, error) {
	k := seqKey{t.ID, t.Columns[col].ID}
	db.seqMu.Lock()
	defer db.seqMu.Unlock()
	b := db.seqCache[k]
	if b == nil || b.next >= b.end {
		var first int64
		err := db.engineWrite(func() (err error) {
			if err := db.keepID(t.ID); err != nil {
				return err
			}
			first, err = catalog.NextSequence(db.eng, t, k.col, seqBlockSize)
			return err
		})
		if err != nil {
			return 0, ioError(err)
		}
		b = &seqBlock{next: first, end: first + seqBlockSize}
		db.seqCache[k] = b
	}
	v := b.next
	b.next++
	return v, nil
}

// The sequences of CREATE SEQUENCE. Their definitions are catalog
// descriptors (transactional, like any DDL); their counters
// (catalog.SeqState) are read and written straight in the engine under
// seqMu, outside any transaction, so nextval and setval are never rolled
// back and two sessions never get the same value. A counter write is not
// synced on its own: the next commit's sync carries it (the WAL keeps
// order), as for serial columns.

// keepID raises the store's id floor past id, a table's or sequence's,
// before a counter is written under it: the counter outlives a rollback
// of the id's CREATE, so a restart must not give the id to another
// object (catalog.IDs).
// REQUIRES: db.seqMu held, inside db.engineWrite.
func (db *DB) keepID(id uint64) error {
	ids := db.cat.Load().IDs()
	if ids == nil {
		return nil
	}
	floor, ok := ids.Unkept(id)
	if !ok {
		return nil
	}
	if err := catalog.WriteIDFloor(db.eng, floor); err != nil {
		return err
	}
	ids.Kept(floor)
	return nil
}

// seqLogVals is PostgreSQL's SEQ_LOG_VALS: how many values a nextval
// pretends to log ahead. kvsql writes every value; the count only makes
// log_cnt read as PostgreSQL's does.
const seqLogVals = 32

// seqNext advances s and returns its new value (PostgreSQL's
// nextval_internal with a cache of one value).
func (db *DB) seqNext(s *catalog.Sequence) (int64, error) {
	db.seqMu.Lock()
	defer db.seqMu.Unlock()
	st, err := catalog.ReadSeqState(db.eng, s)
	if err != nil {
		return 0, err
	}
	st, result, err := advanceSeq(s, st)
	if err != nil {
		return 0, err
	}
	if err := db.engineWrite(func() error {
		if err := db.keepID(s.ID); err != nil {
			return err
		}
		return catalog.WriteSeqState(db.eng, s, st)
	}); err != nil {
		return 0, ioError(err)
	}
	return result, nil
}

// advanceSeq is nextval's arithmetic: the state after one nextval of s
// from st, and the value it returns.
func advanceSeq(s *catalog.Sequence, st catalog.SeqState) (catalog.SeqState, int64, error) {
	next, last, result := st.Last, st.Last, st.Last
	log, fetch, rescnt := st.LogCnt, int64(1), int64(0)
	if !st.IsCalled {
		rescnt, fetch = 1, 0
	}
	if log < fetch || !st.IsCalled {
		fetch += seqLogVals
		log = fetch
	}
	inc, lo, hi := s.Increment, s.Min, s.Max
	for fetch > 0 {
		if inc > 0 {
			if hi >= 0 && next > hi-inc || hi < 0 && next+inc > hi {
				if rescnt > 0 {
					break
				}
				if !s.Cycle {
					return st, 0, pgerror.Newf(pgerror.SequenceGeneratorLimitExceeded, "nextval: reached maximum value of sequence %q (%d)", s.Name, hi)
				}
				next = lo
			} else {
				next += inc
			}
		} else {
			if lo < 0 && next < lo-inc || lo >= 0 && next+inc < lo {
				if rescnt > 0 {
					break
				}
				if !s.Cycle {
					return st, 0, pgerror.Newf(pgerror.SequenceGeneratorLimitExceeded, "nextval: reached minimum value of sequence %q (%d)", s.Name, lo)
				}
				next = hi
			} else {
				next += inc
			}
		}
		fetch--
		if rescnt < 1 {
			log--
			rescnt++
			last, result = next, next
		}
	}
	log -= fetch
	return catalog.SeqState{Last: last, IsCalled: true, LogCnt: log}, result, nil
}

// seqSet is setval: 22003 for a value outside the sequence's bounds.
func (db *DB) seqSet(s *catalog.Sequence, v int64, isCalled bool) error {
	if v < s.Min || v > s.Max {
		return pgerror.Newf(pgerror.NumericValueOutOfRange, "setval: value %d is out of bounds for sequence %q (%d..%d)", v, s.Name, s.Min, s.Max)
	}
	db.seqMu.Lock()
	defer db.seqMu.Unlock()
	if s.SerialTable != 0 {
		// The column's counter holds the next value to hand out; the
		// block this process reserved from it is forgotten.
		next := v
		if isCalled {
			next = v + 1
		}
		delete(db.seqCache, seqKey{s.SerialTable, s.SerialColumn})
		if err := db.engineWrite(func() error {
			if err := db.keepID(s.SerialTable); err != nil {
				return err
			}
			return catalog.WriteSerialCounter(db.eng, s.SerialTable, s.SerialColumn, next)
		}); err != nil {
			return ioError(err)
		}
		return nil
	}
	if err := db.engineWrite(func() error {
		if err := db.keepID(s.ID); err != nil {
			return err
		}
		return catalog.WriteSeqState(db.eng, s, catalog.SeqState{Last: v, IsCalled: isCalled})
	}); err != nil {
		return ioError(err)
	}
	return nil
}

// seqState reads the counter of s.
func (db *DB) seqState(s *catalog.Sequence) (catalog.SeqState, error) {
	db.seqMu.Lock()
	defer db.seqMu.Unlock()
	if s.SerialTable != 0 {
		// The last value handed out: from this process's block, else
		// the stored counter (values a previous process reserved and
		// did not use count as used, as a PostgreSQL sequence's cache).
		next := int64(0)
		if b := db.seqCache[seqKey{s.SerialTable, s.SerialColumn}]; b != nil {
			next = b.next
		} else {
			n, err := catalog.ReadSerialCounter(db.eng, s.SerialTable, s.SerialColumn)
			if err != nil {
				return catalog.SeqState{}, err
			}
			next = n
		}
		if next <= 1 {
			return catalog.SeqState{Last: 1}, nil
		}
		return catalog.SeqState{Last: next - 1, IsCalled: true}, nil
	}
	return catalog.ReadSeqState(db.eng, s)
}

// seqOps implements eval.Sequences for one statement: names are looked
// up in the catalog the statement runs against, currval and lastval are
// the session's.
type seqOps struct {
	s   *Session
	cat *catalog.Catalog
}

var _ eval.Sequences = seqOps{}

// resolve finds the sequence a nextval argument names: a regclass OID
// (bigint) or text parsed as PostgreSQL parses a relation name.
func (o seqOps) resolve(ref types.Datum) (*catalog.Sequence, error) {
	if ref.Kind == types.KindInt {
		if s := o.cat.SequenceByID(o.s.database, uint64(ref.I)); s != nil {
			return s, nil
		}
		if s := o.cat.SerialSequenceByID(o.s.database, uint64(ref.I)); s != nil {
			return s, nil
		}
		return nil, pgerror.Newf(pgerror.Internal, "could not open relation with OID %d", ref.I)
	}
	written, err := planner.SequenceRefName(ref.S)
	if err != nil {
		return nil, err
	}
	name, err := o.s.planner(o.cat).LookupRef(written)
	if err != nil {
		return nil, err
	}
	s, err := o.cat.Sequence(o.s.database, name)
	if pgerror.HasCode(err, pgerror.UndefinedTable) {
		if ss := o.cat.SerialSequence(o.s.database, name); ss != nil {
			return ss, nil
		}
	}
	return s, err
}

// serialNext is nextval on a serial column's sequence: the column's
// next value, as an INSERT would take it.
func (db *DB) serialNext(cat *catalog.Catalog, s *catalog.Sequence) (int64, error) {
	tbl := cat.TableByID(s.SerialTable)
	if tbl == nil {
		return 0, pgerror.Newf(pgerror.UndefinedTable, "relation %q does not exist", s.Name)
	}
	for i, c := range tbl.Columns {
		if c.ID == s.SerialColumn {
			return db.nextVal(tbl, i)
		}
	}
	return 0, pgerror.Newf(pgerror.UndefinedTable, "relation %q does not exist", s.Name)
}

// checkWritable refuses fn (nextval, setval) in a read-only transaction:
// a sequence's counter is data, whatever its transactional behaviour.
func (o seqOps) checkWritable(fn string) error {
	if o.s.readOnlyNow() {
		return pgerror.Newf(pgerror.ReadOnlySQLTransaction, "cannot execute %s() in a read-only transaction", fn)
	}
	return nil
}

func (o seqOps) NextVal(ref types.Datum) (int64, error) {
	s, err := o.resolve(ref)
	if err != nil {
		return 0, err
	}
	if err := o.checkWritable("nextval"); err != nil {
		return 0, err
	}
	var v int64
	switch {
	case s.SerialTable != 0:
		v, err = o.s.db.serialNext(o.cat, s)
	case s.Foreign != nil:
		v, err = o.s.db.counterNext(o.cat, o.s.database, s)
	default:
		v, err = o.s.db.seqNext(s)
	}
	if err != nil {
		return 0, err
	}
	o.s.currvals[s.ID] = v
	o.s.lastSeq = s.ID
	return v, nil
}

func (o seqOps) CurrVal(ref types.Datum) (int64, error) {
	s, err := o.resolve(ref)
	if err != nil {
		return 0, err
	}
	v, ok := o.s.currvals[s.ID]
	if !ok {
		return 0, pgerror.Newf(pgerror.ObjectNotInPrerequisiteState, "currval of sequence %q is not yet defined in this session", s.Name)
	}
	return v, nil
}

func (o seqOps) SetVal(ref types.Datum, v int64, isCalled bool) (int64, error) {
	s, err := o.resolve(ref)
	if err != nil {
		return 0, err
	}
	if err := o.checkWritable("setval"); err != nil {
		return 0, err
	}
	if s.Foreign != nil {
		err = o.s.db.counterSet(o.cat, o.s.database, s, v, isCalled)
	} else {
		err = o.s.db.seqSet(s, v, isCalled)
	}
	if err != nil {
		return 0, err
	}
	if isCalled {
		o.s.currvals[s.ID] = v
	}
	return v, nil
}

func (o seqOps) LastVal() (int64, error) {
	notYet := pgerror.New(pgerror.ObjectNotInPrerequisiteState, "lastval is not yet defined in this session")
	if o.s.lastSeq == 0 {
		return 0, notYet
	}
	if o.cat.SequenceByID(o.s.database, o.s.lastSeq) == nil && o.cat.SerialSequenceByID(o.s.database, o.s.lastSeq) == nil {
		return 0, notYet
	}
	return o.s.currvals[o.s.lastSeq], nil
}

func (o seqOps) State(ref types.Datum) (last, logCnt int64, isCalled bool, err error) {
	s, err := o.resolve(ref)
	if err != nil {
		return 0, 0, false, err
	}
	var st catalog.SeqState
	if s.Foreign != nil {
		st, err = o.s.db.counterState(o.cat, o.s.database, s)
	} else {
		st, err = o.s.db.seqState(s)
	}
	return st.Last, st.LogCnt, st.IsCalled, err
}

// engineWrite runs fn, a write straight to the engine outside any
// transaction (a counter). If the engine reports that an earlier commit
// whose outcome was unknown turned out applied (kv.ErrLateCommit), fn's
// write was not applied: the late commit is recorded as commit does
// (lateCommitLocked) and fn runs once more.
func (db *DB) engineWrite(fn func() error) error {
	err := fn()
	if !errors.Is(err, kv.ErrLateCommit) {
		return err
	}
	db.mu.Lock()
	lerr := db.lateCommitLocked()
	db.mu.Unlock()
	if lerr != nil {
		return lerr
	}
	return fn()
}
