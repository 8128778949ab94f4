package wire

import (
	"bytes"
	"encoding/binary"

	"github.com/jackc/pgx/v5/pgproto3"
)

// inbox decodes the messages of an extended-protocol round trip (Bind,
// Describe, Execute, Sync) into values the connection keeps, instead of a
// new message, a new parameter slice and new name strings per message:
// pgbench -M prepared and every driver's prepared statement send these
// four for each statement. Any other message type, and any malformed one,
// goes to decodeFrontend, so errors read exactly as before.
//
// A decoded message is valid until the next decode (its parameters alias
// the body, which the connection reuses anyway).
type inbox struct {
	bind     pgproto3.Bind
	describe pgproto3.Describe
	execute  pgproto3.Execute
	sync     pgproto3.Sync
	params   [][]byte // bind.Parameters' backing array
	formats  []int16  // backs bind's format codes: parameters', then results'
}

// decode decodes a message read by readFrame, as decodeFrontend does.
func (in *inbox) decode(typ byte, body []byte) (pgproto3.FrontendMessage, error) {
	switch typ {
	case 'B':
		if in.decodeBind(body) {
			return &in.bind, nil
		}
	case 'D':
		if in.decodeDescribe(body) {
			return &in.describe, nil
		}
	case 'E':
		if in.decodeExecute(body) {
			return &in.execute, nil
		}
	case 'S':
		if len(body) == 0 {
			return &in.sync, nil
		}
	}
	return decodeFrontend(typ, body)
}

// cstring splits a NUL-terminated string off src; it returns the string
// as prev when the bytes are the same (a client names the same portal and
// statement every time: no allocation), and false when there is no NUL.
func cstring(src []byte, prev string) (s string, rest []byte, ok bool) {
	i := bytes.IndexByte(src, 0)
	if i < 0 {
		return "", nil, false
	}
	if string(src[:i]) == prev { // compares without allocating
		return prev, src[i+1:], true
	}
	return string(src[:i]), src[i+1:], true
}

// decodeBind decodes a Bind as pgproto3.Bind.Decode does, reusing the
// inbox's slices; false means malformed.
func (in *inbox) decodeBind(src []byte) bool {
	b := &in.bind
	var ok bool
	if b.DestinationPortal, src, ok = cstring(src, b.DestinationPortal); !ok {
		return false
	}
	if b.PreparedStatement, src, ok = cstring(src, b.PreparedStatement); !ok {
		return false
	}
	if in.formats == nil {
		in.formats = make([]int16, 0, 8) // ResultFormatCodes is never nil
	}
	in.formats = in.formats[:0]
	nParamFormats, src, ok := in.int16s(src)
	if !ok {
		return false
	}
	if len(src) < 2 {
		return false
	}
	n := int(binary.BigEndian.Uint16(src))
	src = src[2:]
	in.params = in.params[:0]
	for range n {
		if len(src) < 4 {
			return false
		}
		size := int(int32(binary.BigEndian.Uint32(src)))
		src = src[4:]
		if size == -1 {
			in.params = append(in.params, nil) // NULL
			continue
		}
		if size < 0 || len(src) < size {
			return false
		}
		in.params = append(in.params, src[:size:size])
		src = src[size:]
	}
	if _, _, ok = in.int16s(src); !ok { // trailing bytes are ignored, as pgproto3 does
		return false
	}
	// As pgproto3 leaves them: nil for no parameter formats and no
	// parameters, an empty (non-nil) slice for no result formats.
	b.ParameterFormatCodes = nil
	if nParamFormats > 0 {
		b.ParameterFormatCodes = in.formats[:nParamFormats:nParamFormats]
	}
	b.Parameters = nil
	if n > 0 {
		b.Parameters = in.params
	}
	b.ResultFormatCodes = in.formats[nParamFormats:]
	return true
}

// int16s appends a count-prefixed list of int16 to in.formats and returns
// the count.
func (in *inbox) int16s(src []byte) (int, []byte, bool) {
	if len(src) < 2 {
		return 0, nil, false
	}
	n := int(binary.BigEndian.Uint16(src))
	src = src[2:]
	if len(src) < 2*n {
		return 0, nil, false
	}
	for i := range n {
		in.formats = append(in.formats, int16(binary.BigEndian.Uint16(src[2*i:])))
	}
	return n, src[2*n:], true
}

// decodeDescribe decodes a Describe: a type byte and a name that ends the
// body.
func (in *inbox) decodeDescribe(src []byte) bool {
	if len(src) < 2 || bytes.IndexByte(src[1:], 0) != len(src)-2 {
		return false
	}
	d := &in.describe
	d.ObjectType = src[0]
	d.Name, _, _ = cstring(src[1:], d.Name)
	return true
}

// decodeExecute decodes an Execute: a portal name and a row limit.
func (in *inbox) decodeExecute(src []byte) bool {
	e := &in.execute
	name, rest, ok := cstring(src, e.Portal)
	if !ok || len(rest) < 4 {
		return false
	}
	e.Portal, e.MaxRows = name, binary.BigEndian.Uint32(rest)
	return true
}
