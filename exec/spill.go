package exec

import (
	"bufio"
	"encoding/binary"
	"io"
	"math"
	"os"
	"slices"
	"sync/atomic"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// Spilling. Operators that may outgrow Ctx.WorkMem keep rows in memory
// while a memAccount allows it and write the rest to spill files: temp
// files holding rows in a small self-describing format, written through a
// buffer and read back sequentially.
//
// Row format (decodeRow): uvarint column count, then per Datum one Kind byte followed
// by nothing (NULL), a zig-zag varint (bool, int, date, timestamp), eight
// little-endian bytes of the float64 bits (float), or a uvarint length and
// the bytes (text, bytes). A spill file of rows prefixes each with its
// length in bytes (uvarint), so the reader decodes it from a byte slice.
//
// A spill file is unlinked as soon as it is created (where the platform
// allows), so it disappears even if the process dies; Close releases its
// descriptor and with it the disk space.

// spillFilesCreated counts spill files ever created, for tests that check
// an operator really spilled.
var spillFilesCreated atomic.Int64

// spillFilesOpen counts spill files created and not yet closed, for tests
// that check an execution releases every file it made.
var spillFilesOpen atomic.Int64

// datumOverhead approximates the bytes a Datum costs in memory beyond its
// string payload: the struct itself plus slice and map bookkeeping.
const datumOverhead = 48

// spillBufSize is the buffer of each open spill file, for writing and
// for reading.
const spillBufSize = 32 << 10

// rowOverhead is the per-row cost of the slice header and the pointer that
// holds it.
const rowOverhead = 48

// rowSize estimates the memory a row held by an operator costs.
func rowSize(row []types.Datum) int64 {
	n := int64(rowOverhead)
	for i := range row {
		n += datumOverhead + int64(len(row[i].S))
	}
	return n
}

// spillFile is a temporary file of rows: write them all, then read them
// back in order (any number of times) with reader.
type spillFile struct {
	f    *os.File
	name string // non-empty while the file still has a name to remove
	w    *bufio.Writer
	rows int64
	size int64 // sum of rowSize over the rows: their in-memory cost
	buf  []byte
	// encoded: the file holds a sort's records (sortenc.go), not rows.
	encoded bool
}

func newSpillFile(dir string) (*spillFile, error) {
	f, err := os.CreateTemp(dir, "kvsql-spill-*")
	if err != nil {
		return nil, pgerror.Newf(pgerror.IOError, "could not create temporary file: %w", err)
	}
	spillFilesCreated.Add(1)
	spillFilesOpen.Add(1)
	sf := &spillFile{f: f, name: f.Name(), w: bufio.NewWriterSize(f, spillBufSize)}
	if os.Remove(sf.name) == nil {
		sf.name = ""
	}
	return sf, nil
}

// write appends row to the file.
func (sf *spillFile) write(row []types.Datum) error {
	// A record is its length, then the row: the reader takes it whole.
	var hdr [binary.MaxVarintLen32]byte
	sf.buf = appendRow(append(sf.buf[:0], hdr[:]...), row)
	l := len(sf.buf) - len(hdr)
	h := binary.AppendUvarint(hdr[:0], uint64(l))
	rec := sf.buf[len(hdr)-len(h):]
	copy(rec, h)
	sf.rows++
	sf.size += rowSize(row)
	if _, err := sf.w.Write(rec); err != nil {
		return pgerror.Newf(pgerror.IOError, "could not write temporary file: %w", err)
	}
	return nil
}

// writeBytes appends one record of an encoded sort run, given in parts.
func (sf *spillFile) writeBytes(parts ...[]byte) error {
	for _, p := range parts {
		if _, err := sf.w.Write(p); err != nil {
			return pgerror.Newf(pgerror.IOError, "could not write temporary file: %w", err)
		}
	}
	sf.rows++
	return nil
}

// reader flushes what was written and returns a reader positioned at the
// first row. Writing after reader is not allowed.
func (sf *spillFile) reader() (*spillReader, error) {
	if err := sf.w.Flush(); err != nil {
		return nil, pgerror.Newf(pgerror.IOError, "could not write temporary file: %w", err)
	}
	return &spillReader{r: bufio.NewReaderSize(io.NewSectionReader(sf.f, 0, math.MaxInt64), spillBufSize), left: sf.rows}, nil
}

// close releases the file; it is safe on a nil file and idempotent.
func (sf *spillFile) close() error {
	if sf == nil || sf.f == nil {
		return nil
	}
	err := sf.f.Close()
	sf.f = nil
	spillFilesOpen.Add(-1)
	if sf.name != "" {
		if rerr := os.Remove(sf.name); rerr != nil && err == nil {
			err = rerr
		}
		sf.name = ""
	}
	return err
}

// spillReader reads a spill file's rows in the order they were written.
type spillReader struct {
	r    *bufio.Reader
	left int64
	row  []types.Datum
	buf  []byte // a record longer than the read buffer
}

// next returns the next row (valid until the following call), or nil at
// the end.
func (sr *spillReader) next() ([]types.Datum, error) {
	if sr.left == 0 {
		return nil, nil
	}
	sr.left--
	row, err := sr.read()
	if err != nil {
		return nil, pgerror.Newf(pgerror.IOError, "could not read temporary file: %w", err)
	}
	sr.row = row
	return row, nil
}

// read reads one record: its length, then its bytes, decoded in the read
// buffer when they fit there.
func (sr *spillReader) read() ([]types.Datum, error) {
	l, err := binary.ReadUvarint(sr.r)
	if err != nil {
		return nil, err
	}
	if l > 1<<31 {
		return nil, io.ErrUnexpectedEOF
	}
	var b []byte
	if int(l) <= sr.r.Size() {
		if b, err = sr.r.Peek(int(l)); err != nil {
			return nil, err
		}
	} else {
		sr.buf = slices.Grow(sr.buf[:0], int(l))[:l]
		if _, err := io.ReadFull(sr.r, sr.buf); err != nil {
			return nil, err
		}
		b = sr.buf
	}
	row, n, err := decodeRow(b, sr.row[:0])
	if err == nil && n != len(b) {
		err = io.ErrUnexpectedEOF
	}
	if err != nil {
		return nil, err
	}
	if int(l) <= sr.r.Size() {
		_, _ = sr.r.Discard(int(l))
	}
	return row, nil
}

// spillJSONB is the kind byte of a jsonb text (types.TextJSONB).
const spillJSONB = 0x80 | byte(types.KindText)

func appendRow(b []byte, row []types.Datum) []byte {
	b = binary.AppendUvarint(b, uint64(len(row)))
	for i := range row {
		d := &row[i]
		if d.IsJSONB() {
			b = append(b, spillJSONB)
		} else {
			b = append(b, byte(d.Kind))
		}
		switch d.Kind {
		case types.KindNull:
		case types.KindFloat:
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(d.F))
		case types.KindText, types.KindBytes, types.KindDecimal, types.KindArray, types.KindRecord:
			b = binary.AppendUvarint(b, uint64(len(d.S)))
			b = append(b, d.S...)
		case types.KindInterval:
			b = binary.AppendVarint(b, d.I)
			b = binary.AppendUvarint(b, uint64(len(d.S)))
			b = append(b, d.S...)
		default:
			b = binary.AppendVarint(b, d.I)
		}
	}
	return b
}

