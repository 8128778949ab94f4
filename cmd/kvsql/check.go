package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/encoding"
	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/session"
)

// errInconsistent is returned by `kvsql check` when it found problems, so
// that the program exits with status 1.
var errInconsistent = errors.New("check: the store is damaged or inconsistent")

// runCheck implements `kvsql check [--data DIR | --store SPEC] [--repair]`
// on a stopped server's store (for a store other than Pebble, only step 2
// below applies: see checkStore). It checks, in order:
//
//  1. the storage (kv.VerifyPebble): the live write-ahead logs, that the
//     MANIFEST opens, and every block checksum of every sstable; each
//     damaged file is named with its key range and the tables and indexes
//     that range holds;
//  2. index ↔ master agreement (index.CheckTable): every index entry
//     points at a live master row and every master row has its entries.
//
// With --repair it then rebuilds what can be rebuilt: an index whose
// storage is damaged or that disagrees with its master file is removed
// (kv.Excise: its damaged blocks are never read again) and written anew
// from the master rows. Damage to a master file, the catalog or the WAL
// cannot be rebuilt and is reported. When the storage checks clean
// afterwards the damage record (kv.DamageFile) is removed and the server
// starts read-write again.
func runCheck(args []string) error { return checkCmd(args, os.Stdout) }

func checkCmd(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	data := fs.String("data", "./kvsql-data", "data directory")
	store := fs.String("store", "", "the store to check: pebble:DIR, or etcd://HOST:PORT,... (index checks only; docs/distributed.md)")
	repair := fs.Bool("repair", false, "rebuild damaged or inconsistent indexes from their master files")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if s := *store; s != "" {
		if !strings.HasPrefix(s, "pebble:") {
			return checkStore(s, *repair, stdout)
		}
		*data = strings.TrimPrefix(s, "pebble:")
	}
	if _, err := os.Stat(*data); err != nil {
		return fmt.Errorf("check: %w", err)
	}
	c := &checker{dir: *data, out: stdout, progress: newProgressLine()}
	defer c.progress.clear()
	if err := c.run(); err != nil {
		return err
	}
	if *repair && c.problems > 0 {
		return c.repair()
	}
	if c.problems > 0 {
		return fmt.Errorf("%w: %d problem(s)", errInconsistent, c.problems)
	}
	if len(c.ver.Recorded) > 0 {
		c.printf("note: %s records damage found earlier, but none is there now; remove it (or run with --repair) to start read-write\n", filepath.Join(c.dir, kv.DamageFile))
		if *repair {
			return c.clearRecord()
		}
	}
	c.printf("ok\n")
	return nil
}

// checker is one run of `kvsql check`.
type checker struct {
	dir string
	out io.Writer
	ver *kv.Verification
	cat *catalog.Catalog
	// problems counts everything reported; rebuild lists the indexes a
	// repair would rebuild, unrepairable what it cannot.
	problems     int
	rebuild      []catalog.Space
	unrepairable []string
	// progress shows the table or index at work on a terminal (nil: none).
	progress *progressLine
}

func (c *checker) printf(format string, args ...any) {
	c.progress.clear()
	fmt.Fprintf(c.out, format, args...)
}

// run checks the storage, then the indexes.
func (c *checker) run() error {
	c.progress.phase("checking the storage's files in %s", c.dir)
	v, err := kv.VerifyPebble(nil, c.dir)
	if err != nil {
		return err
	}
	c.ver = v
	if v.WAL != nil {
		c.problems++
		c.printf("damaged: %v\n", v.WAL)
		c.unrepairable = append(c.unrepairable, "the write-ahead log (restore the data directory from a backup)")
	}
	if v.Manifest != nil {
		c.problems++
		c.printf("damaged: the MANIFEST (or another file read at open): %v\n", firstLine(v.Manifest))
		c.unrepairable = append(c.unrepairable, "the MANIFEST (restore the data directory from a backup)")
		return nil
	}
	c.printf("storage: %d sstables, %d blocks checked\n", v.Tables, v.Blocks)
	// The catalog names the key ranges; a store recorded as damaged opens
	// read-only, which is all a check needs.
	e, err := kv.OpenPebble(c.dir, kv.PebbleOptions{ReadOnly: true, OnDamage: func(*kv.CorruptionError) {}})
	if err != nil {
		return err
	}
	defer e.Close()
	cat, catErr := catalog.Open(e)
	c.cat = cat
	for _, d := range v.Damaged {
		c.problems++
		c.printf("damaged: %s: %s\n  holds %s\n", filepath.Base(d.File), firstLine(d.Err), session.DescribeRange(cat, d.Lo, d.Hi))
		if cat == nil {
			continue
		}
		for _, sp := range cat.SpacesIn(d.Lo, d.Hi) {
			c.plan(sp, filepath.Base(d.File))
		}
	}
	if catErr != nil {
		c.problems++
		c.printf("damaged: the catalog cannot be read: %v\n", catErr)
		c.unrepairable = append(c.unrepairable, "the catalog (restore the data directory from a backup)")
		return nil
	}
	return c.checkIndexes(e)
}

// plan records what a repair does about damage to sp.
func (c *checker) plan(sp catalog.Space, file string) {
	if sp.Rebuildable() {
		c.addRebuild(sp)
		return
	}
	c.unrepairable = append(c.unrepairable, fmt.Sprintf("%s in %s (restore from a backup)", sp, file))
}

