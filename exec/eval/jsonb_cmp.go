package eval

import (
	"encoding/json"
	"strings"

	"github.com/cockroachdb/apd/v3"
	"github.com/kvsql/kvsql/types"
)

// jsonb's total order (PostgreSQL's compareJsonbContainers): values of
// different types order object > array > boolean > number > string >
// null; arrays compare by length first, then element by element;
// objects by their number of pairs first, then key, value, key, value
// ... in their stored key order; numbers by value (1.0 = 1); strings by
// bytes. A top-level scalar is a one-element "raw scalar" array to
// PostgreSQL, so it sorts below a one-element array and above an empty
// one.

// jsonbRank is the type order of jsonb values.
func jsonbRank(v any) int {
	switch v.(type) {
	case nil:
		return 0
	case string:
		return 1
	case json.Number:
		return 2
	case bool:
		return 3
	case []any:
		return 4
	}
	return 5
}

// compareJSONBText compares two jsonb texts; a text that does not parse
// (never a jsonb value) compares by bytes.
func compareJSONBText(a, b string) int {
	x, err := parseJSON(a)
	if err != nil {
		return strings.Compare(a, b)
	}
	y, err := parseJSON(b)
	if err != nil {
		return strings.Compare(a, b)
	}
	return compareJSONBTop(x, y)
}

func compareJSONBTop(x, y any) int {
	xa, xArr := x.([]any)
	ya, yArr := y.([]any)
	_, xObj := x.(*jsonObject)
	_, yObj := y.(*jsonObject)
	xScalar, yScalar := !xArr && !xObj, !yArr && !yObj
	switch {
	case xScalar && yArr:
		if len(ya) != 1 {
			return cmpInt(1, int64(len(ya)))
		}
		return -1
	case xArr && yScalar:
		if len(xa) != 1 {
			return cmpInt(int64(len(xa)), 1)
		}
		return 1
	}
	return compareJSONB(x, y)
}

func compareJSONB(x, y any) int {
	rx, ry := jsonbRank(x), jsonbRank(y)
	if rx != ry {
		return cmpInt(int64(rx), int64(ry))
	}
	switch a := x.(type) {
	case nil:
		return 0
	case string:
		return strings.Compare(a, y.(string))
	case json.Number:
		var p, q apd.Decimal
		if !types.ParseDecimal(string(a), &p) || !types.ParseDecimal(string(y.(json.Number)), &q) {
			return strings.Compare(string(a), string(y.(json.Number)))
		}
		return p.Cmp(&q)
	case bool:
		b := y.(bool)
		switch {
		case a == b:
			return 0
		case b:
			return -1
		}
		return 1
	case []any:
		b := y.([]any)
		if len(a) != len(b) {
			return cmpInt(int64(len(a)), int64(len(b)))
		}
		for i := range a {
			if c := compareJSONB(a[i], b[i]); c != 0 {
				return c
			}
		}
		return 0
	case *jsonObject:
		b := y.(*jsonObject)
		if len(a.keys) != len(b.keys) {
			return cmpInt(int64(len(a.keys)), int64(len(b.keys)))
		}
		for i := range a.keys {
			if c := strings.Compare(a.keys[i], b.keys[i]); c != 0 {
				return c
			}
			if c := compareJSONB(a.vals[i], b.vals[i]); c != 0 {
				return c
			}
		}
	}
	return 0
}

// jsonbHashText is the text Hash feeds for a jsonb value: equal values
// (by compareJSONB) give equal texts.
func jsonbHashText(s string) string { return types.JSONBKeyText(s) }
