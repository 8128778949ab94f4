package encoding

import (
	"math"

	"github.com/kvsql/kvsql/types"
)

// An interval's key is tagInterval and four tagged ints:
//
//	0x1b  <whole days>  <micros left, 0 .. 86399999999>  <months>  <days>
//
// The first two are PostgreSQL's interval_cmp_value (months as 30 days,
// days as 24 hours) split so that it fits int64s; they give the order.
// The last two keep the value's own months and days so that the key
// decodes to the interval written ('1 mon' and '30 days' are equal in
// SQL but distinct keys; the microseconds follow from the rest).
func appendIntervalAsc(b []byte, iv types.IntervalValue) []byte {
	days, rem := iv.CmpKey()
	b = appendIntAsc(append(b, tagInterval), days)
	b = appendIntAsc(b, rem)
	b = appendIntAsc(b, int64(iv.Months))
	return appendIntAsc(b, int64(iv.Days))
}

// decodeIntervalBody reads the four ints after tagInterval.
func decodeIntervalBody(b []byte, mask byte) (rest []byte, d types.Datum, err error) {
	var v [4]int64
	for i := range v {
		if len(b) == 0 || !isIntTag(b[0]^mask) {
			return nil, types.Null, corruptf("interval: missing int body")
		}
		if b, v[i], err = decodeIntBody(b[0]^mask, b[1:], mask); err != nil {
			return nil, types.Null, err
		}
	}
	days, rem, months, ddays := v[0], v[1], v[2], v[3]
	if rem < 0 || rem >= types.MicrosPerDay || months != int64(int32(months)) || ddays != int64(int32(ddays)) {
		return nil, types.Null, corruptf("interval: field out of range")
	}
	whole := days - months*30 - ddays
	if whole > math.MaxInt64/types.MicrosPerDay || whole < math.MinInt64/types.MicrosPerDay-1 {
		return nil, types.Null, corruptf("interval: microseconds out of range")
	}
	micros := whole*types.MicrosPerDay + rem
	if whole < 0 {
		micros = (whole+1)*types.MicrosPerDay + (rem - types.MicrosPerDay) // no overflow near MinInt64
	}
	iv := types.IntervalValue{Months: int32(months), Days: int32(ddays), Micros: micros}
	if d2, r2 := iv.CmpKey(); d2 != days || r2 != rem {
		return nil, types.Null, corruptf("interval: microseconds out of range")
	}
	return b, types.NewInterval(iv), nil
}