// decodeRow decodes the row at the start of b, appending its Datums to
// row, and returns the row and the number of bytes it took. It is the one
// decoder of the row format: the spill reader hands it each record's bytes
// (buffered in place when they fit), the encoded sort its payloads. It
// reads the slice directly, with no per-byte interface call.
func decodeRow(b []byte, row []types.Datum) ([]types.Datum, int, error) {
	n, p := binary.Uvarint(b)
	if p <= 0 || n > 1<<16 {
		return nil, 0, io.ErrUnexpectedEOF
	}
	row = slices.Grow(row, int(n))
	for i := uint64(0); i < n; i++ {
		if p >= len(b) {
			return nil, 0, io.ErrUnexpectedEOF
		}
		k := b[p]
		p++
		d := types.Datum{Kind: types.Kind(k)}
		if k == spillJSONB {
			d = types.NewJSONB("")
		}
		switch d.Kind {
		case types.KindNull:
		case types.KindFloat:
			if len(b)-p < 8 {
				return nil, 0, io.ErrUnexpectedEOF
			}
			d.F = math.Float64frombits(binary.LittleEndian.Uint64(b[p:]))
			p += 8
		case types.KindText, types.KindBytes, types.KindDecimal, types.KindInterval, types.KindArray, types.KindRecord:
			if d.Kind == types.KindInterval {
				v, m := binary.Varint(b[p:])
				if m <= 0 {
					return nil, 0, io.ErrUnexpectedEOF
				}
				d.I, p = v, p+m
			}
			l, m := binary.Uvarint(b[p:])
			if m <= 0 || l > uint64(len(b)-p-m) {
				return nil, 0, io.ErrUnexpectedEOF
			}
			p += m
			d.S = string(b[p : p+int(l)])
			p += int(l)
		case types.KindBool, types.KindInt, types.KindDate, types.KindTimestamp, types.KindTime:
			v, m := binary.Varint(b[p:])
			if m <= 0 {
				return nil, 0, io.ErrUnexpectedEOF
			}
			d.I, p = v, p+m
		default:
			return nil, 0, io.ErrUnexpectedEOF // not a kind appendRow writes
		}
		row = append(row, d)
	}
	return row, p, nil
}

