package session

import (
	"time"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/wire/backend"
)

// Settings are transactional, as PostgreSQL's are. A SET inside a
// transaction block holds until the block ends: COMMIT keeps it, ROLLBACK
// (or a failed COMMIT) takes it back, and ROLLBACK TO SAVEPOINT takes back
// what was set after the savepoint. SET LOCAL holds only until the block
// ends, committed or not; outside a block it does nothing but warn. A
// transaction keeps a journal of the values it replaced, so a savepoint
// (and each statement's mark) costs one index, and the values its COMMIT
// leaves.

// settingVal is a setting's value: its text and, for TimeZone, the zone.
type settingVal struct {
	text string
	loc  *time.Location
}

// settingChange is one journal entry: the value a SET replaced, and what
// the transaction's COMMIT would have left before it.
type settingChange struct {
	name        string
	prev        settingVal
	prevPersist settingVal
	hadPersist  bool
}

// txnSettings is a transaction's record of its SETs.
type txnSettings struct {
	journal []settingChange
	// persist holds, for each setting the transaction changed, the
	// value its COMMIT leaves: the last plain SET's, or the value before
	// the transaction's first SET LOCAL.
	persist map[string]settingVal
}

// currentLocked is the session's value of setting name.
// REQUIRES: s.mu held.
func (s *Session) currentLocked(name string) settingVal {
	v := settingVal{text: s.settings[name]}
	if name == "timezone" {
		v.loc = s.loc.Load()
	}
	return v
}

// applyLocked makes v the session's value of setting name.
// REQUIRES: s.mu held.
func (s *Session) applyLocked(name string, v settingVal) {
	s.setLocked(name, v.text)
	if name == "timezone" {
		s.loc.Store(v.loc)
	}
}

// changeSettingLocked is SET name = v (SET LOCAL when local) in the
// session's transaction block, if one is open.
// REQUIRES: s.mu held.
func (s *Session) changeSettingLocked(name string, v settingVal, local bool) {
	t := s.cur
	if t == nil {
		if local {
			s.notices = append(s.notices, backend.Notice{Severity: "WARNING",
				Err: pgerror.New(pgerror.NoActiveSQLTransaction, "SET LOCAL can only be used in transaction blocks")})
			return
		}
		s.applyLocked(name, v)
		return
	}
	ts := &t.settings
	prevPersist, had := ts.persist[name]
	ts.journal = append(ts.journal, settingChange{name: name, prev: s.currentLocked(name), prevPersist: prevPersist, hadPersist: had})
	if ts.persist == nil {
		ts.persist = map[string]settingVal{}
	}
	switch {
	case !local:
		ts.persist[name] = v
	case !had:
		ts.persist[name] = s.currentLocked(name)
	}
	s.applyLocked(name, v)
}

// undoSettings takes back t's SETs after the first mark of its journal
// (a savepoint's or a statement's mark; 0 for the whole transaction).
func (s *Session) undoSettings(t *txn, mark int) {
	ts := &t.settings
	if len(ts.journal) <= mark {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(ts.journal) - 1; i >= mark; i-- {
		c := ts.journal[i]
		s.applyLocked(c.name, c.prev)
		if c.hadPersist {
			ts.persist[c.name] = c.prevPersist
		} else {
			delete(ts.persist, c.name)
		}
	}
	ts.journal = ts.journal[:mark]
}

// endSettings settles t's SETs as t ends: committed, each setting takes
// the value COMMIT leaves; otherwise every SET is taken back.
func (s *Session) endSettings(t *txn, committed bool) {
	if t == nil || len(t.settings.journal) == 0 {
		return
	}
	if !committed {
		s.undoSettings(t, 0)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for name, v := range t.settings.persist {
		if s.currentLocked(name) != v {
			s.applyLocked(name, v)
		}
	}
	t.settings = txnSettings{}
}
