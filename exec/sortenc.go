package exec

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"io"
	"math"
	"runtime"
	"slices"

	"github.com/kvsql/kvsql/encoding"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// Encoded sorting. While every key value has a normalized sort key
// (sortnorm.go), sortOp keeps each row not as extended Datums but as one
// record of bytes: its normalized key (ending in the row's position) and
// its payload, the row in the spill row format (spill.go) followed by the
// values of the keys that are not plain columns. A record costs its bytes
// plus an entry (about 40 bytes for the bench's two integers, not 340 as
// Datums), so far fewer rows spill; a run is the sorted records written
// back to back through a large buffer; the merge compares keys as bytes;
// and a row becomes Datums only when it is returned.
//
// The first value without a usable sort key demotes the sort to Datums:
// the records in memory are decoded into extended rows and the sort goes
// on as before (sortOp.rows, compareSeq); the runs already written stay
// valid sorted runs (ordered by normalized keys, which order like
// compareSeq for the values they hold) that the Datum merge reads through
// encRunExt.

// encEntry is one record, arena[off:off+klen] its key and
// arena[off+klen:end] its payload; pre caches the first eight bytes of
// the key without its position (keyPrefix). Entries hold no pointers: sorting moves 24 bytes per
// swap without write barriers, and the collector does not scan them.
type encEntry struct {
	pre            uint64
	off, klen, end uint32
}

// encEntrySize is what an entry costs besides its bytes.
const encEntrySize = 24

// encArenaMax bounds the arena of one run (entries address it with
// 32-bit offsets): past it the records spill whatever the memory budget.
const encArenaMax = 1 << 31

// encSpillBuf is the write and read buffer of an encoded run.
const encSpillBuf = 256 << 10

type encSorter struct {
	sk      *sortKeys
	keyCol  []int        // per key: the input column it is, or -1 (in the payload)
	kinds   []types.Kind // each key column's kind; KindNull until a non-NULL
	ents    []encEntry
	arena   []byte        // the records held, back to back
	payload []types.Datum // scratch: the Datums a payload holds
	runs    []*spillFile
}

func newEncSorter(sk *sortKeys) *encSorter {
	e := &encSorter{sk: sk, keyCol: make([]int, len(sk.keys)), kinds: make([]types.Kind, len(sk.keys))}
	for i, k := range sk.keys {
		e.keyCol[i] = -1
		if c, ok := k.Expr.(*planner.ColRef); ok && c.Outer == 0 && c.Index < sk.width {
			e.keyCol[i] = c.Index
		}
	}
	return e
}

// encodable reports whether the extended row's keys all have sort keys
// of the kinds seen so far (and records the kinds).
func (e *encSorter) encodable(ext []types.Datum) bool {
	w := e.sk.width
	for i := range e.sk.keys {
		d := ext[w+i]
		if d.Kind == types.KindNull {
			continue
		}
		if !encoding.SortKeyKind(d) || (e.kinds[i] != types.KindNull && e.kinds[i] != d.Kind) {
			return false
		}
	}
	for i := range e.sk.keys {
		if d := ext[w+i]; d.Kind != types.KindNull {
			e.kinds[i] = d.Kind
		}
	}
	return true
}

// add encodes the extended row ext (encodable) with its position and
// returns the bytes its record costs.
func (e *encSorter) add(ext []types.Datum, seq int64) int64 {
	w := e.sk.width
	e.payload = append(e.payload[:0], ext[:w]...)
	for i, c := range e.keyCol {
		if c < 0 {
			e.payload = append(e.payload, ext[w+i])
		}
	}
	b := e.arena
	start := len(b)
	for i, k := range e.sk.keys {
		b = encoding.AppendSortKey(b, ext[w+i], k.Desc, k.NullsFirst)
	}
	b = binary.BigEndian.AppendUint64(b, uint64(seq))
	mid := len(b)
	b = appendRow(b, e.payload)
	e.arena = b
	ent := encEntry{off: uint32(start), klen: uint32(mid - start), end: uint32(len(b)), pre: keyPrefix(b[start:mid])}
	e.ents = append(e.ents, ent)
	return int64(len(b)-start) + encEntrySize
}

