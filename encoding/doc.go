// Package encoding turns SQL values into bytes for the key-value store:
// order-preserving keys, compact row values, and a pretty-printer for
// keys. Every table and index of kvsql is stored through it.
//
// There are only a few entry points:
//
//   - EncodeKey / DecodeKey build and take apart a whole key: a key space
//     followed by tagged column values. EncodeKeyDatum / DecodeKeyDatum do
//     one value. Keys compare correctly with plain bytes.Compare, so the
//     store needs no custom comparer.
//   - EncodeRow / DecodeRow build and read a row value: the non-key
//     columns of a row, each tagged with its stable column ID.
//   - Pretty renders a key as /52/1/"abc"/NULL/desc(7)/2024-01-02 for test
//     output, error messages, EXPLAIN and the debug CLI. PrettyRow does the
//     same for a row value.
//   - PrefixEnd turns a key prefix into the exclusive end of the range of
//     keys that start with it.
//
// # Data flow
//
// A write encodes the primary key columns with EncodeKey into the table's
// space (one space per table and per index; SystemSpace holds the catalog)
// and the remaining columns with EncodeRow. A point read re-encodes the key;
// a scan encodes bounds (below) and decodes each row with DecodeRow into a
// []types.Datum pre-filled with column defaults. Nothing here knows the
// schema: the caller says which column IDs it wants and in which direction
// each key column sorts.
//
// # Key layout
//
// A key is the space id, untagged, then zero or more tagged values:
//
//	key   = space value*
//	space = EncodeUvarintAsc(id)
//	          0x00..0xF7              id itself (0..247), one byte
//	          0xF8..0xFF  n bytes     n = tag-0xF7 (1..8), id big-endian, no leading zero byte
//
// Each value starts with a tag that names its kind and direction. The
// ascending tags are all below 0x80; a descending value is its ascending
// encoding with every byte complemented (tag included), so descending tags
// are 0x80 and above and Pretty can decode any key without a schema.
// Ascending forms (descending = complement):
//
//	NULL       0x7F                                    (largest tag: NULLS LAST; desc 0x80: NULLS FIRST)
//	false      0x10
//	true       0x11
//	int  v<0   0x20+8-n  low n bytes of v, big-endian  n = bytes of ^v (1..8); 0x20 = 8 bytes (most negative)
//	     0..63 0x28+v                                  the value lives in the tag
//	     v>=64 0x67+n    n bytes of v, big-endian      n = bytes of v (1..8), no leading zero byte
//	float      0x14      8 bytes                       IEEE bits: positives with the sign bit set,
//	                                                   negatives all bits flipped; -0 written as +0,
//	                                                   every NaN as 0x7FF8000000000001 (sorts above +Inf)
//	date       0x18      int as above                  days since 1970-01-01
//	timestamp  0x19      int as above                  microseconds since 1970-01-01 00:00:00
//	interval   0x1B      4 ints as above               whole days and micros left (0..86399999999) of
//	                                                   the span (30-day months, 24-hour days: PostgreSQL's
//	                                                   order), then months and days (keyinterval.go)
//	time       0x1E      int as above                  microseconds since midnight
//	text       0x1C      escaped bytes, 0x00 0x01      a 0x00 in the data becomes 0x00 0xFF
//	bytes      0x1D      escaped bytes, 0x00 0x01      same escaping as text
//
// Examples, byte by byte (ascending | descending):
//
//	NULL            7F                            | 80
//	false, true     10, 11                        | EF, EE
//	int 0, 1, 63    28, 29, 67                    | D7, D6, 98
//	int 64          68 40                         | 97 BF
//	int 256         69 01 00                      | 96 FE FF
//	int -1          27 FF                         | D8 00
//	int -257        26 FE FF                      | D9 01 00
//	int MinInt64    20 80 00 00 00 00 00 00 00    | DF 7F FF FF FF FF FF FF FF
//	int MaxInt64    6F 7F FF FF FF FF FF FF FF    | 90 80 00 00 00 00 00 00 00
//	float -Inf      14 00 0F FF FF FF FF FF FF    | EB FF F0 00 00 00 00 00 00
//	float 0, -0     14 80 00 00 00 00 00 00 00    | EB 7F FF FF FF FF FF FF FF
//	float 1.0       14 BF F0 00 00 00 00 00 00    | EB 40 0F FF FF FF FF FF FF
//	float NaN       14 FF F8 00 00 00 00 00 01    | EB 00 07 FF FF FF FF FF FE
//	text ""         1C 00 01                      | E3 FF FE
//	text "a\x00b"   1C 61 00 FF 62 00 01          | E3 9E FF 00 9D FF FE
//	date 2024-01-02 18 69 4D 0C                   | E7 96 B2 F3
//
// and a whole key, space 52 with (1, "abc", NULL, 7 DESC, DATE '2024-01-02'):
//
//	34 | 29 | 1C 61 62 63 00 01 | 7F | D0 | 18 69 4D 0C
//	52   1    "abc"               NULL desc(7) 2024-01-02
//
// Why it sorts: within one kind the tag is equal and the rest is a
// big-endian number or an escaped string; an integer's tag grows with its
// magnitude class; the string terminator 0x00 0x01 is below every escaped
// 0x00 0xFF and every plain byte, so a string sorts before its extensions
// and ("a", "b") before ("ab", ""). No value's encoding is a prefix of
// another's, so a tuple key compares column by column and a shorter key
// sorts before every key it is a prefix of.
//
// Range scans. Let p be a prefix (the space and any equal leading
// columns), v a value of the next column, enc(x) = EncodeKeyDatum(p, x,
// dir) and end(k) = PrefixEnd(k). Ranges are [start, end):
//
//	              ascending column               descending column
//	col >= v      [enc(v), enc(NULL))            [end(enc(NULL)), end(enc(v)))
//	col >  v      [end(enc(v)), enc(NULL))       [end(enc(NULL)), enc(v))
//	col <= v      [p, end(enc(v)))               [enc(v), end(p))
//	col <  v      [p, enc(v))                    [end(enc(v)), end(p))
//	NOT NULL      [p, enc(NULL))                 [end(enc(NULL)), end(p))
//	IS NULL       [enc(NULL), end(enc(NULL)))    the same
//	all           [p, end(p))                    the same
//
// TestRangeRecipes checks these bounds.
//
// # Row value layout
//
// A row value is a sequence of columns in strictly ascending column ID:
//
//	column = header body
//	header = uvarint(gap<<4 | tag)   gap = id - previous id - 1 (the first column's gap is its id)
//	tag    0 NULL  1 false  2 true   (no body)
//	       3 int  7 date  8 timestamp  11 time   body: zigzag uvarint
//	       10 interval                  body: zigzag uvarints micros, days, months
//	       4 float                      body: 8 bytes, IEEE bits little-endian (exact: -0 and NaN kept)
//	       5 text  6 bytes              body: uvarint length, then the bytes
//	       10 jsonb                     body: as text (a text datum marked types.TextJSONB)
//
// Uvarints are little-endian base-128 (encoding/binary's form), shortest
// form only. For example, columns 1=42, 2=NULL, 5='ab':
//
//	13 54 | 00 | 25 02 61 62
//	1:42    2:NULL 5:"ab"
//
// A NULL costs one byte when its gap is below 8. A column absent from the
// value (added to the table after the row was written) is not the same as
// a stored NULL: DecodeRow leaves the caller's default in place for it.
//
// # Errors
//
// Decoders never panic on bad bytes and never loop: each step consumes at
// least one byte. Every error wraps ErrCorrupt and carries SQLSTATE XX001.
// Decoders accept only the form an encoder writes (shortest integers, one
// NaN, no -0 in keys), so decoding and re-encoding gives back the same
// bytes; the fuzz targets check this.
//
// # Caveats
//
//   - Key order across kinds is by tag, not a SQL order: a column must hold
//     one kind (plus NULL). Int and float columns do not interleave; an
//     index over mixed numeric kinds must convert first.
//   - Floats in keys lose the sign of zero and NaN payloads (as equality in
//     PostgreSQL does); row values keep the exact bits.
//   - Text sorts by bytes (the C collation), not by any locale.
//   - A date or timestamp key costs one byte more than an int key (its own
//     tag before the integer), so Pretty can print it as a date.
//   - DecodeRow stops once it has passed the last requested column, so
//     damage after that point is not noticed; DecodeRowAll checks all.
//   - Row values carry no format version; a future change of layout must
//     use the unused row tags 9..15 or a new space.
//   - Encoders panic on a Datum with an invalid Kind and EncodeRow on
//     column IDs that are not strictly ascending: those are programming
//     errors, never user input.
package encoding