func (c *checker) addRebuild(sp catalog.Space) {
	for _, r := range c.rebuild {
		if r.ID == sp.ID {
			return
		}
	}
	c.rebuild = append(c.rebuild, sp)
}

// checkIndexes runs index.CheckTable on every table; a table whose
// storage is damaged is reported as not checkable.
func (c *checker) checkIndexes(e kv.Engine) error {
	snap := e.NewSnapshot()
	defer snap.Close()
	for _, db := range c.cat.Databases() {
		tables, err := c.cat.Tables(db)
		if err != nil {
			return err
		}
		for i, t := range tables {
			c.progress.show("checking the indexes of %s.%s (table %d of %d)", db, t.Name, i+1, len(tables))
			probs, err := index.CheckTable(snap, t)
			if errors.Is(err, kv.ErrCorruption) {
				c.problems++
				c.printf("%s: cannot check its indexes: %v\n", t.Name, firstLine(err))
				continue
			}
			if err != nil {
				return err
			}
			for _, p := range probs {
				c.problems++
				c.printf("%s\n", p)
				for _, idx := range t.Indexes {
					if p.Index == idx.Name {
						c.addRebuild(catalog.Space{ID: idx.ID, DB: db, Table: t, Index: idx})
					}
				}
			}
		}
	}
	return nil
}

// repair rebuilds c.rebuild and reports c.unrepairable.
func (c *checker) repair() error {
	if c.cat != nil && len(c.rebuild) > 0 {
		e, err := kv.OpenPebble(c.dir, kv.PebbleOptions{Repair: true, OnDamage: func(*kv.CorruptionError) {}})
		if err != nil {
			return err
		}
		for _, sp := range c.rebuild {
			done := func(rows int64) { c.progress.show("rebuilding %s: %d rows", sp, rows) }
			if err := rebuildIndex(e, sp, done); err != nil {
				_ = e.Close()
				return fmt.Errorf("repair: %s: %w", sp, err)
			}
			c.printf("repaired: rebuilt %s from its master file\n", sp)
		}
		if err := e.Close(); err != nil {
			return err
		}
	}
	for _, u := range c.unrepairable {
		c.printf("cannot repair: %s\n", u)
	}
	// Check again: what is left is what the repair could not do.
	again := &checker{dir: c.dir, out: io.Discard, progress: c.progress}
	if err := again.run(); err != nil {
		return err
	}
	if again.problems > 0 {
		return fmt.Errorf("%w: %d problem(s) left after repair", errInconsistent, again.problems)
	}
	return c.clearRecord()
}

// clearRecord removes the damage record, so the server starts read-write.
func (c *checker) clearRecord() error {
	if len(c.ver.Recorded) > 0 {
		if err := kv.ClearDamage(nil, c.dir); err != nil {
			return err
		}
		c.printf("removed %s: the server will start read-write\n", kv.DamageFile)
	}
	c.printf("ok\n")
	return nil
}

// checkStore is `kvsql check --store SPEC` on a store that is not a Pebble
// directory: there are no files to verify, so it checks index ↔ master
// agreement through the engine, and with repair rebuilds the indexes
// that disagree (deleting their keys, then writing them from the rows).
func checkStore(spec string, repair bool, stdout io.Writer) error {
	e, err := kv.OpenStore(spec)
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	defer e.Close()
	cat, err := catalog.Open(e)
	if err != nil {
		return fmt.Errorf("check: the catalog cannot be read: %w", err)
	}
	c := &checker{out: stdout, cat: cat, ver: &kv.Verification{}, progress: newProgressLine()}
	defer c.progress.clear()
	if err := c.checkIndexes(e); err != nil {
		return err
	}
	if c.problems == 0 {
		c.printf("ok\n")
		return nil
	}
	if !repair {
		return fmt.Errorf("%w: %d problem(s)", errInconsistent, c.problems)
	}
	for _, sp := range c.rebuild {
		start := catalog.SpacePrefix(sp.ID)
		if err := e.DeleteRange(start, encoding.PrefixEnd(start)); err != nil {
			return fmt.Errorf("repair: %s: %w", sp, err)
		}
		done := func(rows int64) { c.progress.show("rebuilding %s: %d rows", sp, rows) }
		if err := index.Backfill(e, sp.Table, sp.Index, done); err != nil {
			return fmt.Errorf("repair: %s: %w", sp, err)
		}
		c.printf("repaired: rebuilt %s from its master file\n", sp)
	}
	again := &checker{out: io.Discard, cat: cat, ver: c.ver, progress: c.progress}
	if err := again.checkIndexes(e); err != nil {
		return err
	}
	if again.problems > 0 {
		return fmt.Errorf("%w: %d problem(s) left after repair", errInconsistent, again.problems)
	}
	c.printf("ok\n")
	return nil
}

// rebuildIndex removes every key of the index's space without reading it
// and writes the index anew from the master rows, telling progress how
// many rows are done.
func rebuildIndex(e kv.Engine, sp catalog.Space, progress func(rows int64)) error {
	start := catalog.SpacePrefix(sp.ID)
	if err := kv.Excise(e, start, encoding.PrefixEnd(start)); err != nil {
		return err
	}
	if err := index.Backfill(e, sp.Table, sp.Index, progress); err != nil {
		return err
	}
	return e.Flush()
}

func firstLine(err error) string {
	s := fmt.Sprint(err)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