// full reports whether the arena must spill before it outgrows its
// offsets.
func (e *encSorter) full() bool { return len(e.arena) >= encArenaMax }

func (e *encSorter) key(ent encEntry) []byte {
	return e.arena[ent.off : ent.off+ent.klen : ent.off+ent.klen]
}

func (e *encSorter) row(ent encEntry) []byte {
	return e.arena[ent.off+ent.klen : ent.end : ent.end]
}

// takeLast removes the last record and returns a copy of its bytes.
func (e *encSorter) takeLast() (rec []byte, klen int) {
	ent := e.ents[len(e.ents)-1]
	e.ents = e.ents[:len(e.ents)-1]
	rec = bytes.Clone(e.arena[ent.off:ent.end])
	e.arena = e.arena[:ent.off]
	return rec, int(ent.klen)
}

// putBack appends a record takeLast removed.
func (e *encSorter) putBack(rec []byte, klen int) {
	start := len(e.arena)
	e.arena = append(e.arena, rec...)
	e.ents = append(e.ents, encEntry{pre: keyPrefix(rec[:klen]), off: uint32(start), klen: uint32(klen), end: uint32(len(e.arena))})
}

// sort orders the records by key, equal keys in input order (a run).
func (e *encSorter) sort() { slices.SortFunc(e.ents, e.byKeySeq) }

// byKeySeq orders records by key and then input position.
func (e *encSorter) byKeySeq(a, b encEntry) int {
	if a.pre != b.pre {
		return cmp.Compare(a.pre, b.pre)
	}
	return bytes.Compare(e.key(a), e.key(b))
}

// sortPG orders the records by key, equal keys as PostgreSQL's in-memory
// sort leaves them (pgsort.go): the sort of a whole input that fits.
func (e *encSorter) sortPG() {
	seq := func(x encEntry) uint64 { return binary.BigEndian.Uint64(e.key(x)[x.klen-8:]) }
	sortLikePG(e.ents, e.byKeySeq, func(a, b encEntry) int {
		if a.pre != b.pre {
			return cmp.Compare(a.pre, b.pre)
		}
		return bytes.Compare(withoutSeq(e.key(a)), withoutSeq(e.key(b)))
	}, func(a, b encEntry) int { return cmp.Compare(seq(a), seq(b)) })
}

// touchBatch is how many records the output of the records in memory
// loads at once (touch).
const touchBatch = 64

// touch loads the first and last byte of each record of ents. Read in
// sorted order, the records sit at random places in an arena far larger
// than the CPU's caches, and decoding them one by one waited for one
// cache miss per row (a third of the output's CPU in the bench's ORDER
// BY); one tight loop of independent loads lets the CPU wait for many
// misses at once, and the decoding that follows finds the bytes cached.
func (e *encSorter) touch(ents []encEntry) {
	var x byte
	for _, ent := range ents {
		if ent.end > ent.off { // an empty record has no byte to load
			x ^= e.arena[ent.off] ^ e.arena[ent.end-1]
		}
	}
	runtime.KeepAlive(x) // the loads are not dead code
}

// spill sorts the records in memory and writes them as a run.
func (e *encSorter) spill(dir string) error {
	e.sort()
	f, err := newSpillFile(dir)
	if err != nil {
		return err
	}
	f.encoded = true
	f.w = bufio.NewWriterSize(f.f, encSpillBuf)
	e.runs = append(e.runs, f)
	var hdr [2 * binary.MaxVarintLen64]byte
	for _, ent := range e.ents {
		h := binary.AppendUvarint(hdr[:0], uint64(ent.klen))
		h = binary.AppendUvarint(h, uint64(ent.end-ent.off-ent.klen))
		if err := f.writeBytes(h, e.arena[ent.off:ent.end]); err != nil {
			return err
		}
	}
	e.ents = e.ents[:0]
	e.arena = e.arena[:0]
	return nil
}

