package wire

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"strings"

	"github.com/kvsql/kvsql/exec/eval"
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
	style     eval.Style // the session's TimeZone, IntervalStyle and extra_float_digits
	format    string
	delim     byte
	null      string
	hasHeader bool
	cols      []backend.Column
	// CSV: the quote and escape characters and the FORCE options
	// (backend.CopySpec); headerMatch checks the header line's names.
	quote, escape                       byte
	forceQuote, forceNotNull, forceNull []bool
	headerMatch                         bool
	// table names the table of a COPY FROM in its errors' CONTEXT.
	table string

	buf     []byte // undecoded input
	scan    int    // csv: how far buf has been scanned for a record end
	inQuote bool   // csv: scan state at buf[scan]
	line    int    // input lines (text, csv) or tuples (binary) consumed
	started bool   // binary: header consumed; text/csv: header line skipped
	ended   bool   // saw the end marker (\. or the binary trailer)

	// bin is how each column's binary fields are decoded, resolved once
	// from its type's OID (binary format only).
	bin []binaryField

	// slab is where decoded rows are cut from (newRow), a batch's worth
	// at a time instead of an allocation per row; recycle starts it over
	// once the rows cut from it are no longer used.
	slab []types.Datum
}

// newRow returns a row of n NULLs cut from the slab. It stays valid until
// recycle.
func (k *copyCodec) newRow(n int) []types.Datum {
	if cap(k.slab)-len(k.slab) < n {
		// Rows cut before keep the old array alive until recycle.
		k.slab = make([]types.Datum, 0, max(n*backend.CopyBatchRows, n))
	}
	at := len(k.slab)
	k.slab = k.slab[:at+n]
	row := k.slab[at : at+n : at+n]
	clear(row)
	return row
}

// recycle lets newRow reuse the slab: the rows it returned before are
// dead (CopySpec.Insert does not retain them).
func (k *copyCodec) recycle() { k.slab = k.slab[:0] }

// swapSlab hands over the slab the rows returned so far were cut from
// (the caller keeps them alive) and cuts later rows from spare's array
// instead; spare's own rows must be dead.
func (k *copyCodec) swapSlab(spare []types.Datum) []types.Datum {
	s := k.slab
	k.slab = spare[:0]
	return s
}

