package catalog

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/kvsql/kvsql/encoding"
	"github.com/kvsql/kvsql/foreign"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// Sequence is a named counter (CREATE SEQUENCE). Its definition is a
// catalog descriptor at /1/"sequence"/db/name and changes with DDL, in
// transactions; its state (SeqState) is a separate meta key that nextval
// and setval write outside any transaction, so a value handed out is
// never handed out again, rolled back or not.
//
// Invariants: Increment != 0; Min < Max; Min <= Start <= Max; Min and Max
// fit the type.
type Sequence struct {
	// ID is allocated from the key space counter (so it is unique among
	// tables, indexes and sequences and never reused) and is the
	// sequence's OID; the sequence owns no key space.
	ID        uint64 `json:"id"`
	Name      string `json:"name"`
	Schema    string `json:"schema,omitempty"` // "" is public
	Type      string `json:"type"`             // "smallint", "integer" or "bigint"
	Start     int64  `json:"start"`
	Increment int64  `json:"increment"`
	Min       int64  `json:"min"`
	Max       int64  `json:"max"`
	Cache     int64  `json:"cache"`
	Cycle     bool   `json:"cycle,omitempty"`
	// OwnedTable and OwnedColumn name the column the sequence is OWNED BY
	// (dropped with its table), or are empty; OwnedTable is the table's
	// key (RelKey).
	OwnedTable  string    `json:"ownedTable,omitempty"`
	OwnedColumn string    `json:"ownedColumn,omitempty"`
	Comment     string    `json:"comment,omitempty"` // COMMENT ON SEQUENCE's text
	ACL         []ACLItem `json:"acl,omitempty"`     // GRANT's privileges (acl.go); nil is the default
	Owner       uint64    `json:"owner,omitempty"`   // the owning role's OID, 0 for the bootstrap superuser
	// Foreign, set on a sequence of a foreign database, is the
	// application's counter key the sequence reads and advances
	// (catalog/foreign.go); such a sequence has no SeqState of its own.
	Foreign *foreign.Counter `json:"foreign,omitempty"`
	// SerialTable and SerialColumn, set only on the synthetic sequence of
	// a serial column (SerialSequences), name the table and column ID
	// whose counter it is; Identity marks an identity column's (GENERATED
	// ... AS IDENTITY). Never stored.
	SerialTable  uint64 `json:"-"`
	SerialColumn uint32 `json:"-"`
	Identity     bool   `json:"-"`
}

// SeqState is a sequence's counter: the last value nextval returned (or
// the value the next nextval returns when !IsCalled), and PostgreSQL's
// log_cnt, kept so SELECT * FROM seq answers as PostgreSQL does.
type SeqState struct {
	Last     int64
	IsCalled bool
	LogCnt   int64
}

const (
	tagSeqDef   = "sequence" // /1/"sequence"/db/name → JSON Sequence descriptor
	tagSeqState = "seqstate" // /1/"seqstate"/id → 8-byte last value, 1 byte is_called, 8-byte log_cnt
)

// SequenceDefKey is the descriptor key of sequence name of db.
func SequenceDefKey(db, name string) []byte {
	return metaKey(text(tagSeqDef), text(db), text(name))
}

func sequenceDefPrefix(db string) []byte { return metaKey(text(tagSeqDef), text(db)) }

// SeqStateKey is the key of the counter of the sequence with that ID.
func SeqStateKey(id uint64) []byte {
	return metaKey(text(tagSeqState), types.NewInt(int64(id)))
}

// SequenceTypeBounds returns the range of a sequence's data type.
func SequenceTypeBounds(typ string) (lo, hi int64, ok bool) {
	switch typ {
	case "smallint":
		return math.MinInt16, math.MaxInt16, true
	case "integer":
		return math.MinInt32, math.MaxInt32, true
	case "bigint":
		return math.MinInt64, math.MaxInt64, true
	}
	return 0, 0, false
}

// ReadSeqState reads the counter of s from r. A sequence whose counter
// was never written is at its start, not yet called.
func ReadSeqState(r kv.Reader, s *Sequence) (SeqState, error) {
	v, err := r.Get(SeqStateKey(s.ID))
	if errors.Is(err, kv.ErrNotFound) {
		return SeqState{Last: s.Start}, nil
	}
	if err != nil {
		return SeqState{}, err
	}
	if len(v) != 17 {
		return SeqState{}, pgerror.Newf(pgerror.DataCorrupted, "catalog: sequence %q state has %d bytes, want 17", s.Name, len(v))
	}
	return SeqState{
		Last:     int64(binary.BigEndian.Uint64(v)),
		IsCalled: v[8] == 1,
		LogCnt:   int64(binary.BigEndian.Uint64(v[9:])),
	}, nil
}