// decodePayload decodes a record's payload into row (reusing its
// storage).
func decodePayload(b []byte, row []types.Datum) ([]types.Datum, error) {
	row, n, err := decodeRow(b, row[:0])
	if err == nil && n != len(b) {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return nil, pgerror.Newf(pgerror.IOError, "could not read temporary file: %w", err)
	}
	return row, nil
}

// ext rebuilds the extended row of a record into ext (extendedWidth
// long; the key Datums of column keys are the columns again).
func (e *encSorter) ext(key, row []byte, ext []types.Datum) error {
	p, err := decodePayload(row, e.payload)
	if err != nil {
		return err
	}
	e.payload = p
	w := e.sk.width
	if len(p) != w+countNeg(e.keyCol) {
		return pgerror.Newf(pgerror.Internal, "exec: a sort record holds %d values, want %d", len(p), w+countNeg(e.keyCol))
	}
	copy(ext, p[:w])
	j := w
	for i, c := range e.keyCol {
		if c >= 0 {
			ext[w+i] = p[c]
		} else {
			ext[w+i] = p[j]
			j++
		}
	}
	ext[len(ext)-1] = types.NewInt(int64(binary.BigEndian.Uint64(key[len(key)-8:])))
	return nil
}

func countNeg(s []int) int {
	n := 0
	for _, v := range s {
		if v < 0 {
			n++
		}
	}
	return n
}

// encReader reads an encoded run's records in order.
type encReader struct {
	r        *bufio.Reader
	left     int64
	key, row []byte
}

func (sf *spillFile) encReader() (*encReader, error) {
	if err := sf.w.Flush(); err != nil {
		return nil, pgerror.Newf(pgerror.IOError, "could not write temporary file: %w", err)
	}
	return &encReader{r: bufio.NewReaderSize(io.NewSectionReader(sf.f, 0, math.MaxInt64), encSpillBuf), left: sf.rows}, nil
}

// next reads the next record into r.key and r.row (valid until the next
// call); false at the end.
func (r *encReader) next() (bool, error) {
	if r.left == 0 {
		return false, nil
	}
	r.left--
	kl, err := binary.ReadUvarint(r.r)
	if err == nil {
		var rl uint64
		if rl, err = binary.ReadUvarint(r.r); err == nil && kl <= 1<<30 && rl <= 1<<30 {
			r.key = slices.Grow(r.key[:0], int(kl))[:kl]
			if _, err = io.ReadFull(r.r, r.key); err == nil {
				r.row = slices.Grow(r.row[:0], int(rl))[:rl]
				_, err = io.ReadFull(r.r, r.row)
			}
		} else if err == nil {
			err = io.ErrUnexpectedEOF
		}
	}
	if err != nil {
		return false, pgerror.Newf(pgerror.IOError, "could not read temporary file: %w", err)
	}
	return true, nil
}

// encRunExt reads an encoded run as extended Datum rows (a rowSource for
// the Datum merge after a demotion).
type encRunExt struct {
	e   *encSorter
	r   *encReader
	ext []types.Datum
}

func (s *encRunExt) next() ([]types.Datum, error) {
	ok, err := s.r.next()
	if !ok || err != nil {
		return nil, err
	}
	if err := s.e.ext(s.r.key, s.r.row, s.ext); err != nil {
		return nil, err
	}
	return s.ext, nil
}

// encSource is one sorted input of an encoded merge: the records in
// memory or a run.
type encSource struct {
	mem      *encSorter // the records in memory (r nil)
	ents     []encEntry
	touched  int // records of ents touched ahead (encSorter.touch)
	r        *encReader
	key, row []byte
}

