package kv

import (
	"errors"
	"fmt"
)

// Ingester is an optional capability of an Engine: applying a large set
// of point writes, supplied in key order, at once. Pebble writes them
// into sstables and links those into its LSM (DB.Ingest), bypassing the
// memtable and the write-ahead log, as CockroachDB's IMPORT and index
// backfills do; the memory engine applies them as one Batch. Txn.Commit
// uses it for a big write buffer (IngestThreshold), so no package above
// kv needs to know which engine it runs on.
//
// Contract of Ingest:
//   - fill calls the SortedWriter once per key, in strictly increasing key
//     order; a key out of order or repeated makes Ingest fail and apply
//     nothing.
//   - The writes become visible atomically, as one Batch commit of the same
//     writes would: a Snapshot or iterator opened before Ingest returns
//     either sees all of them or none (Pebble: none, since the ingested
//     files get a sequence number above every open snapshot).
//   - When Ingest returns nil the writes are durable, and so is every
//     write applied to the engine before the call (Pebble syncs its
//     write-ahead log first), so a crash never keeps an ingest without the
//     commits that preceded it.
//   - On error nothing was applied; temporary files are removed (Pebble
//     also removes leftovers of a crash at the next open).
type Ingester interface {
	Ingest(fill func(w SortedWriter) error) error
}

// SortedWriter receives the writes of an Ingest in strictly increasing
// key order. Keys and values are copied or consumed before each call
// returns; the caller may reuse them.
type SortedWriter interface {
	Set(key, value []byte) error
	Delete(key []byte) error
	Merge(key, operand []byte) error
}

// IngestThreshold is the size in bytes (keys plus values) of a Txn's
// write buffer from which Commit applies it by Ingest on an engine that
// has it. Below it a Batch is cheaper: an ingest costs a few file syncs
// (the sstable, the WAL before it, the MANIFEST) whatever its size, and
// small sstables would pile up in the LSM.
var IngestThreshold int64 = 4 << 20

// ErrIngestOrder is returned by Ingest when fill supplies a key that is
// not greater than the one before it.
var ErrIngestOrder = errors.New("kv: ingest: keys out of order")

// orderCheck verifies that keys arrive strictly increasing.
type orderCheck struct {
	last []byte
	n    int
}

func (c *orderCheck) next(key []byte) error {
	if c.n > 0 && string(key) <= string(c.last) {
		return fmt.Errorf("%w: key %d not after the previous one", ErrIngestOrder, c.n)
	}
	c.last = append(c.last[:0], key...)
	c.n++
	return nil
}

// Ingest implements Ingester for the memory engine: the writes are
// collected into one Batch and committed, which is atomic and, in memory,
// as durable as anything is.
func (e *memEngine) Ingest(fill func(w SortedWriter) error) error {
	b := e.NewBatch()
	defer b.Close()
	w := &batchSortedWriter{b: b}
	if err := fill(w); err != nil {
		return err
	}
	return b.Commit(true)
}

var _ Ingester = (*memEngine)(nil)

// batchSortedWriter is a SortedWriter into a Batch that checks the order.
type batchSortedWriter struct {
	b     Batch
	order orderCheck
}

func (w *batchSortedWriter) Set(key, value []byte) error {
	if err := w.order.next(key); err != nil {
		return err
	}
	return w.b.Set(key, value)
}

func (w *batchSortedWriter) Delete(key []byte) error {
	if err := w.order.next(key); err != nil {
		return err
	}
	return w.b.Delete(key)
}

func (w *batchSortedWriter) Merge(key, operand []byte) error {
	if err := w.order.next(key); err != nil {
		return err
	}
	return w.b.Merge(key, operand)
}
