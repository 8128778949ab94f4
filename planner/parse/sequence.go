package parse

import (
	"strconv"
	"strings"

	"github.com/kvsql/kvsql/pgerror"
)

// SequenceStmt is CREATE, ALTER or DROP SEQUENCE.
type SequenceStmt struct {
	Op string // "create", "alter" or "drop"
	// Names holds the sequence (one for CREATE and ALTER; DROP may name
	// several), without a "public." qualifier.
	Names       []string
	IfExists    bool // ALTER / DROP ... IF EXISTS
	IfNotExists bool // CREATE ... IF NOT EXISTS
	Temp        bool // CREATE TEMP SEQUENCE
	Cascade     bool // DROP ... CASCADE
	// RenameTo is ALTER SEQUENCE name RENAME TO RenameTo (no options).
	RenameTo string
	Options  SequenceOptions
}

// SequenceOptions are the options of CREATE / ALTER SEQUENCE; a nil
// pointer is an option not written.
type SequenceOptions struct {
	Type                        string // AS type: "smallint", "integer", "bigint" or as written
	Increment, Min, Max, Start  *int64
	Cache                       *int64
	NoMin, NoMax                bool
	Cycle                       *bool
	Restart                     bool     // ALTER ... RESTART
	RestartWith                 *int64   // ALTER ... RESTART [WITH] n
	OwnedBy                     []string // OWNED BY table.column: [table, column]
	OwnedNone, OwnedBySpecified bool     // OWNED BY NONE
}

// sequence parses CREATE [TEMP] SEQUENCE [IF NOT EXISTS] name options,
// ALTER SEQUENCE [IF EXISTS] name {options | RENAME TO new} and DROP SEQUENCE [IF EXISTS]
// name [, ...] [CASCADE | RESTRICT].
func (r *rewriter) sequence(toks []token) (Statement, error) {
	var st Statement
	c := &cursor{r: r, toks: toks, i: 1}
	ss := &SequenceStmt{Op: toks[0].val}
	st.Sequence = ss
	if ss.Op == "create" && (c.accept("temp") || c.accept("temporary")) {
		ss.Temp = true
	}
	// UNLOGGED: kvsql logs every sequence, which only keeps more than
	// an unlogged one promises (its value after a crash).
	if ss.Op == "create" {
		c.accept("unlogged")
	}
	if err := c.expect("sequence"); err != nil {
		return st, err
	}
	if c.accept("if") {
		if ss.Op == "create" {
			if err := c.expect("not"); err != nil {
				return st, err
			}
			ss.IfNotExists = true
		} else {
			ss.IfExists = true
		}
		if err := c.expect("exists"); err != nil {
			return st, err
		}
	}
	for {
		name, err := c.sequenceName()
		if err != nil {
			return st, err
		}
		ss.Names = append(ss.Names, name)
		if ss.Op != "drop" || c.done() || !c.toks[c.i].isPunct(",") {
			break
		}
		c.i++
	}
	if ss.Op == "drop" {
		if c.accept("cascade") {
			ss.Cascade = true
		} else {
			c.accept("restrict")
		}
		return st, c.end()
	}
	if ss.Op == "alter" && c.accept("set") {
		// SET LOGGED / SET UNLOGGED: see UNLOGGED above.
		if !c.accept("logged") && !c.accept("unlogged") {
			return st, c.errHere()
		}
		return st, c.end()
	}
	if ss.Op == "alter" && c.accept("rename") {
		if err := c.expect("to"); err != nil {
			return st, err
		}
		name, err := c.name()
		if err != nil {
			return st, err
		}
		ss.RenameTo = name
		return st, c.end()
	}
	return st, c.sequenceOptions(&ss.Options, ss.Op == "alter")
}

// sequenceName reads a possibly schema-qualified name; only public (or
// no schema) is accepted.
func (c *cursor) sequenceName() (string, error) {
	parts, err := c.qualifiedName()
	if err != nil {
		return "", err
	}
	if len(parts) > 2 || len(parts) == 2 && parts[0] != "public" {
		return "", pgerror.Newf(pgerror.InvalidSchemaName, "schema %q does not exist", parts[0])
	}
	return parts[len(parts)-1], nil
}

