package encoding

import "strconv"

// Direction is the sort order of one encoded key column.
type Direction uint8

const (
	// Ascending sorts smaller values first and NULL last (PostgreSQL's
	// ASC NULLS LAST). It is the zero value.
	Ascending Direction = iota
	// Descending sorts larger values first and NULL first (PostgreSQL's
	// DESC NULLS FIRST). Its bytes are the ascending bytes complemented.
	Descending
)

// String returns "asc" or "desc".
func (d Direction) String() string {
	switch d {
	case Ascending:
		return "asc"
	case Descending:
		return "desc"
	}
	return "direction(" + strconv.Itoa(int(d)) + ")"
}

// SystemSpace is the key space of the system (meta) tables: the catalog
// lives there. Table and index spaces are numbered above it.
const SystemSpace uint64 = 1

// Ascending key tags. Every tag is below 0x80, so the descending tags (the
// complements, 0x80 and up) form a disjoint set and the direction of any
// value can be read from its first byte. The byte ranges between these
// tags are reserved; a decoder rejects them.
const (
	tagFalse     byte = 0x10
	tagTrue      byte = 0x11
	tagDecNegInf byte = 0x12 // decimals (keydecimal.go): -Infinity
	tagDecNeg    byte = 0x13 // + tagged int -exponent + digits
	tagDecZero   byte = 0x15
	tagDecPos    byte = 0x16 // + tagged int exponent + digits
	tagDecPosInf byte = 0x17
	tagDecNaN    byte = 0x1a // NaN sorts above every other decimal
	tagInterval  byte = 0x1b // + tagged ints: whole days, micros left, months, days (keyinterval.go)
	tagTime      byte = 0x1e // + a tagged int (microseconds since midnight)
	tagFloat     byte = 0x14 // + 8 bytes
	tagDate      byte = 0x18 // + a tagged int (days)
	tagTimestamp byte = 0x19 // + a tagged int (microseconds)
	tagText      byte = 0x1c // + escaped bytes + 0x00 0x01
	tagBytes     byte = 0x1d // + escaped bytes + 0x00 0x01
	tagArray     byte = 0x1f // + each element's tagged encoding + 0x00 (keyarray.go)

	// Integers: the tag gives the sign and the number of bytes that follow,
	// so that more negative numbers have smaller tags.
	tagIntNeg8   byte = 0x20 // 8 bytes follow; up to tagIntNeg1 (1 byte)
	tagIntNeg1   byte = 0x27
	tagIntZero   byte = 0x28 // 0..intInlineMax live in the tag itself
	intInlineMax      = 63
	tagIntPos1   byte = 0x68 // 1 byte follows; up to tagIntPos8 (8 bytes)
	tagIntPos8   byte = 0x6f

	// tagNull is the largest ascending tag: NULL sorts after every value.
	tagNull byte = 0x7f

	// descBit is set in every descending tag.
	descBit byte = 0x80
)

// String terminator and escape (ascending form): a 0x00 byte in the data
// becomes 0x00 0xFF, and the value ends with 0x00 0x01.
const (
	escByte  byte = 0x00
	escZero  byte = 0xff
	escTerm  byte = 0x01
	maskDesc byte = 0xff
)