func (s *encSource) advance() (bool, error) {
	if s.r == nil {
		if len(s.ents) == 0 {
			return false, nil
		}
		if s.touched == 0 {
			s.touched = min(len(s.ents), touchBatch)
			s.mem.touch(s.ents[:s.touched])
		}
		s.touched--
		s.key, s.row = s.mem.key(s.ents[0]), s.mem.row(s.ents[0])
		s.ents = s.ents[1:]
		return true, nil
	}
	ok, err := s.r.next()
	if ok {
		s.key, s.row = s.r.key, s.r.row
	}
	return ok, err
}

// encMerge merges sorted sources by key bytes (all keys differ: each
// ends in its row's position). The current record of the source on top
// is returned; it stays valid until the next call.
type encMerge struct {
	h    []*encSource // a min-heap on key
	last bool         // the top was returned and must advance
}

func newEncMerge(srcs []*encSource) (*encMerge, error) {
	m := &encMerge{}
	for _, s := range srcs {
		ok, err := s.advance()
		if err != nil {
			return nil, err
		}
		if ok {
			m.h = append(m.h, s)
		}
	}
	for i := len(m.h)/2 - 1; i >= 0; i-- {
		m.down(i)
	}
	return m, nil
}

func (m *encMerge) next() (key, row []byte, err error) {
	if m.last {
		m.last = false
		ok, err := m.h[0].advance()
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			n := len(m.h) - 1
			m.h[0] = m.h[n]
			m.h = m.h[:n]
		}
		m.down(0)
	}
	if len(m.h) == 0 {
		return nil, nil, nil
	}
	m.last = true
	return m.h[0].key, m.h[0].row, nil
}

func (m *encMerge) down(j int) {
	n := len(m.h)
	for {
		l := 2*j + 1
		if l >= n {
			return
		}
		c := l
		if r := l + 1; r < n && bytes.Compare(m.h[r].key, m.h[l].key) < 0 {
			c = r
		}
		if bytes.Compare(m.h[j].key, m.h[c].key) <= 0 {
			return
		}
		m.h[j], m.h[c] = m.h[c], m.h[j]
		j = c
	}
}

// mergeRuns merges the first maxFanIn runs into one new run (a pass of a
// multi-pass merge).
func (e *encSorter) mergeRuns(dir string, t *ticker) error {
	group := e.runs[:maxFanIn]
	srcs := make([]*encSource, len(group))
	for i, f := range group {
		r, err := f.encReader()
		if err != nil {
			return err
		}
		srcs[i] = &encSource{r: r}
	}
	out, err := newSpillFile(dir)
	if err != nil {
		return err
	}
	out.encoded = true
	out.w = bufio.NewWriterSize(out.f, encSpillBuf)
	e.runs = append([]*spillFile{out}, e.runs[maxFanIn:]...)
	m, err := newEncMerge(srcs)
	var hdr [2 * binary.MaxVarintLen64]byte
	for err == nil {
		var key, row []byte
		if key, row, err = m.next(); key == nil || err != nil {
			break
		}
		if err = t.tick(); err == nil {
			h := binary.AppendUvarint(hdr[:0], uint64(len(key)))
			h = binary.AppendUvarint(h, uint64(len(row)))
			err = out.writeBytes(h, key, row)
		}
	}
	for _, f := range group {
		_ = f.close()
	}
	return err
}

// close releases the runs.
func (e *encSorter) close() error {
	var err error
	for _, f := range e.runs {
		if cerr := f.close(); cerr != nil && err == nil {
			err = cerr
		}
	}
	e.runs = nil
	e.release()
	return err
}

// keptSortBytes bounds the record arena a sort keeps when its records
// are used up: a kept operator tree (reuse.go) sorting a few rows per
// execution reuses it, a large sort's memory goes back at once.
const keptSortBytes = 16 << 10

// release drops the records held, keeping the arena and entries of a
// small sort. (Decoded rows copy their strings: nothing handed out
// points into the arena.)
func (e *encSorter) release() {
	if cap(e.arena) > keptSortBytes || cap(e.ents)*encEntrySize > keptSortBytes {
		e.ents, e.arena = nil, nil
		return
	}
	e.ents, e.arena = e.ents[:0], e.arena[:0]
}
