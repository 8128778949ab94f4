package eval

import (
	"hash/maphash"
	"math"
	"strings"

	"github.com/cockroachdb/apd/v3"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// Kind classes: values of kinds in the same class compare by value; values
// of different classes order by class rank (a total order for sorting
// mixed data, never used to say two values are equal).
const (
	classBool = iota
	classNumber
	classText
	classBytes
	classTime
	classInterval
	classTimeOfDay
	classArray
	classRecord
	classNull // last: NULL sorts after everything
)

func classOf(k types.Kind) int {
	switch k {
	case types.KindBool:
		return classBool
	case types.KindInt, types.KindFloat, types.KindDecimal:
		return classNumber
	case types.KindText:
		return classText
	case types.KindBytes:
		return classBytes
	case types.KindDate, types.KindTimestamp:
		return classTime
	case types.KindInterval:
		return classInterval
	case types.KindTime:
		return classTimeOfDay
	case types.KindArray:
		return classArray
	case types.KindRecord:
		return classRecord
	}
	return classNull
}

// Compare is the total order of ORDER BY, DISTINCT, GROUP BY, sorting and
// merging. It returns -1, 0 or +1.
//
//   - NULL equals NULL and sorts after every value (callers flip the sign
//     of NULL-vs-value results for NULLS FIRST).
//   - Ints and floats compare numerically and exactly (no rounding of large
//     int64s); NaN equals NaN and sorts above every number; -0 equals 0.
//   - Text compares by bytes (C collation); bytea by bytes.
//   - false < true.
//   - A date compares with a timestamp as midnight of that day.
//   - Values of unrelated kinds order by a fixed rank of kinds.
func Compare(a, b types.Datum) int {
	if a.Kind == b.Kind {
		switch a.Kind {
		case types.KindNull:
			return 0
		case types.KindBool, types.KindInt, types.KindDate, types.KindTimestamp, types.KindTime:
			return cmpInt(a.I, b.I)
		case types.KindInterval:
			return a.Interval().Cmp(b.Interval())
		case types.KindFloat:
			return types.CompareFloat(a.F, b.F)
		case types.KindText:
			if a.I|b.I != 0 && a.S != b.S {
				return compareJSONBText(a.S, b.S)
			}
			return strings.Compare(a.S, b.S)
		case types.KindBytes:
			return strings.Compare(a.S, b.S)
		case types.KindDecimal:
			if a.S == b.S {
				return 0
			}
			var x, y apd.Decimal
			a.Decimal(&x)
			b.Decimal(&y)
			return decimalCompare(&x, &y)
		case types.KindArray:
			return compareArrays(a, b)
		case types.KindRecord:
			return compareRecords(a, b)
		}
		return 0
	}
	ca, cb := classOf(a.Kind), classOf(b.Kind)
	if ca != cb {
		return cmpInt(int64(ca), int64(cb))
	}
	switch ca {
	case classNumber:
		switch {
		case a.Kind == types.KindFloat || b.Kind == types.KindFloat:
			// numeric meets float8 as float8, as PostgreSQL casts it.
			if a.Kind == types.KindDecimal {
				return types.CompareFloat(decimalFloat(a), b.F)
			}
			if b.Kind == types.KindDecimal {
				return types.CompareFloat(a.F, decimalFloat(b))
			}
		case a.Kind == types.KindDecimal || b.Kind == types.KindDecimal:
			var x, y apd.Decimal
			_ = toDecimal(a, &x)
			_ = toDecimal(b, &y)
			return decimalCompare(&x, &y)
		}
		if a.Kind == types.KindInt {
			return cmpIntFloat(a.I, b.F)
		}
		return -cmpIntFloat(b.I, a.F)
	case classTime:
		return cmpInt(timeMicros(a), timeMicros(b))
	}
	return 0
}

// Equal is grouping equality: Compare(a, b) == 0, so NULL equals NULL,
// NaN equals NaN, and int 1 equals float 1.0.
func Equal(a, b types.Datum) bool { return Compare(a, b) == 0 }

// Hash feeds d into h consistently with Equal: Equal(a, b) implies equal
// hashes. Numbers hash by value (an integral float hashes as the int),
// dates hash as the timestamp of their midnight.
func Hash(h *maphash.Hash, d types.Datum) {
	switch d.Kind {
	case types.KindNull:
		h.WriteByte(0)
	case types.KindBool:
		h.WriteByte(1)
		maphash.WriteComparable(h, d.I)
	case types.KindInt:
		h.WriteByte(2)
		maphash.WriteComparable(h, d.I)
	case types.KindFloat:
		h.WriteByte(2)
		f := d.F
		switch {
		case math.IsNaN(f):
			maphash.WriteComparable(h, uint64(0x7ff8000000000001))
		case f >= -(1<<63) && f < 1<<63 && f == math.Trunc(f):
			maphash.WriteComparable(h, int64(f)) // also folds -0 into 0
		default:
			maphash.WriteComparable(h, math.Float64bits(f))
		}
	case types.KindDecimal:
		h.WriteByte(2)
		var x apd.Decimal
		d.Decimal(&x)
		if x.Form == apd.Finite {
			var r apd.Decimal
			r.Reduce(&x)
			if r.Exponent >= 0 {
				if i, err := r.Int64(); err == nil {
					maphash.WriteComparable(h, i) // as the equal int
					return
				}
			}
		}
		f := decimalFloat(d)
		switch {
		case math.IsNaN(f):
			maphash.WriteComparable(h, uint64(0x7ff8000000000001))
		case f >= -(1<<63) && f < 1<<63 && f == math.Trunc(f):
			maphash.WriteComparable(h, int64(f))
		default:
			maphash.WriteComparable(h, math.Float64bits(f))
		}
	case types.KindText:
		h.WriteByte(3)
		if d.I == types.TextJSONB {
			h.WriteString(jsonbHashText(d.S))
			return
		}
		h.WriteString(d.S)
	case types.KindBytes:
		h.WriteByte(4)
		h.WriteString(d.S)
	case types.KindDate, types.KindTimestamp:
		h.WriteByte(5)
		maphash.WriteComparable(h, timeMicros(d))
	case types.KindInterval:
		h.WriteByte(6) // by cmp value: '1 mon' and '30 days' group together
		days, rem := d.Interval().CmpKey()
		maphash.WriteComparable(h, days)
		maphash.WriteComparable(h, rem)
	case types.KindTime:
		h.WriteByte(7)
		maphash.WriteComparable(h, d.I)
	case types.KindArray:
		h.WriteByte(8)
		elems, _ := types.ArrayElems(nil, d)
		for _, e := range elems {
			Hash(h, e)
		}
	case types.KindRecord:
		h.WriteByte(9)
		fields, _ := types.RecordFields(nil, d)
		for _, f := range fields {
			Hash(h, f)
		}
	}
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// cmpIntFloat compares an int64 with a float64 exactly.
func cmpIntFloat(i int64, f float64) int {
	switch {
	case math.IsNaN(f):
		return -1
	case f >= 1<<63:
		return -1
	case f < -(1 << 63):
		return 1
	}
	t := math.Trunc(f)
	if c := cmpInt(i, int64(t)); c != 0 {
		return c
	}
	switch {
	case f > t:
		return -1
	case f < t:
		return 1
	}
	return 0
}

// timeMicros is a date or timestamp as microseconds since the epoch; a
// date is its midnight. Dates beyond the int64 microsecond range saturate.
func timeMicros(d types.Datum) int64 {
	if d.Kind != types.KindDate {
		return d.I
	}
	const maxDays = math.MaxInt64 / microsPerDay
	switch {
	case d.I > maxDays:
		return math.MaxInt64
	case d.I < -maxDays:
		return math.MinInt64
	}
	return d.I * microsPerDay
}

const microsPerDay = 86_400_000_000

// compareSQL compares two non-NULL values for a SQL comparison operator.
// Unlike Compare, NaN follows PostgreSQL (NaN = NaN, NaN above all) which
// Compare already does, but values of unrelated kinds are a 42883 error
// rather than ordered by rank.
func compareSQL(a, b types.Datum) (int, error) {
	if a.Kind != b.Kind && classOf(a.Kind) != classOf(b.Kind) {
		return 0, pgerror.Newf(pgerror.UndefinedFunction, "operator does not exist: %s = %s", a.Kind, b.Kind)
	}
	return Compare(a, b), nil
}

// compareOp applies comparison operator op to non-NULL a and b.
func compareOp(op string, a, b types.Datum) (bool, error) {
	switch op {
	case "~~", "!~~", "~~*", "!~~*": // [NOT] LIKE and ILIKE, of ANY/ALL (array)
		m, err := Like(a.S, b.S, `\`, strings.HasSuffix(op, "*"))
		return m != strings.HasPrefix(op, "!"), err
	}
	c, err := compareSQL(a, b)
	if err != nil {
		return false, err
	}
	switch op {
	case "=":
		return c == 0, nil
	case "<>", "!=":
		return c != 0, nil
	case "<":
		return c < 0, nil
	case "<=":
		return c <= 0, nil
	case ">":
		return c > 0, nil
	case ">=":
		return c >= 0, nil
	}
	return false, pgerror.Newf(pgerror.UndefinedFunction, "operator does not exist: %s", op)
}