func newCopyCodec(spec *backend.CopySpec) (*copyCodec, error) {
	k := &copyCodec{format: strings.ToLower(spec.Format), null: spec.Null, hasHeader: spec.Header, cols: spec.Columns,
		quote: '"', forceQuote: spec.ForceQuote, forceNotNull: spec.ForceNotNull, forceNull: spec.ForceNull,
		headerMatch: spec.HeaderMatch, table: spec.Table}
	if spec.Quote != "" {
		k.quote = spec.Quote[0]
	}
	k.escape = k.quote
	if spec.Escape != "" {
		k.escape = spec.Escape[0]
	}
	switch k.format {
	case "", "text":
		k.format, k.delim = "text", '\t'
		if !spec.NullSet && spec.Null == "" {
			k.null = `\N`
		}
	case "csv":
		k.delim = ','
	case "binary":
	default:
		return nil, pgerror.Newf(pgerror.FeatureNotSupported, "COPY format %q not recognized", spec.Format)
	}
	if k.format == "binary" {
		k.bin = make([]binaryField, len(spec.Columns))
		for i, col := range spec.Columns {
			k.bin[i] = resolveBinary(col.Type.OID())
		}
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
func (k *copyCodec) feed(data []byte, max int, emit func(row []types.Datum, raw []byte) error) error {
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
func (k *copyCodec) finish(emit func(row []types.Datum, raw []byte) error) error {
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
func (k *copyCodec) lines(atEOF bool, emit func(row []types.Datum, raw []byte) error) error {
	for !k.ended {
		end := k.recordEnd()
		if end < 0 {
			if !atEOF || len(k.buf) == 0 {
				return nil
			}
			if k.inQuote {
				return k.context(pgerror.New(codeBadCopyFileFormat, "unterminated CSV quoted field"), k.line+1, lineText(k.buf))
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
		switch ch := k.buf[k.scan]; {
		case k.inQuote && ch == k.escape && k.escape != k.quote:
			// An escape before a quote or an escape keeps it literal.
			if k.scan+1 >= len(k.buf) {
				return -1 // look again when more data has come
			}
			if next := k.buf[k.scan+1]; next == k.quote || next == k.escape {
				k.scan++
			}
		case ch == k.quote:
			k.inQuote = !k.inQuote
		case ch == '\n':
			if !k.inQuote {
				return k.scan
			}
		}
	}
	return -1
}

// record decodes one line.
func (k *copyCodec) record(rec []byte, emit func(row []types.Datum, raw []byte) error) error {
	if string(rec) == `\.` {
		k.ended = true
		return nil
	}
	var fields []field
	var err error
	if k.format == "text" {
		fields, err = splitText(rec, k.delim, k.null)
	} else {
		fields, err = k.splitCSV(rec)
	}
	if err != nil {
		return k.context(err, k.line, lineText(rec))
	}
	if k.hasHeader && !k.started {
		k.started = true
		if err := k.checkHeader(fields); err != nil {
			return k.context(err, k.line, lineText(rec))
		}
		return nil
	}
	if len(fields) > len(k.cols) {
		return k.context(pgerror.New(codeBadCopyFileFormat, "extra data after last expected column"), k.line, lineText(rec))
	}
	// Fields are converted in order and a missing one is reported when
	// its column is reached, as PostgreSQL does: a bad first field wins.
	row := k.newRow(len(k.cols))
	for i := range k.cols {
		if i >= len(fields) {
			return k.context(pgerror.Newf(codeBadCopyFileFormat, "missing data for column %q", k.cols[i].Name), k.line, lineText(rec))
		}
		f := fields[i]
		if f.null {
			continue
		}
		d, err := decodeText(k.cols[i].Type.OID(), f.text, k.style.Loc)
		if err != nil {
			return k.context(err, k.line, ", column "+k.cols[i].Name+": "+copyData(f.text))
		}
		row[i] = d
	}
	return emit(row, rec)
}

// context gives err PostgreSQL's CONTEXT line for an error in line (text,
// csv) or tuple (binary) n of a COPY FROM: "COPY t, line n" and then
// detail (", column a: \"x\"", or ": " and the line's text).
func (k *copyCodec) context(err error, n int, detail string) error {
	return pgerror.WithContext(err, copyContext(k.table, n, detail))
}

// copyContext is the CONTEXT line of copyCodec.context.
func copyContext(table string, n int, detail string) string {
	return "COPY " + table + ", line " + strconv.Itoa(n) + detail
}

// lineText is the detail of a CONTEXT line that shows a line's text.
func lineText(rec []byte) string { return ": " + copyData(string(rec)) }

// copyDataMax is the most bytes of input a CONTEXT line shows, as
// PostgreSQL's MAX_COPY_DATA_DISPLAY.
const copyDataMax = 100

// copyData quotes input for a CONTEXT line, cut to copyDataMax bytes.
func copyData(s string) string { return `"` + eval.Clip(s, copyDataMax) + `"` }

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

// splitCSV splits a CSV record: fields may be quoted with k.quote;
// inside quotes k.escape makes the next quote (or escape) literal (by
// default the escape is the quote itself, so a doubled quote is one
// quote). An unquoted field equal to the NULL string is NULL, unless its
// column is FORCE_NOT_NULL; a quoted one is NULL only in a FORCE_NULL
// column.
func (k *copyCodec) splitCSV(rec []byte) ([]field, error) {
	var out []field
	i := 0
	for {
		var sb []byte
		quoted := false
		start := i
		for i < len(rec) && rec[i] != k.delim {
			if rec[i] != k.quote {
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
				if rec[i] == k.escape && i+1 < len(rec) && (rec[i+1] == k.quote || rec[i+1] == k.escape && k.escape != k.quote) {
					sb = append(sb, rec[i+1])
					i += 2
					continue
				}
				if rec[i] == k.quote {
					i++
					break
				}
				sb = append(sb, rec[i])
				i++
			}
		}
		col := len(out)
		switch {
		case !quoted && string(rec[start:i]) == k.null && !forced(k.forceNotNull, col),
			quoted && string(sb) == k.null && forced(k.forceNull, col):
			out = append(out, field{null: true})
		default:
			out = append(out, field{text: string(sb)})
		}
		if i >= len(rec) {
			return out, nil
		}
		i++ // the delimiter
	}
}

// forced reports whether column col is in a FORCE option's list.
func forced(list []bool, col int) bool { return col < len(list) && list[col] }

// checkHeader checks a HEADER MATCH line against the columns' names.
func (k *copyCodec) checkHeader(fields []field) error {
	if !k.headerMatch {
		return nil
	}
	if len(fields) != len(k.cols) {
		return pgerror.Newf(codeBadCopyFileFormat, "wrong number of fields in header line: got %d, expected %d", len(fields), len(k.cols))
	}
	for i, f := range fields {
		if f.null {
			return pgerror.Newf(codeBadCopyFileFormat, "column name mismatch in header line field %d: got null value (\"%s\"), expected \"%s\"", i+1, k.null, k.cols[i].Name)
		}
		if f.text != k.cols[i].Name {
			return pgerror.Newf(codeBadCopyFileFormat, "column name mismatch in header line field %d: got \"%s\", expected \"%s\"", i+1, f.text, k.cols[i].Name)
		}
	}
	return nil
}

// binaryRows decodes as many complete binary tuples as buf holds.
func (k *copyCodec) binaryRows(emit func(row []types.Datum, raw []byte) error) error {
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
			return k.context(pgerror.Newf(codeBadCopyFileFormat, "row field count is %d, expected %d", n, len(k.cols)), k.line+1, "")
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
				return k.context(pgerror.New(codeBadCopyFileFormat, "invalid field size"), k.line+1, "")
			}
			if l > 0 {
				if len(k.buf)-p < l {
					return nil
				}
				p += l
			}
		}
		k.line++
		row := k.newRow(n)
		q := off + 2
		for i := 0; i < n; i++ {
			l := int(int32(binary.BigEndian.Uint32(k.buf[q:])))
			q += 4
			if l == -1 {
				continue
			}
			d, err := k.bin[i].decode(k.buf[q : q+l])
			if err != nil {
				return k.context(pgerror.Wrap(err, pgerror.InvalidTextRepresentation), k.line, ", column "+k.cols[i].Name)
			}
			row[i] = d
			q += l
		}
		off = p
		if err := emit(row, nil); err != nil {
			return err
		}
	}
	return nil
}

// binaryField decodes the binary fields of one column as decodeBinary
// does for the column type's OID, without looking the OID up per field.
type binaryField struct {
	oid    uint32
	t      types.T      // the OID's type when it is an array
	fam    types.Family // the OID's family when it is a scalar
	scalar bool
}

func resolveBinary(oid uint32) binaryField {
	f := binaryField{oid: oid}
	if t, ok := types.TypeByOID(oid); ok && t.IsArray() {
		f.t = t
	} else if fam, ok := types.FamilyByOID(oid); ok {
		f.fam, f.scalar = fam, true
	}
	return f
}

func (f *binaryField) decode(raw []byte) (types.Datum, error) {
	switch {
	case f.scalar:
		return decodeBinaryFamily(f.fam, raw)
	case f.t.IsArray():
		return decodeArrayBinary(f.t, raw)
	}
	return decodeBinary(f.oid, raw) // unknown OIDs: its text or its error
}

// header is the first CopyData of COPY TO STDOUT, or nil.
func (k *copyCodec) header() []byte {
	switch {
	case k.format == "binary":
		return append(append([]byte(nil), binarySignature...), 0, 0, 0, 0, 0, 0, 0, 0)
	case k.hasHeader:
		var b []byte
		for i, col := range k.cols {
			if i > 0 {
				b = append(b, k.delim)
			}
			if k.format == "csv" {
				b = k.appendCSV(b, col.Name, false)
			} else {
				b = k.appendEscaped(b, []byte(col.Name))
			}
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
		tmp = appendText(tmp[:0], k.colType(i), d, k.style)
		if k.format == "csv" {
			b = k.appendCSV(b, string(tmp), forced(k.forceQuote, i))
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

// appendCSV writes a CSV field, quoted when force is set, when it holds
// special characters or could be mistaken for the NULL marker; quotes and
// escapes inside are escaped.
func (k *copyCodec) appendCSV(b []byte, v string, force bool) []byte {
	if !force && v != k.null && !strings.ContainsAny(v, string([]byte{k.quote, '\r', '\n', k.delim})) && v != `\.` {
		return append(b, v...)
	}
	b = append(b, k.quote)
	for i := 0; i < len(v); i++ {
		if v[i] == k.quote || v[i] == k.escape {
			b = append(b, k.escape)
		}
		b = append(b, v[i])
	}
	return append(b, k.quote)
}
