package wire

import (
	"encoding/binary"

	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// Arrays on the wire. The text form is array_out's ("{1,2,NULL}", eval
// formats and parses it). The binary form is array_send's: the number of
// dimensions (0 for an empty array), a has-NULLs flag, the element
// type's OID, then per dimension its length and lower bound, then each
// element in row-major order as a length (-1 for NULL) and the element's
// own binary form.

// appendArrayBinary appends d, an array of type t, in array_send's form.
func appendArrayBinary(b []byte, t types.T, d types.Datum) ([]byte, error) {
	elems, err := types.ArrayElems(nil, d)
	if err != nil {
		return b, pgerror.New(pgerror.DataCorrupted, "malformed array value")
	}
	et := t.ElemType()
	hasNull := uint32(0)
	for _, e := range elems {
		if e.IsNull() {
			hasNull = 1
		}
	}
	if len(elems) == 0 {
		b = binary.BigEndian.AppendUint32(b, 0)
		b = binary.BigEndian.AppendUint32(b, 0)
		return binary.BigEndian.AppendUint32(b, et.OID()), nil
	}
	sh := types.ArrayShapeOf(d)
	b = binary.BigEndian.AppendUint32(b, uint32(len(sh.Lens)))
	b = binary.BigEndian.AppendUint32(b, hasNull)
	b = binary.BigEndian.AppendUint32(b, et.OID())
	for i, l := range sh.Lens {
		b = binary.BigEndian.AppendUint32(b, uint32(l))
		b = binary.BigEndian.AppendUint32(b, uint32(int32(sh.Lower[i])))
	}
	for _, e := range elems {
		if e.IsNull() {
			b = binary.BigEndian.AppendUint32(b, 0xffffffff)
			continue
		}
		at := len(b)
		b = append(b, 0, 0, 0, 0)
		if b, err = appendBinary(b, et, e); err != nil {
			return b, err
		}
		binary.BigEndian.PutUint32(b[at:], uint32(len(b)-at-4))
	}
	return b, nil
}

// decodeArrayBinary reads an array of type t in array_recv's form.
func decodeArrayBinary(t types.T, raw []byte) (types.Datum, error) {
	bad := func(what string) (types.Datum, error) {
		return types.Null, pgerror.Newf(pgerror.InvalidBinaryRepresentation, "insufficient data left in message: %s", what)
	}
	u32 := func() (uint32, bool) {
		if len(raw) < 4 {
			return 0, false
		}
		v := binary.BigEndian.Uint32(raw)
		raw = raw[4:]
		return v, true
	}
	ndim, ok1 := u32()
	_, ok2 := u32() // flags
	elemOID, ok3 := u32()
	if !ok1 || !ok2 || !ok3 {
		return bad("array header")
	}
	if ndim == 0 {
		return types.NewArray(nil), nil
	}
	if ndim > types.MaxArrayDims {
		return types.Null, pgerror.Newf(pgerror.InvalidBinaryRepresentation, "invalid number of dimensions: %d", int32(ndim))
	}
	sh := types.ArrayShape{Lens: make([]int, ndim), Lower: make([]int, ndim)}
	n := uint64(1)
	for i := range sh.Lens {
		l, ok1 := u32()
		lb, ok2 := u32()
		if !ok1 || !ok2 {
			return bad("array dimensions")
		}
		if int64(int32(lb))+int64(l) > 1<<31 {
			return types.Null, pgerror.New(pgerror.ProgramLimitExceeded, "array lower bound is too large")
		}
		sh.Lens[i], sh.Lower[i] = int(l), int(int32(lb))
		if n *= uint64(l); n > types.MaxArrayElems {
			return types.Null, pgerror.Newf(pgerror.ProgramLimitExceeded, "array size exceeds the maximum allowed (%d)", types.MaxArrayElems)
		}
	}
	if n*4 > uint64(len(raw)) {
		return bad("array elements")
	}
	et := t.ElemType()
	if elemOID != et.OID() {
		if got, ok := types.TypeByOID(elemOID); ok && !got.IsArray() {
			et = got // the elements' own type; converted below
		} else {
			return types.Null, pgerror.Newf(pgerror.DatatypeMismatch, "wrong element type")
		}
	}
	elems := make([]types.Datum, n)
	for i := range elems {
		l, ok := u32()
		if !ok {
			return bad("array element")
		}
		if l == 0xffffffff {
			continue
		}
		if uint64(l) > uint64(len(raw)) {
			return bad("array element")
		}
		d, err := decodeBinary(et.OID(), raw[:l])
		if err != nil {
			return types.Null, err
		}
		if et != t.ElemType() {
			if d, err = eval.CastFrom(d, et, t.ElemType()); err != nil {
				return types.Null, err
			}
		}
		elems[i] = d
		raw = raw[l:]
	}
	if len(raw) != 0 {
		return types.Null, pgerror.New(pgerror.InvalidBinaryRepresentation, "incorrect binary data format in array")
	}
	return types.NewArrayShaped(elems, sh), nil
}
