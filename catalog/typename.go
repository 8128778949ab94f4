package catalog

import (
	"encoding/hex"
	"fmt"
	"github.com/cockroachdb/apd/v3"
	"strconv"
	"strings"

	"github.com/kvsql/kvsql/types"
)

// docTypeNames are the type names of the catalog document (short, in the
// spirit of the lecture's "char", "int", "double").
var docTypeNames = map[types.Family]string{
	types.Bool:        "bool",
	types.Int2:        "smallint",
	types.Int4:        "int",
	types.Int8:        "bigint",
	types.Float4:      "real",
	types.Float8:      "double",
	types.Numeric:     "numeric",
	types.Text:        "text",
	types.Varchar:     "varchar",
	types.Char:        "char",
	types.Bytea:       "bytea",
	types.Date:        "date",
	types.Timestamp:   "timestamp",
	types.TimestampTZ: "timestamptz",
	types.UUID:        "uuid",
	types.JSON:        "json",
	types.JSONB:       "jsonb",
	types.Interval:    "interval",
	types.Time:        "time",
	types.Inet:        "inet",
	types.Cidr:        "cidr",
	types.Int2Vector:  "int2vector",
	types.OidVector:   "oidvector",
	types.TimeTZ:      "timetz",
	types.Enum:        "enum",   // length holds the enum type's OID
	types.Record:      "record", // the attribute's composite names the type
}

func typeName(f types.Family) string {
	if s, ok := docTypeNames[f]; ok {
		return s
	}
	return f.String()
}

// typeNameOf is typeName for a whole type: an array type is its element
// type's name followed by [].
func typeNameOf(t types.T) string {
	if t.IsArray() {
		return typeName(t.Elem) + "[]"
	}
	return typeName(t.Family)
}

// parseType is the inverse of typeNameOf (without width and scale).
func parseType(s string) (types.T, bool) {
	if elem, ok := strings.CutSuffix(s, "[]"); ok {
		f, ok := parseTypeName(elem)
		return types.T{Family: types.Array, Elem: f}, ok
	}
	f, ok := parseTypeName(s)
	return types.T{Family: f}, ok
}

func parseTypeName(s string) (types.Family, bool) {
	for f, n := range docTypeNames {
		if n == s {
			return f, true
		}
	}
	return types.Unknown, false
}

// fixedWidth is the number of bytes a value of f takes in the lecture's
// fixed-length rowLength accounting, 0 for a variable-length type.
func fixedWidth(t types.T) int {
	switch t.Family {
	case types.Bool:
		return 1
	case types.Int2:
		return 2
	case types.Int4, types.Float4, types.Date:
		return 4
	case types.Int8, types.Float8, types.Numeric, types.Timestamp, types.TimestampTZ, types.Time:
		return 8
	case types.Interval:
		return 16
	case types.Varchar, types.Char:
		return int(t.Width)
	}
	return 0
}

// keyEncodingName names how a value of type t is key-encoded (see the
// encoding package): the kind's tagged form, in direction asc or desc.
func keyEncodingName(t types.T, desc bool) string {
	dir := "asc"
	if desc {
		dir = "desc"
	}
	return t.Kind().String() + "-" + dir
}

// formatDatum renders d as "kind:value" for the document; NULL is "".
func formatDatum(d types.Datum) string {
	switch d.Kind {
	case types.KindNull:
		return ""
	case types.KindBool:
		return "bool:" + strconv.FormatBool(d.Bool())
	case types.KindInt, types.KindDate, types.KindTimestamp, types.KindTime:
		return d.Kind.String() + ":" + strconv.FormatInt(d.I, 10)
	case types.KindInterval:
		return "interval:" + types.FormatInterval(d.Interval())
	case types.KindFloat:
		return "float:" + strconv.FormatFloat(d.F, 'g', -1, 64)
	case types.KindText:
		return "text:" + d.S
	case types.KindDecimal:
		return "decimal:" + d.S
	case types.KindBytes:
		return "bytes:" + hex.EncodeToString([]byte(d.S))
	case types.KindArray:
		return "array:" + hex.EncodeToString([]byte(d.S))
	}
	return "?"
}

// parseDatum is the inverse of formatDatum.
func parseDatum(s string) (types.Datum, error) {
	if s == "" {
		return types.Null, nil
	}
	kind, val, ok := strings.Cut(s, ":")
	if !ok {
		return types.Null, fmt.Errorf("value %q is not kind:value", s)
	}
	switch kind {
	case "bool":
		b, err := strconv.ParseBool(val)
		return types.NewBool(b), err
	case "int", "date", "timestamp", "time":
		i, err := strconv.ParseInt(val, 10, 64)
		d := types.NewInt(i)
		switch kind {
		case "date":
			d = types.NewDate(i)
		case "timestamp":
			d = types.NewTimestamp(i)
		case "time":
			d = types.NewTime(i)
		}
		return d, err
	case "interval":
		iv, err := types.ParseInterval(val)
		return types.NewInterval(iv), err
	case "float":
		f, err := strconv.ParseFloat(val, 64)
		return types.NewFloat(f), err
	case "text":
		return types.NewText(val), nil
	case "decimal":
		var x apd.Decimal
		if !types.ParseDecimal(val, &x) {
			return types.Null, fmt.Errorf("value %q is not a number", s)
		}
		return types.NewDecimal(&x), nil
	case "bytes":
		b, err := hex.DecodeString(val)
		return types.NewBytes(b), err
	case "array":
		b, err := hex.DecodeString(val)
		if err == nil && !types.ArrayValid(string(b)) {
			err = fmt.Errorf("value %q is not an array", s)
		}
		return types.Datum{Kind: types.KindArray, S: string(b)}, err
	}
	return types.Null, fmt.Errorf("value %q has unknown kind %q", s, kind)
}
