package eval

import (
	"math"

	"github.com/cockroachdb/apd/v3"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// codeInvalidWidthBucket is 2201G invalid_argument_for_width_bucket_function.
const codeInvalidWidthBucket pgerror.Code = "2201G"

// widthBucketRange is width_bucket(operand, b1, b2, count) on non-NULL
// arguments: which of count equal-width buckets between b1 and b2 holds
// operand, 0 below the range and count+1 above it (b2 > b1 reverses the
// buckets). numeric says which of PostgreSQL's two functions the binder
// chose: on numeric the bucket is exact, on double precision it is
// computed in floating point and clamped below count+1, as PostgreSQL
// does.
func widthBucketRange(args []types.Datum, numeric bool) (types.Datum, error) {
	count := args[3].I
	if count <= 0 {
		return types.Null, pgerror.New(codeInvalidWidthBucket, "count must be greater than zero")
	}
	if numeric {
		return widthBucketNumeric(args, count)
	}
	op, b1, b2 := toFloat(args[0]), toFloat(args[1]), toFloat(args[2])
	if math.IsNaN(op) || math.IsNaN(b1) || math.IsNaN(b2) {
		return types.Null, pgerror.New(codeInvalidWidthBucket, "operand, lower bound, and upper bound cannot be NaN")
	}
	if math.IsInf(b1, 0) || math.IsInf(b2, 0) {
		return types.Null, pgerror.New(codeInvalidWidthBucket, "lower and upper bounds must be finite")
	}
	// lo..hi is the range with op measured from its first bucket's edge.
	var pos, width float64
	switch {
	case b1 < b2:
		if op < b1 {
			return types.NewInt(0), nil
		}
		if op >= b2 {
			return bucketAbove(count)
		}
		pos, width = op-b1, b2-b1
		if math.IsInf(width, 0) {
			pos, width = op/2-b1/2, b2/2-b1/2
		}
	case b1 > b2:
		if op > b1 {
			return types.NewInt(0), nil
		}
		if op <= b2 {
			return bucketAbove(count)
		}
		pos, width = b1-op, b1-b2
		if math.IsInf(width, 0) {
			pos, width = b1/2-op/2, b1/2-b2/2
		}
	default:
		return types.Null, pgerror.New(codeInvalidWidthBucket, "lower bound cannot equal upper bound")
	}
	r := int64(float64(count) * (pos / width))
	// The quotient can round up to 1.0: that would name bucket count+1.
	if r >= count {
		r = count - 1
	}
	return types.NewInt(r + 1), nil
}

// bucketAbove is count+1, which must fit an integer.
func bucketAbove(count int64) (types.Datum, error) {
	if count+1 > math.MaxInt32 {
		return types.Null, intOutOfRange(types.Int4)
	}
	return types.NewInt(count + 1), nil
}

func widthBucketNumeric(args []types.Datum, count int64) (types.Datum, error) {
	var op, b1, b2 apd.Decimal
	for i, x := range []*apd.Decimal{&op, &b1, &b2} {
		if err := toDecimal(args[i], x); err != nil {
			return types.Null, err
		}
	}
	if isNaN(&op) || isNaN(&b1) || isNaN(&b2) {
		return types.Null, pgerror.New(codeInvalidWidthBucket, "operand, lower bound, and upper bound cannot be NaN")
	}
	if b1.Form == apd.Infinite || b2.Form == apd.Infinite {
		return types.Null, pgerror.New(codeInvalidWidthBucket, "lower and upper bounds must be finite")
	}
	var pos, width apd.Decimal
	ctx := apd.BaseContext.WithPrecision(2000)
	switch c := b1.Cmp(&b2); {
	case c < 0:
		if op.Cmp(&b1) < 0 {
			return types.NewInt(0), nil
		}
		if op.Cmp(&b2) >= 0 {
			return bucketAbove(count)
		}
		_, _ = ctx.Sub(&pos, &op, &b1)
		_, _ = ctx.Sub(&width, &b2, &b1)
	case c > 0:
		if op.Cmp(&b1) > 0 {
			return types.NewInt(0), nil
		}
		if op.Cmp(&b2) <= 0 {
			return bucketAbove(count)
		}
		_, _ = ctx.Sub(&pos, &b1, &op)
		_, _ = ctx.Sub(&width, &b1, &b2)
	default:
		return types.Null, pgerror.New(codeInvalidWidthBucket, "lower bound cannot equal upper bound")
	}
	// (pos * count) / width, truncated: exact, so it lies in 0..count-1.
	var n, q apd.Decimal
	n.SetInt64(count)
	_, _ = ctx.Mul(&n, &n, &pos)
	if _, err := ctx.QuoInteger(&q, &n, &width); err != nil {
		return types.Null, numericOverflow()
	}
	r, err := q.Int64()
	if err != nil {
		return types.Null, numericOverflow()
	}
	return types.NewInt(r + 1), nil
}
