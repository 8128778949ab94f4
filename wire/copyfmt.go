package wire

import (
	"bytes"
	"encoding/binary"
	"strings"
	"time"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
	"github.com/kvsql/kvsql/wire/backend"
)

// codeBadCopyFileFormat is PostgreSQL's 22P04 (wrong number of columns,
// bad binary header).
const codeBadCopyFileFormat = pgerror.Code("22P04")

// binarySignature starts every binary COPY stream.
var binarySignature = []byte("PGCOPY\n\xff\r\n\x00")

// copyCodec decodes COPY FROM STDIN data into rows and encodes rows for
// COPY TO STDOUT, in one of the three formats. For input it keeps the
// incomplete tail of the stream between CopyData messages, since rows and
// messages need not align.
type copyCodec struct {
	loc       *time.Location // the session's time zone, for timestamptz text
	format    string
	delim     byte
	null      string
	hasHeader bool
	cols      []backend.Column

	buf     []byte // undecoded input
	scan    int    // csv: how far buf has been scanned for a record end
	inQuote bool   // csv: scan state at buf[scan]
	line    int    // input lines (text, csv) or tuples (binary) consumed
	started bool   // binary: header consumed; text/csv: header line skipped
	ended   bool   // saw the end marker (\. or the binary trailer)
}

func newCopyCodec(spec *backend.CopySpec) (*copyCodec, error) {
	k := &copyCodec{format: strings.ToLower(spec.Format), null: spec.Null, hasHeader: spec.Header, cols: spec.Columns}
	switch k.format {
	case "", "text":
		k.format, k.delim = "text", '\t'
		if spec.Null == "" {
			k.null = `\N`
		}
	case "csv":
		k.delim = ','
	case "binary":
	default:
		return nil, pgerror.Newf(pgerror.FeatureNotSupported, "COPY format %q not recognized", spec.Format)
	}
	if spec.Delimiter != "" {
		if len(spec.Delimiter) != 1 {
			return nil, pgerror.New(pgerror.FeatureNotSupported, "COPY delimiter must be a single one-byte character")
		}
		k.delim = spec.Delimiter[0]
	}
	return k, nil
}

// feed consumes one CopyData payload, calling emit for every complete row.
func (k *copyCodec) feed(data []byte, max int, emit func([]types.Datum) error) error {
	if k.ended {
		return nil // PostgreSQL ignores data after the end marker
	}
	k.buf = append(k.buf, data...)
	var err error
	if k.format == "binary" {
		err = k.binaryRows(emit)
	} else {
		err = k.lines(false, emit)
	}
	if err == nil && len(k.buf) > max {
		return pgerror.Newf(pgerror.ProgramLimitExceeded, "COPY row at line %d is longer than %d bytes", k.line+1, max)
	}
	return err
}

// finish handles the end of input (CopyDone): a last line without a
// newline, or a binary stream cut short.
func (k *copyCodec) finish(emit func([]types.Datum) error) error {
	if k.ended {
		return nil
	}
	if k.format == "binary" {
		if len(k.buf) > 0 || !k.started {
			return pgerror.New(codeBadCopyFileFormat, "unexpected EOF in COPY data")
		}
		return nil
	}
	return k.lines(true, emit)
}

// lines splits buf into text or CSV records.
func (k *copyCodec) lines(atEOF bool, emit func([]types.Datum) error) error {
	for !k.ended {
		end := k.recordEnd()
		if end < 0 {
			if !atEOF || len(k.buf) == 0 {
				return nil
			}
			if k.inQuote {
				return pgerror.Newf(codeBadCopyFileFormat, "unterminated CSV quoted field (COPY line %d)", k.line+1)
			}
			end = len(k.buf)
		}
		rec := k.buf[:end]
		next := min(end+1, len(k.buf))
		k.line++
		if err := k.record(bytes.TrimSuffix(rec, []byte{'\r'}), emit); err != nil {
			return err
		}
		k.buf = k.buf[:copy(k.buf, k.buf[next:])]
		k.scan, k.inQuote = 0, false
	}
	return nil
}

// recordEnd finds the newline that ends the first record, or -1. CSV
// newlines inside quotes belong to the field.
func (k *copyCodec) recordEnd() int {
	if k.format == "text" {
		return bytes.IndexByte(k.buf, '\n')
	}
	for ; k.scan < len(k.buf); k.scan++ {
		switch k.buf[k.scan] {
		case '"':
			k.inQuote = !k.inQuote
		case '\n':
			if !k.inQuote {
				return k.scan
			}
		}
	}
	return -1
}

