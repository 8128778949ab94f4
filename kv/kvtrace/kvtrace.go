package kvtrace

import (
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/kvsql/kvsql/encoding"
	"github.com/kvsql/kvsql/kv"
)

// Engine is a kv.Engine that forwards every call to an inner engine and,
// while enabled, reports each operation to a log function. It is safe
// for concurrent use when the inner engine is.
type Engine struct {
	inner kv.Engine
	log   func(op string)
	on    atomic.Bool
	// FormatValue renders a value read or written at key. Set it before
	// the Engine is used; nil means DefaultFormatValue.
	FormatValue func(key, value []byte) string
}

var _ kv.Engine = (*Engine)(nil)

// Wrap returns e wrapped so that every operation is reported to log, with
// logging enabled. The result is an *Engine.
func Wrap(e kv.Engine, log func(op string)) kv.Engine { return New(e, log) }

// New is Wrap returning the concrete type, for callers that want
// SetEnabled or FormatValue.
func New(e kv.Engine, log func(op string)) *Engine {
	t := &Engine{inner: e, log: log}
	t.on.Store(true)
	return t
}

// SetEnabled turns logging on or off; it returns the previous setting.
func (t *Engine) SetEnabled(on bool) bool { return t.on.Swap(on) }

// Enabled reports whether logging is on.
func (t *Engine) Enabled() bool { return t.on.Load() }

// Inner returns the wrapped engine.
func (t *Engine) Inner() kv.Engine { return t.inner }

// DefaultFormatValue renders an empty value as "(empty)" and anything
// else with encoding.PrettyRow.
func DefaultFormatValue(_, value []byte) string {
	if len(value) == 0 {
		return "(empty)"
	}
	return encoding.PrettyRow(value)
}

func (t *Engine) logf(format string, args ...any) {
	if t.on.Load() && t.log != nil {
		t.log(fmt.Sprintf(format, args...))
	}
}

func (t *Engine) value(key, value []byte) string {
	if t.FormatValue != nil {
		return t.FormatValue(key, value)
	}
	return DefaultFormatValue(key, value)
}

// bounds renders an iterator's key range as [lo, hi).
func bounds(o kv.IterOptions) string {
	lo, hi := "/Min", "/Max"
	if o.LowerBound != nil {
		lo = PrettyBound(o.LowerBound)
	}
	if o.UpperBound != nil {
		hi = PrettyBound(o.UpperBound)
	}
	return "[" + lo + ", " + hi + ")"
}

// PrettyBound renders an iterator bound. Bounds are often the successor
// of a key prefix (its last byte incremented, "PrefixEnd"), which does
// not decode; such a bound is shown as the prefix followed by
// "/PrefixEnd", for example /101/"Paris"/PrefixEnd. Anything else is
// rendered by encoding.Pretty.
func PrettyBound(b []byte) string {
	s := encoding.Pretty(b)
	if !strings.Contains(s, "!bad:") || len(b) == 0 || b[len(b)-1] == 0 {
		return s
	}
	prev := append([]byte(nil), b...)
	prev[len(prev)-1]--
	if p := encoding.Pretty(prev); !strings.Contains(p, "!bad:") {
		return p + "/PrefixEnd"
	}
	return s
}

// get logs and performs a Get on r; prefix names the reader.
func (t *Engine) get(r kv.Reader, prefix string, key []byte) ([]byte, error) {
	v, err := r.Get(key)
	if !t.on.Load() {
		return v, err
	}
	switch {
	case err == kv.ErrNotFound:
		t.logf("%sget %s -> not found", prefix, encoding.Pretty(key))
	case err != nil:
		t.logf("%sget %s -> error: %v", prefix, encoding.Pretty(key), err)
	default:
		t.logf("%sget %s -> %s", prefix, encoding.Pretty(key), t.value(key, v))
	}
	return v, err
}

func (t *Engine) newIter(r kv.Reader, prefix string, opts kv.IterOptions) (kv.Iterator, error) {
	it, err := r.NewIter(opts)
	if err != nil {
		t.logf("%siter %s -> error: %v", prefix, bounds(opts), err)
		return nil, err
	}
	return &iter{t: t, inner: it, prefix: prefix + "iter", bounds: bounds(opts)}, nil
}

// Get implements kv.Reader.
func (t *Engine) Get(key []byte) ([]byte, error) { return t.get(t.inner, "", key) }

// NewIter implements kv.Reader.
func (t *Engine) NewIter(opts kv.IterOptions) (kv.Iterator, error) {
	return t.newIter(t.inner, "", opts)
}

// Set implements kv.Writer.
func (t *Engine) Set(key, value []byte) error {
	t.logf("set %s = %s", encoding.Pretty(key), t.value(key, value))
	return t.inner.Set(key, value)
}

// Delete implements kv.Writer.
func (t *Engine) Delete(key []byte) error {
	t.logf("delete %s", encoding.Pretty(key))
	return t.inner.Delete(key)
}

// DeleteRange implements kv.Writer.
func (t *Engine) DeleteRange(start, end []byte) error {
	t.logf("delete-range [%s, %s)", encoding.Pretty(start), encoding.Pretty(end))
	return t.inner.DeleteRange(start, end)
}

