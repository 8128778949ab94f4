package eval

import (
	"strconv"
	"strings"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// castToVector reads int2vector or oidvector text as int2vectorin and
// oidvectorin do: numbers separated by spaces, each checked as a
// smallint (22P02, 22003) or an oid (a 32-bit number, a negative one
// taken modulo 2^32 as oidin does); the value is their canonical text.
// An array is never a valid vector: PostgreSQL's vectors are subscripted
// from 0, arrays from 1 (42804).
func castToVector(d types.Datum, from, to types.T) (types.Datum, error) {
	switch {
	case d.Kind == types.KindText && (from.Family == to.Family || from.Family != types.Int2Vector && from.Family != types.OidVector):
		fields := strings.Fields(d.S)
		for i, f := range fields {
			n, err := strconv.ParseInt(f, 10, 64)
			if to.Family == types.Int2Vector {
				if err != nil && !isRangeErr(err) {
					return types.Null, pgerror.Newf(pgerror.InvalidTextRepresentation, "invalid input syntax for type smallint: %q", f)
				}
				if err != nil || n < -32768 || n > 32767 {
					return types.Null, pgerror.Newf(pgerror.NumericValueOutOfRange, "value %q is out of range for type smallint", f)
				}
			} else {
				if err != nil && !isRangeErr(err) {
					return types.Null, pgerror.Newf(pgerror.InvalidTextRepresentation, "invalid input syntax for type oid: %q", f)
				}
				if err != nil || n < -2147483648 || n > 4294967295 {
					return types.Null, pgerror.Newf(pgerror.NumericValueOutOfRange, "value %q is out of range for type oid", f)
				}
				n = int64(uint32(n))
			}
			fields[i] = strconv.FormatInt(n, 10)
		}
		return types.NewText(strings.Join(fields, " ")), nil
	case d.Kind == types.KindArray:
		return types.Null, pgerror.Newf(pgerror.DatatypeMismatch, "array is not a valid %s", to.Family)
	}
	return types.Null, cannotCast(from, to)
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}
