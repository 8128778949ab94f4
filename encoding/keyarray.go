package encoding

import "github.com/kvsql/kvsql/types"

// An array's key is tagArray, each element's own ascending tagged
// encoding in row-major order, and a terminator: 0x00 for an array of
// one dimension from 1 (or the empty array), what every array's key was
// before kvsql had more; otherwise 0x01 and then, as tagged ints, the
// dimension count, each dimension's length and each one's lower bound.
// Element encodings are self-delimiting and never start with 0x00 or
// 0x01, so arrays compare as PostgreSQL's array_cmp orders them: element
// by element, a NULL element after every value (tagNull is the largest
// tag), an array before every longer array it is a prefix of, then by
// dimension count, lengths and lower bounds. The one difference: a
// one-dimensional array whose lower bound is below 1 sorts after the
// array of the same elements from 1 (PostgreSQL puts it before), the
// price of keeping the older keys as they were. The descending form is
// all of it complemented, as for any value.

const (
	arrayEnd      byte = 0x00
	arrayEndShape byte = 0x01
)

func appendArrayAsc(b []byte, d types.Datum) []byte {
	elems, err := types.ArrayElems(nil, d)
	if err != nil {
		panic("encoding: malformed array datum")
	}
	b = append(b, tagArray)
	for _, e := range elems {
		b = appendKeyAsc(b, e)
	}
	sh := types.ArrayShapeOf(d)
	if len(sh.Lens) == 0 || len(sh.Lens) == 1 && sh.Lower[0] == 1 {
		return append(b, arrayEnd)
	}
	b = appendIntAsc(append(b, arrayEndShape), int64(len(sh.Lens)))
	for _, l := range sh.Lens {
		b = appendIntAsc(b, int64(l))
	}
	for _, lb := range sh.Lower {
		b = appendIntAsc(b, int64(lb))
	}
	return b
}

// decodeArrayBody reads the elements after tagArray up to the terminator
// and the shape after it; mask is 0xff for the descending form.
func decodeArrayBody(b []byte, mask byte) ([]byte, types.Datum, error) {
	var elems []types.Datum
	for {
		if len(b) == 0 {
			return nil, types.Null, corruptf("array: missing terminator")
		}
		switch b[0] ^ mask {
		case arrayEnd:
			return b[1:], types.NewArray(elems), nil
		case arrayEndShape:
			return decodeArrayShape(b[1:], mask, elems)
		case tagArray:
			return nil, types.Null, corruptf("array: nested array")
		}
		rest, e, dir, err := DecodeKeyDatum(b)
		if err != nil {
			return nil, types.Null, err
		}
		if (dir == Descending) != (mask != 0) {
			return nil, types.Null, corruptf("array: element in the other direction")
		}
		elems = append(elems, e)
		b = rest
	}
}

// decodeArrayShape reads the dimension count, lengths and lower bounds
// after arrayEndShape; the shape must hold elems and need the header.
func decodeArrayShape(b []byte, mask byte, elems []types.Datum) ([]byte, types.Datum, error) {
	next := func() (int64, error) {
		if len(b) == 0 || !isIntTag(b[0]^mask) {
			return 0, corruptf("array: missing dimension")
		}
		var v int64
		var err error
		b, v, err = decodeIntBody(b[0]^mask, b[1:], mask)
		return v, err
	}
	n, err := next()
	if err != nil {
		return nil, types.Null, err
	}
	if n < 1 || n > types.MaxArrayDims {
		return nil, types.Null, corruptf("array: %d dimensions", n)
	}
	sh := types.ArrayShape{Lens: make([]int, n), Lower: make([]int, n)}
	for i := range sh.Lens {
		l, err := next()
		if err != nil {
			return nil, types.Null, err
		}
		if l < 1 || l > int64(len(elems)) {
			return nil, types.Null, corruptf("array: dimension of length %d", l)
		}
		sh.Lens[i] = int(l)
	}
	for i := range sh.Lower {
		lb, err := next()
		if err != nil {
			return nil, types.Null, err
		}
		if lb < -1<<31 || lb >= 1<<31 {
			return nil, types.Null, corruptf("array: lower bound %d", lb)
		}
		sh.Lower[i] = int(lb)
	}
	if sh.Count() != len(elems) || n == 1 && sh.Lower[0] == 1 {
		return nil, types.Null, corruptf("array: shape does not match its elements")
	}
	return b, types.NewArrayShaped(elems, sh), nil
}