// signedInt reads an optionally signed integer literal.
func (c *cursor) signedInt() (int64, error) {
	neg := false
	if !c.done() && (c.toks[c.i].isOp("-") || c.toks[c.i].isOp("+")) {
		neg = c.toks[c.i].isOp("-")
		c.i++
	}
	if c.done() || c.toks[c.i].kind != tkNumber {
		return 0, c.errHere()
	}
	text := c.toks[c.i].val
	if neg {
		text = "-" + text
	}
	v, err := strconv.ParseInt(text, 10, 64)
	if err != nil {
		if strings.ContainsAny(text, ".eE") {
			return 0, pgerror.Newf(pgerror.InvalidTextRepresentation, "invalid input syntax for type bigint: %q", text)
		}
		return 0, pgerror.Newf(pgerror.NumericValueOutOfRange, "value %q is out of range for type bigint", text)
	}
	c.i++
	return v, nil
}

func (c *cursor) sequenceOptions(o *SequenceOptions, alter bool) error {
	seen := map[string]bool{}
	once := func(name string) error {
		if seen[name] {
			return pgerror.New(pgerror.SyntaxError, "conflicting or redundant options")
		}
		seen[name] = true
		return nil
	}
	num := func(dst **int64) error {
		v, err := c.signedInt()
		if err != nil {
			return err
		}
		*dst = &v
		return nil
	}
	for !c.done() {
		switch {
		case c.accept("as"):
			if err := once("as"); err != nil {
				return err
			}
			start := c.i
			for !c.done() && c.toks[c.i].kind == tkIdent && !sequenceOptionWords[c.toks[c.i].val] {
				c.i++
			}
			if c.i == start {
				return c.errHere()
			}
			var words []string
			for _, t := range c.toks[start:c.i] {
				words = append(words, t.val)
			}
			o.Type = strings.Join(words, " ")
			switch o.Type {
			case "int2", "smallint":
				o.Type = "smallint"
			case "int", "int4", "integer":
				o.Type = "integer"
			case "int8", "bigint":
				o.Type = "bigint"
			}
		case c.accept("increment"):
			if err := once("increment"); err != nil {
				return err
			}
			c.accept("by")
			if err := num(&o.Increment); err != nil {
				return err
			}
		case c.accept("minvalue"):
			if err := once("minvalue"); err != nil {
				return err
			}
			if err := num(&o.Min); err != nil {
				return err
			}
		case c.accept("maxvalue"):
			if err := once("maxvalue"); err != nil {
				return err
			}
			if err := num(&o.Max); err != nil {
				return err
			}
		case c.accept("start"):
			if err := once("start"); err != nil {
				return err
			}
			c.accept("with")
			if err := num(&o.Start); err != nil {
				return err
			}
		case c.accept("cache"):
			if err := once("cache"); err != nil {
				return err
			}
			if err := num(&o.Cache); err != nil {
				return err
			}
		case c.accept("cycle"):
			if err := once("cycle"); err != nil {
				return err
			}
			t := true
			o.Cycle = &t
		case c.accept("no"):
			switch {
			case c.accept("minvalue"):
				if err := once("minvalue"); err != nil {
					return err
				}
				o.NoMin = true
			case c.accept("maxvalue"):
				if err := once("maxvalue"); err != nil {
					return err
				}
				o.NoMax = true
			case c.accept("cycle"):
				if err := once("cycle"); err != nil {
					return err
				}
				f := false
				o.Cycle = &f
			default:
				return c.errHere()
			}
		case c.accept("owned"):
			if err := c.expect("by"); err != nil {
				return err
			}
			if err := once("owned"); err != nil {
				return err
			}
			o.OwnedBySpecified = true
			if c.accept("none") {
				o.OwnedNone = true
				continue
			}
			parts, err := c.qualifiedName()
			if err != nil {
				return err
			}
			if len(parts) == 3 && parts[0] == "public" {
				parts = parts[1:]
			}
			if len(parts) != 2 {
				return pgerror.New(pgerror.SyntaxError, "invalid OWNED BY option")
			}
			o.OwnedBy = parts
		case alter && c.accept("restart"):
			if err := once("restart"); err != nil {
				return err
			}
			o.Restart = true
			if c.accept("with") || !c.done() && (c.toks[c.i].kind == tkNumber || c.toks[c.i].isOp("-") || c.toks[c.i].isOp("+")) {
				if err := num(&o.RestartWith); err != nil {
					return err
				}
			}
		default:
			return c.errHere()
		}
	}
	return nil
}

// sequenceOptionWords end AS type's words.
var sequenceOptionWords = map[string]bool{
	"increment": true, "minvalue": true, "maxvalue": true, "start": true, "cache": true,
	"cycle": true, "no": true, "owned": true, "restart": true,
}