// rowBuffer is a spill-aware list of rows: it keeps rows in memory up to
// its budget and the rest in one spill file. It can be iterated any number
// of times once filling is done.
type rowBuffer struct {
	dir  string
	mem  memAccount
	rows [][]types.Datum
	file *spillFile
}

func newRowBuffer(rs *runState, limit int64) *rowBuffer {
	return &rowBuffer{dir: rs.ctx.TempDir, mem: rs.memAccount(limit)}
}

// add copies row into the buffer.
func (b *rowBuffer) add(row []types.Datum) error {
	if b.file == nil {
		sz := rowSize(row)
		if b.mem.fits(sz) {
			if err := b.mem.grow(sz); err != nil {
				return err
			}
			b.rows = append(b.rows, copyRow(row))
			return nil
		}
		f, err := newSpillFile(b.dir)
		if err != nil {
			return err
		}
		b.file = f
	}
	return b.file.write(row)
}

// empty reports whether no row was added.
func (b *rowBuffer) empty() bool { return len(b.rows) == 0 && b.file == nil }

// iter returns an iterator over every row added so far.
func (b *rowBuffer) iter() *bufferIter { return &bufferIter{b: b} }

func (b *rowBuffer) close() error {
	b.rows = nil
	b.mem.reset()
	err := b.file.close()
	b.file = nil
	return err
}

// bufferIter walks a rowBuffer: the in-memory rows, then the spilled ones.
type bufferIter struct {
	b *rowBuffer
	i int
	r *spillReader
}

// next returns the next row (valid until the following call), or nil.
func (it *bufferIter) next() ([]types.Datum, error) {
	if it.i < len(it.b.rows) {
		it.i++
		return it.b.rows[it.i-1], nil
	}
	if it.b.file == nil {
		return nil, nil
	}
	if it.r == nil {
		r, err := it.b.file.reader()
		if err != nil {
			return nil, err
		}
		it.r = r
	}
	return it.r.next()
}

// copyRow returns a copy of row's slice (Datums are immutable values).
func copyRow(row []types.Datum) []types.Datum {
	// Never nil, which ends a stream: a row of no columns (SELECT FROM t)
	// is an empty slice.
	return append(make([]types.Datum, 0, len(row)), row...)
}
