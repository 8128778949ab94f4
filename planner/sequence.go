package planner

import (
	"strconv"
	"strings"

	"github.com/kvsql/kvsql/catalog"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// seqFuncs are the functions whose first argument names a sequence.
var seqFuncs = map[string]bool{"nextval": true, "currval": true, "setval": true, "pg_sequence_last_value": true,
	"kvsql_seq_last_value": true, "kvsql_seq_log_cnt": true, "kvsql_seq_is_called": true}

// bindSeqArgs types the arguments of a sequence function. A constant
// name is looked up now, as PostgreSQL casts it to regclass when it
// parses the call (42P01 for an unknown one), and becomes the
// sequence's OID; a regclass OID stays a bigint; any other text is looked
// up when the call runs.
func (b *binder) bindSeqArgs(name string, args []Expr) error {
	if len(args) == 0 {
		return nil
	}
	switch c, isConst := args[0].(*Const); {
	case isConst && !c.Value.IsNull() && c.Value.Kind == types.KindText:
		ref, err := SequenceRefName(c.Value.S)
		if err != nil {
			return err
		}
		rel, err := b.p.LookupRef(ref)
		if err != nil {
			return err
		}
		seq, err := b.p.Catalog.Sequence(b.p.DB, rel)
		if err == nil {
			if err := b.checkSequenceUse(name, rel, seq); err != nil { // privilege.go
				return err
			}
		}
		if err != nil {
			if seq = b.p.Catalog.SerialSequence(b.p.DB, rel); seq == nil {
				if pgerror.HasCode(err, pgerror.UndefinedTable) {
					return pgerror.Newf(pgerror.UndefinedTable, "relation %q does not exist", c.Value.S)
				}
				return err
			}
		}
		args[0] = &Const{Value: types.NewInt(int64(seq.ID)), T: tInt8}
	case args[0].Type().Kind() == types.KindInt:
		x, err := coerce(args[0], tInt8)
		if err != nil {
			return err
		}
		args[0] = x
	default:
		x, err := coerce(args[0], tText)
		if err != nil {
			return err
		}
		args[0] = x
	}
	if name == "setval" {
		x, err := coerce(args[1], tInt8)
		if err != nil {
			return err
		}
		args[1] = x
		if len(args) > 2 {
			if args[2], err = coerce(args[2], tBool); err != nil {
				return err
			}
		}
	}
	return nil
}

// SequenceRefName parses the text argument of nextval and friends into a
// name as the dialect layer writes one (parse.QualifiedRef: its parts
// joined by catalog.KeySep), unquoted parts lower-cased; LookupRef
// resolves it.
func SequenceRefName(text string) (string, error) {
	var parts []string
	for i := 0; i <= len(text); {
		if i < len(text) && text[i] == '"' {
			j := i + 1
			var b strings.Builder
			for j < len(text) {
				if text[j] == '"' {
					if j+1 < len(text) && text[j+1] == '"' {
						b.WriteByte('"')
						j += 2
						continue
					}
					break
				}
				b.WriteByte(text[j])
				j++
			}
			if j >= len(text) {
				return "", pgerror.New(pgerror.InvalidTextRepresentation, "invalid name syntax")
			}
			parts = append(parts, b.String())
			i = j + 1
		} else {
			j := strings.IndexByte(text[i:], '.')
			if j < 0 {
				j = len(text) - i
			}
			part := strings.ToLower(strings.TrimSpace(text[i : i+j]))
			if part == "" {
				return "", pgerror.New(pgerror.InvalidTextRepresentation, "invalid name syntax")
			}
			parts = append(parts, part)
			i += j
		}
		if i >= len(text) {
			break
		}
		if text[i] != '.' {
			return "", pgerror.New(pgerror.InvalidTextRepresentation, "invalid name syntax")
		}
		i++
	}
	if len(parts) <= 3 {
		return strings.Join(parts, catalog.KeySep), nil
	}
	return "", pgerror.Newf(pgerror.InvalidTextRepresentation, "improper relation name (too many dotted names): %s", text)
}

// sequenceRelation is SELECT * FROM seq: one row of the counter's
// last_value, log_cnt and is_called, read when the query runs.
func sequenceRelation(s *catalog.Sequence) Node {
	ref := &Const{Value: types.NewInt(int64(s.ID)), T: tInt8}
	return &Values{
		Cols: []Column{{Name: "last_value", T: tInt8}, {Name: "log_cnt", T: tInt8}, {Name: "is_called", T: tBool}},
		Rows: [][]Expr{{
			&Func{Name: "kvsql_seq_last_value", Args: []Expr{ref}, T: tInt8},
			&Func{Name: "kvsql_seq_log_cnt", Args: []Expr{ref}, T: tInt8},
			&Func{Name: "kvsql_seq_is_called", Args: []Expr{ref}, T: tBool},
		}},
	}
}

// sequences are the sequences of the current database, by name.
func (g *vgen) sequences() []*catalog.Sequence {
	seqs, _ := g.cat.Sequences(g.db)
	return seqs
}

// serialSequences are the synthetic sequences of the serial columns
// (catalog.SerialSequences) whose names no real sequence takes.
func (g *vgen) serialSequences() []*catalog.Sequence {
	var out []*catalog.Sequence
	for _, s := range g.cat.SerialSequences(g.db) {
		if _, err := g.cat.Sequence(g.db, s.Name); err != nil {
			out = append(out, s)
		}
	}
	return out
}

// seqTypeOID is the type OID of a sequence's data type.
func seqTypeOID(typ string) int64 {
	switch typ {
	case "smallint":
		return int64(types.Int2.OID())
	case "integer":
		return int64(types.Int4.OID())
	}
	return int64(types.Int8.OID())
}

func pgSequence(g *vgen) [][]Expr {
	var out [][]Expr
	for _, s := range append(g.sequences(), g.serialSequences()...) {
		out = append(out, vrow(int64(s.ID), seqTypeOID(s.Type), s.Start, s.Increment, s.Max, s.Min, s.Cache, s.Cycle))
	}
	return out
}

func pgSequences(g *vgen) [][]Expr {
	var out [][]Expr
	for _, s := range append(g.sequences(), g.serialSequences()...) {
		last := &Func{Name: "pg_sequence_last_value", Args: []Expr{&Const{Value: types.NewInt(int64(s.ID)), T: tInt8}}, T: tInt8}
		out = append(out, vrow(catalog.SchemaName(s.Schema), s.Name, g.roleName(catalog.OwnerID(s.Owner)), s.Type, s.Start, s.Min, s.Max, s.Increment, s.Cycle, s.Cache, last))
	}
	return out
}

func isSequences(g *vgen) [][]Expr {
	var out [][]Expr
	for _, s := range append(g.sequences(), g.serialSequences()...) {
		prec := map[string]int{"smallint": 16, "integer": 32, "bigint": 64}[s.Type]
		cycle := "NO"
		if s.Cycle {
			cycle = "YES"
		}
		out = append(out, vrow(g.db, "public", s.Name, s.Type, prec, 2, 0, strconv.FormatInt(s.Start, 10),
			strconv.FormatInt(s.Min, 10), strconv.FormatInt(s.Max, 10), strconv.FormatInt(s.Increment, 10), cycle))
	}
	return out
}
