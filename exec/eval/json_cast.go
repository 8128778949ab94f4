package eval

import (
	"encoding/json"
	"time"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// castFromJSONB is jsonb's casts to boolean and the numeric types
// (PostgreSQL's jsonb_bool, jsonb_int4, jsonb_float8, ...): a jsonb
// boolean to boolean, a jsonb number to a number as numeric would cast
// it (rounding half away from zero into an integer type), anything else
// 22023 naming the jsonb's type. ok is false for other target types.
func castFromJSONB(d types.Datum, to types.T, loc *time.Location) (r types.Datum, ok bool, err error) {
	switch to.Family {
	case types.Bool, types.Int2, types.Int4, types.Int8, types.Numeric, types.Float4, types.Float8:
	default:
		return types.Null, false, nil
	}
	if d.Kind != types.KindText {
		return types.Null, false, nil
	}
	v, err := parseJSON(d.S)
	if err != nil {
		return types.Null, true, err
	}
	var kind string
	switch v := v.(type) {
	case nil:
		kind = "null"
	case string:
		kind = "string"
	case bool:
		if to.Family == types.Bool {
			return types.NewBool(v), true, nil
		}
		kind = "boolean"
	case json.Number:
		if to.Family != types.Bool {
			n, err := castToNumeric(types.NewText(string(v)), types.T{Family: types.Text}, types.T{Family: types.Numeric})
			if err != nil {
				return n, true, err
			}
			r, err := CastFromIn(n, types.T{Family: types.Numeric}, to, loc)
			return r, true, err
		}
		kind = "numeric"
	case []any:
		kind = "array"
	default:
		kind = "object"
	}
	return types.Null, true, pgerror.Newf(pgerror.InvalidParameterValue, "cannot cast jsonb %s to type %s", kind, to)
}
