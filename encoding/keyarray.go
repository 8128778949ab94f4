package encoding

import "github.com/kvsql/kvsql/types"

// An array's key is tagArray, each element's own ascending tagged
// encoding, and a 0x00 terminator. Element encodings are self-delimiting
// and never start with 0x00, so arrays compare as PostgreSQL's array_cmp
// orders one-dimensional arrays: element by element, a NULL element after
// every value (tagNull is the largest tag), and an array before every
// longer array it is a prefix of. The descending form is all of it
// complemented, as for any value.

const arrayEnd byte = 0x00

func appendArrayAsc(b []byte, d types.Datum) []byte {
	elems, err := types.ArrayElems(nil, d)
	if err != nil {
		panic("encoding: malformed array datum")
	}
	b = append(b, tagArray)
	for _, e := range elems {
		b = appendKeyAsc(b, e)
	}
	return append(b, arrayEnd)
}

// decodeArrayBody reads the elements after tagArray up to the terminator;
// mask is 0xff for the descending form.
func decodeArrayBody(b []byte, mask byte) ([]byte, types.Datum, error) {
	var elems []types.Datum
	for {
		if len(b) == 0 {
			return nil, types.Null, corruptf("array: missing terminator")
		}
		if b[0]^mask == arrayEnd {
			return b[1:], types.NewArray(elems), nil
		}
		if b[0]^mask == tagArray {
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