// record decodes one line.
func (k *copyCodec) record(rec []byte, emit func([]types.Datum) error) error {
	if string(rec) == `\.` {
		k.ended = true
		return nil
	}
	if k.hasHeader && !k.started && k.format == "csv" {
		k.started = true
		return nil
	}
	var fields []field
	var err error
	if k.format == "text" {
		fields, err = splitText(rec, k.delim, k.null)
	} else {
		fields, err = splitCSV(rec, k.delim, k.null)
	}
	if err != nil {
		return pgerror.Newf(pgerror.CodeOf(err), "%s (COPY line %d)", err.Error(), k.line)
	}
	if len(fields) > len(k.cols) {
		return pgerror.Newf(codeBadCopyFileFormat, "extra data after last expected column (COPY line %d)", k.line)
	}
	if len(fields) < len(k.cols) {
		return pgerror.Newf(codeBadCopyFileFormat, "missing data for column %q (COPY line %d)", k.cols[len(fields)].Name, k.line)
	}
	row := make([]types.Datum, len(fields))
	for i, f := range fields {
		if f.null {
			continue
		}
		d, err := decodeText(k.cols[i].Type.OID(), f.text, k.loc)
		if err != nil {
			return pgerror.Newf(pgerror.CodeOf(err), "%s (COPY line %d, column %q)", err.Error(), k.line, k.cols[i].Name)
		}
		row[i] = d
	}
	return emit(row)
}

type field struct {
	text string
	null bool
}

