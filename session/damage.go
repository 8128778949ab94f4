package session

import (
	"errors"
	"fmt"
	"log"
	"path/filepath"
	"strings"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/encoding"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
)

// Damaged storage, as the client sees it (kv/corruption.go has the
// engine's side):
//
//   - a read that meets a damaged block fails with XX001 data_corrupted,
//     naming the table or index it was reading and the damaged file;
//     reads of everything else go on working;
//   - from the first damage found on, every write (DML, DDL, COPY FROM,
//     COMMIT of a writing transaction) fails with 25006
//     read_only_sql_transaction, the code PostgreSQL gives for writes on
//     a read-only server (a hot standby), so that nothing new is built
//     on damaged data until an operator has run `kvsql check`;
//   - the server logs one line per damaged file (logDamage).

// Damage returns the first damage the store found (now or in an earlier
// run, see kv.DamageFile), or nil: while it is set the store is
// read-only.
func (db *DB) Damage() *kv.CorruptionError { return kv.DamageOf(db.eng) }

// damagedErr is the 25006 a write gets on a damaged store, or nil.
func (db *DB) damagedErr(cmd string) error {
	d := db.Damage()
	if d == nil {
		return nil
	}
	if cmd == "" {
		cmd = "a write"
	}
	e := pgerror.Newf(pgerror.ReadOnlySQLTransaction, "cannot execute %s: the database is read-only because damaged data was found in %s", cmd, fileName(d.File))
	e.Hint = "Reads of undamaged tables still work. Stop the server and run `kvsql check`; see the operations guide (docs/operations.md)."
	return e
}

// storageError turns an error caused by damaged storage into what the
// client sees: XX001 naming what was being read, or 25006 for a write
// the damaged store refused. Other errors are returned unchanged.
func (db *DB) storageError(err error) error {
	if err == nil {
		return nil
	}
	var ce *kv.CorruptionError
	if errors.As(err, &ce) {
		what := "the database"
		var table string
		if sp, ok := db.spaceRead(ce); ok {
			what, table = sp.String(), tableName(sp)
		}
		e := pgerror.Newf(pgerror.DataCorrupted, "could not read %s: data is corrupted in %s: %v", what, fileName(ce.File), firstLine(ce.Err))
		if table != "" {
			e.OnTable(table)
		}
		e.Hint = "The database is now read-only. Stop the server and run `kvsql check`; see the operations guide (docs/operations.md)."
		return e
	}
	if errors.Is(err, kv.ErrStoreDamaged) {
		if e := db.damagedErr(""); e != nil {
			return e
		}
	}
	if kv.IsDiskFull(err) {
		return ioError(err)
	}
	return err
}

// spaceRead names the key space the failed read was in: the key read,
// else the first space of the damaged file's range.
func (db *DB) spaceRead(ce *kv.CorruptionError) (catalog.Space, bool) {
	cat := db.Catalog()
	if cat == nil {
		return catalog.Space{}, false
	}
	if ce.Read != nil {
		return cat.SpaceOf(ce.Read)
	}
	if sp := cat.SpacesIn(ce.Lo, ce.Hi); len(sp) > 0 {
		return sp[0], true
	}
	return catalog.Space{}, false
}

func tableName(sp catalog.Space) string {
	if sp.Table == nil {
		return ""
	}
	return sp.Table.Name
}

// logDamage is the engine's OnDamage: one line per damaged file, naming
// the file, what its damaged key range holds and what to do.
func (db *DB) logDamage(ce *kv.CorruptionError) {
	log.Print(DamageLine(db.Catalog(), ce))
}

// DamageLine is the log line for damage ce: the file, the key range and
// the tables and indexes it holds (names from cat, which may be nil),
// and what to do.
func DamageLine(cat *catalog.Catalog, ce *kv.CorruptionError) string {
	return fmt.Sprintf("kvsql: DATA CORRUPTION in %s (%s): %v; the database is now read-only: reads of other tables go on, writes get 25006; stop the server, run `kvsql check --data DIR`, then `kvsql check --repair` or restore from a backup (docs/operations.md)",
		ce.File, DescribeRange(cat, ce.Lo, ce.Hi), firstLine(ce.Err))
}

// DescribeRange says what the keys in [lo, hi] hold: the key range
// pretty-printed and the tables and indexes in it.
func DescribeRange(cat *catalog.Catalog, lo, hi []byte) string {
	if lo == nil && hi == nil {
		return "key range unknown"
	}
	s := fmt.Sprintf("keys %s to %s", encoding.Pretty(lo), encoding.Pretty(hi))
	if cat == nil {
		return s
	}
	var names []string
	for _, sp := range cat.SpacesIn(lo, hi) {
		names = append(names, sp.String())
	}
	if len(names) > 0 {
		s += ": " + strings.Join(names, ", ")
	}
	return s
}

func fileName(path string) string {
	if path == "" {
		return "the store"
	}
	return filepath.Base(path)
}

func firstLine(err error) string {
	s := fmt.Sprint(err)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