// WriteSeqState writes the counter of s.
func WriteSeqState(w kv.Writer, s *Sequence, st SeqState) error {
	b := binary.BigEndian.AppendUint64(make([]byte, 0, 17), uint64(st.Last))
	called := byte(0)
	if st.IsCalled {
		called = 1
	}
	b = append(b, called)
	b = binary.BigEndian.AppendUint64(b, uint64(st.LogCnt))
	return w.Set(SeqStateKey(s.ID), b)
}

// Sequences returns the sequences of db sorted by name, or 3D000.
func (c *Catalog) Sequences(db string) ([]*Sequence, error) {
	d, err := c.Database(db)
	if err != nil {
		return nil, err
	}
	out := make([]*Sequence, 0, len(d.Sequences))
	for _, s := range d.Sequences {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Sequence returns the named sequence: 42P01 when no relation has the
// name, 42809 when the relation is not a sequence.
func (c *Catalog) Sequence(db, name string) (*Sequence, error) {
	d, err := c.Database(db)
	if err != nil {
		return nil, err
	}
	if s, ok := d.Sequences[name]; ok {
		return s, nil
	}
	if c.relationExists(d, name) != nil {
		return nil, pgerror.Newf(pgerror.WrongObjectType, "%q is not a sequence", DisplayName(name))
	}
	return nil, pgerror.Newf(pgerror.UndefinedTable, "relation %q does not exist", DisplayName(name))
}

// SequenceByID returns the sequence of db with that ID, or nil.
func (c *Catalog) SequenceByID(db string, id uint64) *Sequence {
	d, ok := c.dbs[db]
	if !ok {
		return nil
	}
	for _, s := range d.Sequences {
		if s.ID == id {
			return s
		}
	}
	return nil
}

// CheckSequence validates a sequence definition as PostgreSQL's
// init_params does (22023 for each bad combination).
func CheckSequence(s *Sequence) error {
	lo, hi, ok := SequenceTypeBounds(s.Type)
	if !ok {
		return pgerror.New(pgerror.InvalidParameterValue, "sequence type must be smallint, integer, or bigint")
	}
	switch {
	case s.Increment == 0:
		return pgerror.New(pgerror.InvalidParameterValue, "INCREMENT must not be zero")
	case s.Max < lo || s.Max > hi:
		return pgerror.Newf(pgerror.InvalidParameterValue, "MAXVALUE (%d) is out of range for sequence data type %s", s.Max, s.Type)
	case s.Min < lo || s.Min > hi:
		return pgerror.Newf(pgerror.InvalidParameterValue, "MINVALUE (%d) is out of range for sequence data type %s", s.Min, s.Type)
	case s.Min >= s.Max:
		return pgerror.Newf(pgerror.InvalidParameterValue, "MINVALUE (%d) must be less than MAXVALUE (%d)", s.Min, s.Max)
	case s.Start < s.Min:
		return pgerror.Newf(pgerror.InvalidParameterValue, "START value (%d) cannot be less than MINVALUE (%d)", s.Start, s.Min)
	case s.Start > s.Max:
		return pgerror.Newf(pgerror.InvalidParameterValue, "START value (%d) cannot be greater than MAXVALUE (%d)", s.Start, s.Max)
	case s.Cache <= 0:
		return pgerror.Newf(pgerror.InvalidParameterValue, "CACHE (%d) must be greater than zero", s.Cache)
	}
	return nil
}

// CreateSequence adds a sequence to db: 42P07 when a relation has its
// name, 22023 for a bad definition. The counter starts unwritten (at
// Start, not called).
func (c *Catalog) CreateSequence(w kv.Writer, db string, s Sequence) (*Catalog, *Sequence, error) {
	d, err := c.Database(db)
	if err != nil {
		return nil, nil, err
	}
	if err := c.relationExists(d, s.Name); err != nil {
		return nil, nil, err
	}
	if err := CheckSequence(&s); err != nil {
		return nil, nil, err
	}
	n := c.clone()
	ns := s
	ns.ID = n.allocID()
	ns.Schema, ns.Name = schemaField(s.Name)
	if err := writeJSON(w, sequenceKeyOf(db, ns.Key()), &ns); err != nil {
		return nil, nil, err
	}
	if err := writeNextID(w, n.nextID); err != nil {
		return nil, nil, err
	}
	n.cloneDB(db).Sequences[ns.Key()] = &ns
	return n, &ns, nil
}

// AlterSequence replaces the definition of an existing sequence (same
// name and ID) with s after checking it.
func (c *Catalog) AlterSequence(w kv.Writer, db string, s Sequence) (*Catalog, error) {
	old, err := c.Sequence(db, s.Key())
	if err != nil {
		return nil, err
	}
	if err := CheckForeignSequence(old, "ALTER SEQUENCE"); err != nil {
		return nil, err
	}
	if old.ID != s.ID {
		return nil, pgerror.Newf(pgerror.Internal, "catalog: sequence %q changed identity", s.Name)
	}
	if err := CheckSequence(&s); err != nil {
		return nil, err
	}
	ns := s
	if err := writeJSON(w, sequenceKeyOf(db, ns.Key()), &ns); err != nil {
		return nil, err
	}
	n := c.clone()
	n.cloneDB(db).Sequences[ns.Key()] = &ns
	return n, nil
}

// DropSequence removes a sequence and its counter: 42P01 `sequence "x"
// does not exist`, or 42809 when the name is another kind of relation.
func (c *Catalog) DropSequence(w kv.Writer, db, name string) (*Catalog, error) {
	d, err := c.Database(db)
	if err != nil {
		return nil, err
	}
	s, ok := d.Sequences[name]
	if !ok {
		if c.relationExists(d, name) != nil {
			e := pgerror.Newf(pgerror.WrongObjectType, "%q is not a sequence", name)
			e.Hint = dropHint(d, name)
			return nil, e
		}
		return nil, pgerror.Newf(pgerror.UndefinedTable, "sequence %q does not exist", DisplayName(name))
	}
	if err := CheckForeignSequence(s, "DROP SEQUENCE"); err != nil {
		return nil, err
	}
	if err := w.Delete(sequenceKeyOf(db, name)); err != nil {
		return nil, err
	}
	if err := w.Delete(SeqStateKey(s.ID)); err != nil {
		return nil, err
	}
	n := c.clone()
	delete(n.cloneDB(db).Sequences, name)
	return n, nil
}

// RenameSequence renames sequence name to newName (ALTER SEQUENCE / ALTER
// TABLE ... RENAME TO): 42P01 when there is no such sequence, 42P07 when
// a relation is called newName. The counter is keyed by ID and stays.
func (c *Catalog) RenameSequence(w kv.Writer, db, name, newName string) (*Catalog, error) {
	d, err := c.Database(db)
	if err != nil {
		return nil, err
	}
	s, ok := d.Sequences[name]
	if !ok {
		return nil, pgerror.Newf(pgerror.UndefinedTable, "sequence %q does not exist", name)
	}
	if err := CheckForeignSequence(s, "ALTER SEQUENCE ... RENAME"); err != nil {
		return nil, err
	}
	if err := c.relationExists(d, newName); err != nil {
		return nil, err
	}
	ns := *s
	ns.Name = newName
	if err := w.Delete(SequenceDefKey(db, name)); err != nil {
		return nil, err
	}
	if err := writeJSON(w, SequenceDefKey(db, newName), &ns); err != nil {
		return nil, err
	}
	n := c.clone()
	seqs := n.cloneDB(db).Sequences
	delete(seqs, name)
	seqs[newName] = &ns
	return n, nil
}

func dropHint(d *Database, name string) string {
	switch {
	case d.Tables[name] != nil:
		return "Use DROP TABLE to remove a table."
	case d.Views[name] != nil:
		return "Use DROP VIEW to remove a view."
	}
	return "Use DROP INDEX to remove an index."
}

// OwnedSequences returns the names of the sequences of db OWNED BY a
// column of table.
func (c *Catalog) OwnedSequences(db, table string) []string {
	d, ok := c.dbs[db]
	if !ok {
		return nil
	}
	var out []string
	for _, s := range d.Sequences {
		if s.OwnedTable == table {
			out = append(out, s.Name)
		}
	}
	sort.Strings(out)
	return out
}

func (s *Sequence) String() string { return fmt.Sprintf("sequence %q", s.Name) }

// loadSequence decodes a sequence descriptor read by Load.
func loadSequence(c *Catalog, key []byte, parts []types.Datum, value []byte) error {
	if len(parts) != 3 && len(parts) != 4 {
		return corrupt(key, errors.New("want /sequence/db/[schema/]name"))
	}
	s := new(Sequence)
	if err := json.Unmarshal(value, s); err != nil {
		return corrupt(key, err)
	}
	d, ok := c.dbs[parts[1].S]
	if !ok {
		return pgerror.Newf(pgerror.DataCorrupted, "catalog: sequence %q belongs to missing database %q at %s", s.Name, parts[1].S, encoding.Pretty(key))
	}
	d.Sequences[s.Key()] = s
	return nil
}
