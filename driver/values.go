package driver

import (
	"database/sql/driver"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// datum converts an argument (one of database/sql's driver.Value types)
// to a value of its parameter's type t, as a cast from the argument's
// natural type (int64 is bigint, string is text, ...) would: a string for
// an integer parameter is parsed (22P02 if it is not a number), an integer
// too large for integer is 22003. Bytes for a text parameter are the text
// itself, not bytea's escape form, and a time.Time keeps its wall clock
// for timestamp and date, its instant for timestamptz.
func datum(v driver.Value, t types.T) (types.Datum, error) {
	var d types.Datum
	var from types.Family
	switch v := v.(type) {
	case nil:
		return types.Null, nil
	case int64:
		d, from = types.NewInt(v), types.Int8
	case float64:
		d, from = types.NewFloat(v), types.Float8
	case bool:
		d, from = types.NewBool(v), types.Bool
	case string:
		if err := pgerror.CheckUTF8(v); err != nil {
			return types.Null, err
		}
		d, from = types.NewText(v), types.Text
	case []byte:
		switch t.Family {
		case types.Text, types.Varchar, types.Char, types.Unknown:
			if err := pgerror.CheckUTF8(string(v)); err != nil {
				return types.Null, err
			}
			d, from = types.NewText(string(v)), types.Text
		default:
			d, from = types.NewBytes(v), types.Bytea
		}
	case time.Time:
		switch t.Family {
		case types.Timestamp, types.Date:
			wall := time.Date(v.Year(), v.Month(), v.Day(), v.Hour(), v.Minute(), v.Second(), v.Nanosecond(), time.UTC)
			d, from = types.NewTimestamp(wall.UnixMicro()), types.Timestamp
		default:
			d, from = types.NewTimestamp(v.UnixMicro()), types.TimestampTZ
		}
	default:
		return types.Null, fmt.Errorf("kvsql: unsupported argument type %T", v)
	}
	if t.Family == types.Unknown || t.Family == from {
		return d, nil
	}
	return eval.CastFrom(d, types.T{Family: from}, t)
}

// value converts a result value of type t to the Go type a lib/pq user
// gets for it (doc.go). A value of a kind the driver does not know is
// returned as its text, as the wire server would send it.
func value(d types.Datum, t types.T) driver.Value {
	if d.IsNull() {
		return nil
	}
	if t.Family == types.Numeric {
		return numericValue(d, t)
	}
	switch d.Kind {
	case types.KindBool:
		return d.Bool()
	case types.KindInt:
		if t.Kind() == types.KindFloat {
			return float64(d.I)
		}
		return d.I
	case types.KindFloat:
		if t.Family == types.Float4 {
			return float4Value(d.F)
		}
		return d.F
	case types.KindText:
		return d.S
	case types.KindBytes:
		return []byte(d.S)
	case types.KindDate:
		return time.Unix(d.I*86400, 0).UTC()
	case types.KindTimestamp:
		return time.UnixMicro(d.I).UTC()
	}
	return string(eval.AppendText(nil, d, t))
}

// float4Value is a REAL value as the float64 closest to its printed form
// (1.1, not 1.100000023841858, the float32 nearest 1.1 widened): what
// lib/pq reads from PostgreSQL's text.
func float4Value(f float64) float64 {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return f
	}
	r, err := strconv.ParseFloat(strconv.FormatFloat(f, 'g', -1, 32), 64)
	if err != nil {
		return f
	}
	return r
}

// numericValue is a NUMERIC result: its text as PostgreSQL prints it
// (lib/pq hands NUMERIC over as text too; Scan into a string, a float64
// or a decimal type). NUMERIC's representation is changing; this is the
// one place the driver depends on it.
func numericValue(d types.Datum, t types.T) driver.Value {
	return string(eval.AppendText(nil, d, t))
}

// typeName is a column type's name as lib/pq's ColumnTypeDatabaseTypeName
// gives it: PostgreSQL's internal type name, upper case.
func typeName(t types.T) string {
	switch t.Family {
	case types.Bool:
		return "BOOL"
	case types.Int2:
		return "INT2"
	case types.Int4:
		return "INT4"
	case types.Int8:
		return "INT8"
	case types.Float4:
		return "FLOAT4"
	case types.Float8:
		return "FLOAT8"
	case types.Numeric:
		return "NUMERIC"
	case types.Text, types.Unknown: // PostgreSQL resolves unknown outputs to text
		return "TEXT"
	case types.Varchar:
		return "VARCHAR"
	case types.Char:
		return "BPCHAR"
	case types.Bytea:
		return "BYTEA"
	case types.Date:
		return "DATE"
	case types.Timestamp:
		return "TIMESTAMP"
	case types.TimestampTZ:
		return "TIMESTAMPTZ"
	}
	return strings.ToUpper(t.String())
}

// scanType is the Go type value returns for a column of type t.
func scanType(t types.T) reflect.Type {
	if t.Family == types.Numeric {
		return reflect.TypeFor[string]()
	}
	switch t.Kind() {
	case types.KindBool:
		return reflect.TypeFor[bool]()
	case types.KindInt:
		return reflect.TypeFor[int64]()
	case types.KindFloat:
		return reflect.TypeFor[float64]()
	case types.KindBytes:
		return reflect.TypeFor[[]byte]()
	case types.KindDate, types.KindTimestamp:
		return reflect.TypeFor[time.Time]()
	}
	return reflect.TypeFor[string]()
}