// Merge implements kv.Writer.
func (t *Engine) Merge(key, operand []byte) error {
	t.logf("merge %s += %s", encoding.Pretty(key), t.value(key, operand))
	return t.inner.Merge(key, operand)
}

// NewBatch implements kv.Engine; the batch logs its writes and commit.
func (t *Engine) NewBatch() kv.Batch { return &batch{t: t, inner: t.inner.NewBatch()} }

// NewSnapshot implements kv.Engine; the snapshot logs its reads with the
// prefix "snap.".
func (t *Engine) NewSnapshot() kv.Snapshot {
	return &snapshot{t: t, inner: t.inner.NewSnapshot()}
}

// Flush implements kv.Engine.
func (t *Engine) Flush() error {
	t.logf("flush")
	return t.inner.Flush()
}

// Compact implements kv.Engine.
func (t *Engine) Compact(start, end []byte) error {
	t.logf("compact [%s, %s)", PrettyBound(start), PrettyBound(end))
	return t.inner.Compact(start, end)
}

// Close implements kv.Engine. It is not logged.
func (t *Engine) Close() error { return t.inner.Close() }

// snapshot is a kv.Snapshot whose reads are logged.
type snapshot struct {
	t     *Engine
	inner kv.Snapshot
}

var _ kv.Snapshot = (*snapshot)(nil)

func (s *snapshot) Get(key []byte) ([]byte, error) { return s.t.get(s.inner, "snap.", key) }

func (s *snapshot) NewIter(opts kv.IterOptions) (kv.Iterator, error) {
	return s.t.newIter(s.inner, "snap.", opts)
}

func (s *snapshot) Close() error { return s.inner.Close() }

// batch is a kv.Batch whose writes and commit are logged.
type batch struct {
	t     *Engine
	inner kv.Batch
}

var _ kv.Batch = (*batch)(nil)

func (b *batch) Set(key, value []byte) error {
	b.t.logf("batch set %s = %s", encoding.Pretty(key), b.t.value(key, value))
	return b.inner.Set(key, value)
}

func (b *batch) Delete(key []byte) error {
	b.t.logf("batch delete %s", encoding.Pretty(key))
	return b.inner.Delete(key)
}

func (b *batch) DeleteRange(start, end []byte) error {
	b.t.logf("batch delete-range [%s, %s)", encoding.Pretty(start), encoding.Pretty(end))
	return b.inner.DeleteRange(start, end)
}

func (b *batch) Merge(key, operand []byte) error {
	b.t.logf("batch merge %s += %s", encoding.Pretty(key), b.t.value(key, operand))
	return b.inner.Merge(key, operand)
}

func (b *batch) Commit(sync bool) error {
	err := b.inner.Commit(sync)
	if err != nil {
		b.t.logf("batch commit (%d ops) -> error: %v", b.inner.Count(), err)
	} else {
		b.t.logf("batch commit (%d ops)", b.inner.Count())
	}
	return err
}

func (b *batch) Count() int   { return b.inner.Count() }
func (b *batch) Close() error { return b.inner.Close() }

// iter is a kv.Iterator whose positioning calls are logged with the key
// they land on.
type iter struct {
	t      *Engine
	inner  kv.Iterator
	prefix string
	bounds string
	// opened records whether the bounds were logged: the first
	// positioning call shows them, later ones do not repeat them.
	opened bool
}

var _ kv.Iterator = (*iter)(nil)

func (i *iter) report(op string, ok bool) bool {
	if !i.t.on.Load() {
		return ok
	}
	var sb strings.Builder
	sb.WriteString(i.prefix)
	if !i.opened {
		sb.WriteString(" ")
		sb.WriteString(i.bounds)
		i.opened = true
	}
	sb.WriteString(" ")
	sb.WriteString(op)
	sb.WriteString(" -> ")
	switch {
	case ok:
		sb.WriteString(encoding.Pretty(i.inner.Key()))
	case i.inner.Error() != nil:
		sb.WriteString("error: " + i.inner.Error().Error())
	default:
		sb.WriteString("end")
	}
	i.t.logf("%s", sb.String())
	return ok
}

func (i *iter) First() bool { return i.report("first", i.inner.First()) }
func (i *iter) Last() bool  { return i.report("last", i.inner.Last()) }
func (i *iter) SeekGE(key []byte) bool {
	return i.report("seekge "+encoding.Pretty(key), i.inner.SeekGE(key))
}
func (i *iter) SeekLT(key []byte) bool {
	return i.report("seeklt "+encoding.Pretty(key), i.inner.SeekLT(key))
}
func (i *iter) Next() bool    { return i.report("next", i.inner.Next()) }
func (i *iter) Prev() bool    { return i.report("prev", i.inner.Prev()) }
func (i *iter) Valid() bool   { return i.inner.Valid() }
func (i *iter) Key() []byte   { return i.inner.Key() }
func (i *iter) Value() []byte { return i.inner.Value() }
func (i *iter) Error() error  { return i.inner.Error() }

// Visit implements kv.Iterator through the traced Next, so a visit is
// traced as the steps it takes.
func (i *iter) Visit(limit int, fn func(key, value []byte) error) (int, error) {
	return kv.VisitEach(i, limit, fn)
}
func (i *iter) Close() error { return i.inner.Close() }
