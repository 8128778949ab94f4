package eval

import (
	"strings"
	"time"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// Composite values (types/record.go): PostgreSQL's record_out and
// record_in text forms, and record comparison.

// appendRecordText appends d as record_out writes it: "(f1,f2,...)",
// a NULL field empty, a field quoted when it is empty or holds a quote,
// a backslash, a parenthesis, a comma or white space (quotes and
// backslashes doubled inside).
func appendRecordText(b []byte, d types.Datum, t types.T, st Style) []byte {
	fields, err := types.RecordFields(nil, d)
	if err != nil {
		return append(b, "(?)"...)
	}
	b = append(b, '(')
	var tmp []byte
	for i, f := range fields {
		if i > 0 {
			b = append(b, ',')
		}
		if f.IsNull() {
			continue
		}
		ft := types.T{Family: types.Text}
		if t.Comp != nil && i < len(t.Comp.Fields) {
			ft = t.Comp.Fields[i].T
		}
		if f.Kind == types.KindBool {
			tmp = append(tmp[:0], "ft"[f.I&1])
		} else {
			tmp = AppendTextStyle(tmp[:0], f, ft, st)
		}
		b = appendRecordField(b, tmp)
	}
	return append(b, ')')
}

func appendRecordField(b, s []byte) []byte {
	quote := len(s) == 0
	for _, c := range s {
		if c == '"' || c == '\\' || c == '(' || c == ')' || c == ',' || isRecordSpace(c) {
			quote = true
			break
		}
	}
	if !quote {
		return append(b, s...)
	}
	b = append(b, '"')
	for _, c := range s {
		if c == '"' || c == '\\' {
			b = append(b, c)
		}
		b = append(b, c)
	}
	return append(b, '"')
}

func isRecordSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// compareRecords orders records field by field (NULL after every
// value), then the fewer fields first.
func compareRecords(a, b types.Datum) int {
	xs, _ := types.RecordFields(nil, a)
	ys, _ := types.RecordFields(nil, b)
	for i := 0; i < len(xs) && i < len(ys); i++ {
		if c := Compare(xs[i], ys[i]); c != 0 {
			return c
		}
	}
	return cmpInt(int64(len(xs)), int64(len(ys)))
}

// castToRecord converts text to the composite type to (record_in); a
// record of the type itself passes unchanged.
func castToRecord(d types.Datum, from, to types.T, loc *time.Location) (types.Datum, error) {
	switch {
	case d.Kind == types.KindRecord && (from.Comp == to.Comp || to.Comp == nil):
		return d, nil
	case d.Kind == types.KindRecord:
		return recordToRecord(d, from, to, loc)
	case d.Kind != types.KindText:
		return types.Null, pgerror.Newf("42846", "cannot cast type %s to %s", from, to)
	case to.Comp == nil:
		return types.Null, pgerror.New(pgerror.FeatureNotSupported, "input of anonymous composite types is not implemented")
	}
	texts, nulls, err := ParseRecordText(d.S, len(to.Comp.Fields))
	if err != nil {
		return types.Null, err
	}
	vals := make([]types.Datum, len(texts))
	for i, s := range texts {
		if nulls[i] {
			continue
		}
		if vals[i], err = CastFromIn(types.NewText(s), types.T{Family: types.Text}, to.Comp.Fields[i].T, loc); err != nil {
			return types.Null, err
		}
	}
	return types.NewRecord(vals), nil
}

// recordToRecord casts a record field by field to a composite type with
// as many fields (42846 otherwise, as PostgreSQL's record cast says).
func recordToRecord(d types.Datum, from, to types.T, loc *time.Location) (types.Datum, error) {
	fields, err := types.RecordFields(nil, d)
	if err != nil {
		return types.Null, err
	}
	if len(fields) != len(to.Comp.Fields) {
		e := pgerror.Newf("42846", "cannot cast type %s to %s", from, to)
		if len(fields) > len(to.Comp.Fields) {
			e.Detail = "Input has too many columns."
		} else {
			e.Detail = "Input has too few columns."
		}
		return types.Null, e
	}
	for i, f := range fields {
		ft := types.T{Family: types.Unknown}
		if from.Comp != nil {
			ft = from.Comp.Fields[i].T
		} else if f.Kind == types.KindText {
			ft = types.T{Family: types.Text}
		}
		if fields[i], err = CastFromIn(f, ft, to.Comp.Fields[i].T, loc); err != nil {
			return types.Null, err
		}
	}
	return types.NewRecord(fields), nil
}

// ParseRecordText splits PostgreSQL's record text "(a,"b c",)" into n
// field texts, nulls marking the empty unquoted ones; 22P02 "malformed
// record literal" with record_in's details otherwise.
func ParseRecordText(s string, n int) (texts []string, nulls []bool, err error) {
	bad := func(detail string) error {
		e := pgerror.Newf(pgerror.InvalidTextRepresentation, "malformed record literal: %q", s)
		e.Detail = detail
		return e
	}
	i := 0
	for i < len(s) && isRecordSpace(s[i]) {
		i++
	}
	if i == len(s) || s[i] != '(' {
		return nil, nil, bad("Missing left parenthesis.")
	}
	i++
	for f := 0; ; f++ {
		if f == n {
			if i < len(s) && s[i] == ')' {
				break
			}
			return nil, nil, bad("Too many columns.")
		}
		if f > 0 {
			if i >= len(s) || s[i] != ',' {
				return nil, nil, bad("Too few columns.")
			}
			i++
		}
		var sb strings.Builder
		quoted := false
		inQuote := false
		for i < len(s) {
			c := s[i]
			if !inQuote && (c == ',' || c == ')') {
				break
			}
			switch {
			case c == '\\':
				if i+1 >= len(s) {
					return nil, nil, bad("Unexpected end of input.")
				}
				sb.WriteByte(s[i+1])
				i += 2
				continue
			case c == '"' && !inQuote:
				inQuote, quoted = true, true
			case c == '"' && i+1 < len(s) && s[i+1] == '"':
				sb.WriteByte('"')
				i++
			case c == '"':
				inQuote = false
			default:
				sb.WriteByte(c)
			}
			i++
		}
		if i >= len(s) {
			return nil, nil, bad("Unexpected end of input.")
		}
		texts = append(texts, sb.String())
		nulls = append(nulls, !quoted && sb.Len() == 0)
	}
	i++
	for i < len(s) && isRecordSpace(s[i]) {
		i++
	}
	if i != len(s) {
		return nil, nil, bad("Junk after right parenthesis.")
	}
	return texts, nulls, nil
}

// checkDomain casts x (of type from) to a domain's base type to and
// checks the domain's constraints on the result: NOT NULL (23502) and
// each CHECK (23514; a NULL result passes, as a table's CHECK does).
func checkDomain(env *Env, dom *planner.DomainConstraint, x types.Datum, from, to types.T) (types.Datum, error) {
	v, err := CastFromIn(x, from, to, env.loc())
	if err != nil {
		return types.Null, err
	}
	return v, CheckDomainValue(env, dom, v)
}

// CheckDomainValue checks the domain's constraints on v, a value of its
// base type.
func CheckDomainValue(env *Env, dom *planner.DomainConstraint, v types.Datum) error {
	if dom.Elements {
		if v.IsNull() {
			return nil
		}
		elems, err := types.ArrayElems(nil, v)
		if err != nil {
			return pgerror.New(pgerror.DataCorrupted, "malformed array value")
		}
		one := *dom
		one.Elements = false
		for _, e := range elems {
			if err := CheckDomainValue(env, &one, e); err != nil {
				return err
			}
		}
		return nil
	}
	if v.IsNull() {
		if dom.NotNull {
			return pgerror.Newf(pgerror.NotNullViolation, "domain %s does not allow null values", dom.Name)
		}
		return nil
	}
	row := []types.Datum{v}
	for _, c := range dom.Checks {
		ok, err := Eval(env, c.Expr, row)
		if err != nil {
			return err
		}
		if !ok.IsNull() && !ok.Bool() {
			e := pgerror.Newf(pgerror.CheckViolation, "value for domain %s violates check constraint %q", dom.Name, c.Name)
			return e
		}
	}
	return nil
}

// jsonToRecord converts a JSON value to a value of the composite type t
// as populate_record does: an object member by member (missing members
// take base's fields, NULL without a base), a string by the record's
// text form; an array or another scalar is 22023.
func jsonToRecord(v any, t types.T, base types.Datum) (types.Datum, error) {
	switch v := v.(type) {
	case *jsonObject:
		vals := make([]types.Datum, len(t.Comp.Fields))
		if !base.IsNull() {
			fields, err := types.RecordFields(nil, base)
			if err != nil {
				return types.Null, pgerror.New(pgerror.DataCorrupted, "malformed record value")
			}
			copy(vals, fields)
		}
		for i, f := range t.Comp.Fields {
			m, ok := v.get(f.Name)
			if !ok {
				continue
			}
			if f.T.Family == types.Record && f.T.Comp != nil && !vals[i].IsNull() {
				if o, isObject := m.(*jsonObject); isObject {
					var err error
					if vals[i], err = jsonToRecord(o, f.T, vals[i]); err != nil {
						return types.Null, err
					}
					continue
				}
			}
			var err error
			if vals[i], err = jsonToSQL(m, f.T); err != nil {
				return types.Null, err
			}
		}
		return types.NewRecord(vals), nil
	case []any:
		return types.Null, pgerror.New(pgerror.InvalidParameterValue, "cannot call populate_composite on an array")
	case string:
		return CastFrom(types.NewText(v), types.T{Family: types.Text}, t)
	}
	return types.Null, pgerror.New(pgerror.InvalidParameterValue, "cannot call populate_composite on a scalar")
}

// evalRow builds the record of a row constructor's arguments.
func evalRow(env *Env, e *planner.Func, row []types.Datum) (types.Datum, error) {
	vals := make([]types.Datum, len(e.Args))
	for i, a := range e.Args {
		d, err := Eval(env, a, row)
		if err != nil {
			return types.Null, err
		}
		vals[i] = d
	}
	return types.NewRecord(vals), nil
}

// evalField reads field Args[1] of the record Args[0] (NULL of a NULL
// record).
func evalField(env *Env, e *planner.Func, row []types.Datum) (types.Datum, error) {
	rec, err := Eval(env, e.Args[0], row)
	if err != nil || rec.IsNull() {
		return types.Null, err
	}
	i, err := Eval(env, e.Args[1], row)
	if err != nil {
		return types.Null, err
	}
	fields, err := types.RecordFields(nil, rec)
	if err != nil || i.I < 0 || int(i.I) >= len(fields) {
		return types.Null, pgerror.New(pgerror.DataCorrupted, "malformed record value")
	}
	return fields[i.I], nil
}

// FieldColumns are the fields of the composite type t as columns.
func FieldColumns(t types.T) []planner.Column {
	if t.Comp == nil {
		return nil
	}
	cols := make([]planner.Column, len(t.Comp.Fields))
	for i, f := range t.Comp.Fields {
		cols[i] = planner.Column{Name: f.Name, T: f.T}
	}
	return cols
}

// evalPopulate is jsonb_populate_record(base, doc) as an expression
// (Args are the document, then the base): the base's record with the
// document's members in place of its fields.
func evalPopulate(env *Env, e *planner.Func, row []types.Datum) (types.Datum, error) {
	doc, err := Eval(env, e.Args[0], row)
	if err != nil {
		return types.Null, err
	}
	base, err := Eval(env, e.Args[1], row)
	if err != nil || doc.IsNull() {
		return base, err
	}
	cols := FieldColumns(e.T)
	defaults := make([]types.Datum, len(cols))
	if !base.IsNull() {
		fields, err := types.RecordFields(nil, base)
		if err != nil {
			return types.Null, pgerror.New(pgerror.DataCorrupted, "malformed record value")
		}
		copy(defaults, fields)
	}
	rows, err := JSONPopulateRows(e.Name, doc, cols, defaults)
	if err != nil || len(rows) != 1 {
		return types.Null, err
	}
	return types.NewRecord(rows[0]), nil
}
