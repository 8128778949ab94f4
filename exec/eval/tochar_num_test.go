package eval

import (
	"bufio"
	"errors"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/apd/v3"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// TestToCharNumbersPG checks to_char for int2, int4, int8, real, double
// precision and numeric against PostgreSQL 15's answers in
// testdata/tochar_num.txt: the to_char statements of PostgreSQL's
// numeric and int8 regression tests (with their num_data and int8_tbl
// values), edge cases of every pattern and random templates.
func TestToCharNumbersPG(t *testing.T) {
	f, err := os.Open("testdata/tochar_num.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20) // numerics of 131072 digits
	line, cases, failed, skipped := 0, 0, 0, 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		c, err := parseToCharCase(text)
		if errors.Is(err, errOutOfNumericRange) {
			skipped++
			continue
		}
		if err != nil {
			t.Fatalf("line %d: %v", line, err)
		}
		cases++
		got, err := toChar(&Env{}, c.value, c.typ, c.format)
		var gotText, gotCode string
		if err != nil {
			var pe *pgerror.Error
			if !errors.As(err, &pe) {
				t.Errorf("line %d: to_char(%s::%s, %q): error without SQLSTATE: %v", line, c.valueText, c.typ, c.format, err)
				failed++
				continue
			}
			gotText, gotCode = pe.Message, string(pe.Code)
		} else {
			gotText, gotCode = got.S, "ok"
		}
		if gotCode != c.code || gotText != c.want {
			failed++
			t.Errorf("line %d: to_char(%s::%s, %q) = %s %q; PostgreSQL: %s %q",
				line, c.valueText, c.typ, c.format, gotCode, gotText, c.code, c.want)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if cases < 1000 {
		t.Fatalf("only %d cases read", cases)
	}
	t.Logf("%d of %d cases match PostgreSQL (%d values beyond kvsql's numeric range skipped)", cases-failed, cases, skipped)
}

// toCharCase is one line of testdata/tochar_num.txt.
type toCharCase struct {
	typ       types.T
	valueText string
	value     types.Datum
	format    string
	code      string // "ok" or the SQLSTATE
	want      string // the result or the error message
}

// errOutOfNumericRange marks a case whose value PostgreSQL's numeric
// holds but kvsql's does not (an exponent beyond apd's).
var errOutOfNumericRange = errors.New("numeric value out of kvsql's range")

// parseToCharCase reads "type value template code want", the strings
// Go-quoted, tab-separated.
func parseToCharCase(line string) (toCharCase, error) {
	var c toCharCase
	fields := strings.Split(line, "\t")
	if len(fields) != 5 {
		return c, errors.New("want 5 tab-separated fields")
	}
	var err error
	if c.valueText, err = strconv.Unquote(fields[1]); err != nil {
		return c, err
	}
	if c.format, err = strconv.Unquote(fields[2]); err != nil {
		return c, err
	}
	c.code = fields[3]
	if c.want, err = strconv.Unquote(fields[4]); err != nil {
		return c, err
	}
	switch fields[0] {
	case "int2", "int4", "int8":
		c.typ = types.T{Family: map[string]types.Family{"int2": types.Int2, "int4": types.Int4, "int8": types.Int8}[fields[0]]}
		v, err := strconv.ParseInt(c.valueText, 10, 64)
		if err != nil {
			return c, err
		}
		c.value = types.NewInt(v)
	case "float4", "float8":
		c.typ = types.T{Family: types.Float8}
		bits := 64
		if fields[0] == "float4" {
			c.typ, bits = types.T{Family: types.Float4}, 32
		}
		v, err := strconv.ParseFloat(c.valueText, bits)
		if err != nil && !math.IsInf(v, 0) {
			return c, err
		}
		c.value = types.NewFloat(v)
	case "numeric":
		c.typ = types.T{Family: types.Numeric}
		var d apd.Decimal
		switch ok, overflow := types.ParseDecimalRange(c.valueText, &d); {
		case overflow:
			return c, errOutOfNumericRange
		case !ok:
			return c, errors.New("bad numeric " + c.valueText)
		}
		c.value = types.NewDecimal(&d)
	default:
		return c, errors.New("unknown type " + fields[0])
	}
	return c, nil
}

// TestToCharNumericScaleCap: a numeric keeps at most 16,383 fraction
// digits (NUMERIC_DSCALE_MAX), so a template with more 9s after the
// point prints those digits and stops, as PostgreSQL 15 does
// (to_char(1.5, '9.' || repeat('9', 200000)) is 16,386 characters
// there).
func TestToCharNumericScaleCap(t *testing.T) {
	x, _, _ := apd.NewFromString("1.5")
	got, err := toChar(&Env{}, types.NewDecimal(x), types.T{Family: types.Numeric}, "9."+strings.Repeat("9", 200000))
	if err != nil {
		t.Fatal(err)
	}
	if want := " 1.5" + strings.Repeat("0", numericDScaleMax-1); got.S != want {
		t.Fatalf("got %d characters, PostgreSQL %d", len(got.S), len(want))
	}
}