// splitText splits a text-format line on delim, undoing backslash
// escapes; a field whose raw text equals null is NULL.
func splitText(rec []byte, delim byte, null string) ([]field, error) {
	var out []field
	var sb []byte
	start := 0
	for i := 0; ; i++ {
		if i == len(rec) || rec[i] == delim {
			raw := string(rec[start:i])
			if raw == null {
				out = append(out, field{null: true})
			} else {
				out = append(out, field{text: string(sb)})
			}
			if i == len(rec) {
				return out, nil
			}
			sb, start = sb[:0], i+1
			continue
		}
		ch := rec[i]
		if ch != '\\' {
			sb = append(sb, ch)
			continue
		}
		if i+1 == len(rec) {
			return nil, pgerror.New(pgerror.InvalidTextRepresentation, "end-of-copy marker corrupt")
		}
		i++
		switch e := rec[i]; e {
		case 'b':
			sb = append(sb, '\b')
		case 'f':
			sb = append(sb, '\f')
		case 'n':
			sb = append(sb, '\n')
		case 'r':
			sb = append(sb, '\r')
		case 't':
			sb = append(sb, '\t')
		case 'v':
			sb = append(sb, '\v')
		case 'x':
			v, n := 0, 0
			for n < 2 && i+1 < len(rec) && isHex(rec[i+1]) {
				i++
				v = v*16 + hexVal(rec[i])
				n++
			}
			if n == 0 {
				sb = append(sb, 'x')
			} else {
				sb = append(sb, byte(v))
			}
		default:
			if isOctal(e) {
				v := int(e - '0')
				for n := 1; n < 3 && i+1 < len(rec) && isOctal(rec[i+1]); n++ {
					i++
					v = v*8 + int(rec[i]-'0')
				}
				sb = append(sb, byte(v))
			} else {
				sb = append(sb, e) // \\, \<delim> and any other char stand for themselves
			}
		}
	}
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func hexVal(c byte) int {
	switch {
	case c >= 'a':
		return int(c-'a') + 10
	case c >= 'A':
		return int(c-'A') + 10
	}
	return int(c - '0')
}

// splitCSV splits a CSV record: fields may be quoted with ", a doubled "
// inside quotes is one quote; an unquoted field equal to null is NULL.
func splitCSV(rec []byte, delim byte, null string) ([]field, error) {
	var out []field
	i := 0
	for {
		var sb []byte
		quoted := false
		start := i
		for i < len(rec) && rec[i] != delim {
			if rec[i] != '"' {
				sb = append(sb, rec[i])
				i++
				continue
			}
			quoted = true
			i++
			for {
				if i >= len(rec) {
					return nil, pgerror.New(codeBadCopyFileFormat, "unterminated CSV quoted field")
				}
				if rec[i] == '"' {
					if i+1 < len(rec) && rec[i+1] == '"' {
						sb = append(sb, '"')
						i += 2
						continue
					}
					i++
					break
				}
				sb = append(sb, rec[i])
				i++
			}
		}
		if !quoted && string(rec[start:i]) == null {
			out = append(out, field{null: true})
		} else {
			out = append(out, field{text: string(sb)})
		}
		if i >= len(rec) {
			return out, nil
		}
		i++ // the delimiter
	}
}

// binaryRows decodes as many complete binary tuples as buf holds.
func (k *copyCodec) binaryRows(emit func([]types.Datum) error) error {
	if !k.started {
		// signature, int32 flags, int32 header-extension length, extension
		if len(k.buf) < len(binarySignature)+8 {
			return nil
		}
		if !bytes.Equal(k.buf[:len(binarySignature)], binarySignature) {
			return pgerror.New(codeBadCopyFileFormat, "COPY file signature not recognized")
		}
		ext := int(binary.BigEndian.Uint32(k.buf[len(binarySignature)+4:]))
		hlen := len(binarySignature) + 8 + ext
		if ext < 0 || ext > 1<<20 {
			return pgerror.New(codeBadCopyFileFormat, "invalid COPY file header (bad extension length)")
		}
		if len(k.buf) < hlen {
			return nil
		}
		k.buf = k.buf[:copy(k.buf, k.buf[hlen:])]
		k.started = true
	}
	off := 0
	defer func() { k.buf = k.buf[:copy(k.buf, k.buf[off:])] }()
	for !k.ended {
		if len(k.buf)-off < 2 {
			return nil
		}
		n := int(int16(binary.BigEndian.Uint16(k.buf[off:])))
		if n == -1 {
			k.ended = true
			off = len(k.buf)
			return nil
		}
		if n != len(k.cols) {
			return pgerror.Newf(codeBadCopyFileFormat, "row field count is %d, expected %d (COPY tuple %d)", n, len(k.cols), k.line+1)
		}
		// Check the tuple is complete before decoding any of it.
		p := off + 2
		for i := 0; i < n; i++ {
			if len(k.buf)-p < 4 {
				return nil
			}
			l := int(int32(binary.BigEndian.Uint32(k.buf[p:])))
			p += 4
			if l < -1 {
				return pgerror.Newf(codeBadCopyFileFormat, "invalid field size %d (COPY tuple %d)", l, k.line+1)
			}
			if l > 0 {
				if len(k.buf)-p < l {
					return nil
				}
				p += l
			}
		}
		k.line++
		row := make([]types.Datum, n)
		q := off + 2
		for i := 0; i < n; i++ {
			l := int(int32(binary.BigEndian.Uint32(k.buf[q:])))
			q += 4
			if l == -1 {
				continue
			}
			d, err := decodeBinary(k.cols[i].Type.OID(), k.buf[q:q+l])
			if err != nil {
				return pgerror.Newf(pgerror.InvalidTextRepresentation, "%s (COPY tuple %d, column %q)", err.Error(), k.line, k.cols[i].Name)
			}
			row[i] = d
			q += l
		}
		off = p
		if err := emit(row); err != nil {
			return err
		}
	}
	return nil
}

// header is the first CopyData of COPY TO STDOUT, or nil.
func (k *copyCodec) header() []byte {
	switch {
	case k.format == "binary":
		return append(append([]byte(nil), binarySignature...), 0, 0, 0, 0, 0, 0, 0, 0)
	case k.format == "csv" && k.hasHeader:
		var b []byte
		for i, col := range k.cols {
			if i > 0 {
				b = append(b, k.delim)
			}
			b = k.appendCSV(b, col.Name)
		}
		return append(b, '\n')
	}
	return nil
}

// trailer is the last CopyData of COPY TO STDOUT, or nil.
func (k *copyCodec) trailer() []byte {
	if k.format == "binary" {
		return []byte{0xff, 0xff}
	}
	return nil
}

// appendRow appends one row in the output format.
func (k *copyCodec) appendRow(b []byte, row []types.Datum) ([]byte, error) {
	if k.format == "binary" {
		b = binary.BigEndian.AppendUint16(b, uint16(len(row)))
		for i, d := range row {
			if d.IsNull() {
				b = binary.BigEndian.AppendUint32(b, 0xffffffff)
				continue
			}
			lenPos := len(b)
			b = append(b, 0, 0, 0, 0)
			var err error
			if b, err = appendBinary(b, k.colType(i), d); err != nil {
				return b, err
			}
			binary.BigEndian.PutUint32(b[lenPos:], uint32(len(b)-lenPos-4))
		}
		return b, nil
	}
	var tmp []byte
	for i, d := range row {
		if i > 0 {
			b = append(b, k.delim)
		}
		if d.IsNull() {
			b = append(b, k.null...)
			continue
		}
		tmp = appendText(tmp[:0], k.colType(i), d, k.loc)
		if k.format == "csv" {
			b = k.appendCSV(b, string(tmp))
		} else {
			b = k.appendEscaped(b, tmp)
		}
	}
	return append(b, '\n'), nil
}

func (k *copyCodec) colType(i int) types.T {
	if i < len(k.cols) {
		return k.cols[i].Type
	}
	return types.T{Family: types.Text}
}

// appendEscaped writes a text-format field with backslash escapes.
func (k *copyCodec) appendEscaped(b, v []byte) []byte {
	for _, ch := range v {
		switch ch {
		case '\\':
			b = append(b, '\\', '\\')
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		case '\b':
			b = append(b, '\\', 'b')
		case '\f':
			b = append(b, '\\', 'f')
		case '\v':
			b = append(b, '\\', 'v')
		default:
			if ch == k.delim {
				b = append(b, '\\')
			}
			b = append(b, ch)
		}
	}
	return b
}

// appendCSV writes a CSV field, quoted when it holds special characters or
// could be mistaken for the NULL marker.
func (k *copyCodec) appendCSV(b []byte, v string) []byte {
	if v != k.null && !strings.ContainsAny(v, "\"\r\n"+string(k.delim)) && v != `\.` {
		return append(b, v...)
	}
	b = append(b, '"')
	b = append(b, strings.ReplaceAll(v, `"`, `""`)...)
	return append(b, '"')
}
