package parse

import (
	"strconv"
	"strings"
)

// typeName is a PostgreSQL or SQLite type name resolved to PostgreSQL's
// canonical lower-case spelling, with its modifiers.
type typeName struct {
	Name   string // canonical name: integer, bigint, double precision, varchar, ...
	Length *int   // first type modifier (varchar(n), numeric(p, s): p), if given
	Scale  *int   // second type modifier (numeric(p, s): s), if given
	Array  bool   // name[] or name ARRAY
	pos    int    // byte offset of the type name in the original text
}

// spelled is the name the binder receives: the canonical name, followed
// by [] for an array type.
func (tn typeName) spelled() string {
	if tn.Array {
		return tn.Name + "[]"
	}
	return tn.Name
}

// typeAliases maps single-word type names to their canonical name.
var typeAliases = map[string]string{
	"int": "integer", "integer": "integer", "int4": "integer", "mediumint": "integer",
	"int2": "smallint", "smallint": "smallint", "tinyint": "smallint",
	"int8": "bigint", "bigint": "bigint", "signed": "bigint", "unsigned": "bigint",
	"real": "real", "float4": "real",
	"float8": "double precision", "double": "double precision", "float": "double precision",
	"numeric": "numeric", "decimal": "numeric", "dec": "numeric",
	"text": "text", "varchar": "varchar", "nvarchar": "varchar", "string": "text", "clob": "text",
	"char": "char", "character": "char", "bpchar": "bpchar", "nchar": "char",
	"boolean": "boolean", "bool": "boolean",
	"bytea": "bytea", "blob": "bytea",
	"date": "date", "timestamp": "timestamp", "timestamptz": "timestamptz", "datetime": "timestamp",
	"time": "time", "timetz": "timetz",
	"regclass": "regclass", "regtype": "regtype", "regproc": "regproc", "regprocedure": "regprocedure", "oid": "oid", "name": "name", "regnamespace": "regnamespace",
	"serial": "serial", "serial4": "serial", "bigserial": "bigserial", "serial8": "bigserial",
	"smallserial": "smallserial", "serial2": "smallserial",
	"interval": "interval", "json": "json", "jsonb": "jsonb", "uuid": "uuid",
	"inet": "inet", "cidr": "cidr", "int2vector": "int2vector", "oidvector": "oidvector",
}

// literalTypes are the type names PostgreSQL accepts in the
// `typename 'literal'` form that kvsql rewrites to a cast.
var literalTypes = map[string]bool{
	"date": true, "timestamp": true, "timestamptz": true, "time": true, "interval": true,
	"int": true, "integer": true, "int2": true, "int4": true, "int8": true, "bigint": true, "smallint": true,
	"real": true, "float4": true, "float8": true, "double": true, "numeric": true, "decimal": true,
	"text": true, "varchar": true, "char": true, "character": true, "bpchar": true,
	"boolean": true, "bool": true, "bytea": true, "regclass": true, "regtype": true, "oid": true, "name": true,
	"json": true, "jsonb": true, "uuid": true, "inet": true, "cidr": true,
}

// parseType reads a type name starting at toks[i] and returns it with the
// index of the first token after it. ok is false when toks[i] cannot start
// a type name.
func parseType(sql string, toks []token, i int) (tn typeName, next int, ok bool, err error) {
	if i >= len(toks) || (toks[i].kind != tkIdent && toks[i].kind != tkQIdent) {
		return tn, i, false, nil
	}
	tn.pos = toks[i].pos
	// Skip a pg_catalog. qualifier.
	if i+2 < len(toks) && toks[i].is("pg_catalog") && toks[i+1].isPunct(".") {
		i += 2
	}
	t := toks[i]
	word := t.val
	i++
	peek := func(kw string) bool { return i < len(toks) && toks[i].is(kw) }
	if i+1 < len(toks) && toks[i].isPunct(".") && (toks[i+1].kind == tkIdent || toks[i+1].kind == tkQIdent) &&
		!(i+2 < len(toks) && toks[i+2].isOp("%")) {
		// schema.name: a user type in a schema (the binder looks it up).
		tn.Name = word + "." + toks[i+1].val
		i += 2
	} else if t.kind == tkQIdent {
		tn.Name = t.val
	} else {
		switch word {
		case "double":
			if peek("precision") {
				i++
			}
			tn.Name = "double precision"
		case "character", "char", "nchar":
			if peek("varying") {
				i++
				tn.Name = "varchar"
			} else {
				tn.Name = "char"
			}
		case "national":
			if !peek("character") && !peek("char") {
				return tn, i, false, nil
			}
			i++
			tn.Name = "char"
			if peek("varying") {
				i++
				tn.Name = "varchar"
			}
		case "signed", "unsigned":
			if peek("integer") || peek("int") {
				i++
			}
			tn.Name = "bigint"
		case "bit":
			return tn, i, false, unsupported(sql, t.pos, "type bit is not supported")
		default:
			if c, found := typeAliases[word]; found {
				tn.Name = c
			} else {
				tn.Name = word
			}
		}
	}
	// Modifiers: (n) or (p, s).
	if i < len(toks) && toks[i].isPunct("(") {
		var mods []int
		j := i + 1
		for {
			if j >= len(toks) {
				return tn, i, false, syntaxErr(sql, toks[i].pos, "unterminated type modifier")
			}
			neg := false
			if toks[j].isOp("-") {
				neg = true
				j++
			}
			if j >= len(toks) || toks[j].kind != tkNumber {
				return tn, i, false, syntaxErr(sql, toks[min(j, len(toks)-1)].pos, "type modifiers must be simple constants")
			}
			v, perr := strconv.Atoi(toks[j].val)
			if perr != nil {
				return tn, i, false, syntaxErr(sql, toks[j].pos, "invalid type modifier %q", toks[j].val)
			}
			if neg {
				v = -v
			}
			mods = append(mods, v)
			j++
			if j < len(toks) && toks[j].isPunct(",") {
				j++
				continue
			}
			if j < len(toks) && toks[j].isPunct(")") {
				j++
				break
			}
			return tn, i, false, syntaxErr(sql, toks[min(j, len(toks)-1)].pos, "syntax error in type modifier")
		}
		if len(mods) > 2 {
			return tn, i, false, syntaxErr(sql, toks[i].pos, "too many type modifiers")
		}
		tn.Length = &mods[0]
		if len(mods) == 2 {
			tn.Scale = &mods[1]
		}
		i = j
		if tn.Name == "double precision" && word == "float" {
			if mods[0] <= 24 {
				tn.Name = "real"
			}
			tn.Length = nil
		}
	}
	// interval [field [TO field]] [(p)]: the SQL standard's qualifier
	// joins the name ("interval day to second"); second's precision is
	// the first modifier.
	if tn.Name == "interval" {
		i = intervalQualifier(toks, i, &tn)
	}
	// timestamp/time [(p)] WITH[OUT] TIME ZONE.
	if (tn.Name == "timestamp" || tn.Name == "time") && i+2 < len(toks) &&
		(toks[i].is("with") || toks[i].is("without")) && toks[i+1].is("time") && toks[i+2].is("zone") {
		if toks[i].is("with") {
			tn.Name += "tz"
		}
		i += 3
	}
	// Arrays: name[] / name[n] / name ARRAY / name ARRAY[n].
	for i < len(toks) {
		if toks[i].isPunct("[") {
			j := i + 1
			if j < len(toks) && toks[j].kind == tkNumber {
				j++
			}
			if j < len(toks) && toks[j].isPunct("]") {
				tn.Array = true
				i = j + 1
				continue
			}
			break
		}
		if toks[i].is("array") {
			tn.Array = true
			i++
			continue
		}
		break
	}
	return tn, i, true, nil
}

// intervalQualifier reads an interval's SQL-standard qualifier at
// toks[i] (field [TO field], second's optional precision) into tn's name
// and first modifier, returning the index after it.
func intervalQualifier(toks []token, i int, tn *typeName) int {
	fields := map[string]bool{"year": true, "month": true, "day": true, "hour": true, "minute": true, "second": true}
	if i >= len(toks) || toks[i].kind != tkIdent || !fields[toks[i].val] {
		return i
	}
	tn.Name += " " + toks[i].val
	i++
	if i+1 < len(toks) && toks[i].is("to") && toks[i+1].kind == tkIdent && fields[toks[i+1].val] {
		tn.Name += " to " + toks[i+1].val
		i += 2
	}
	if strings.HasSuffix(tn.Name, "second") && i+2 < len(toks) && toks[i].isPunct("(") && toks[i+1].kind == tkNumber && toks[i+2].isPunct(")") {
		if p, err := strconv.Atoi(toks[i+1].val); err == nil {
			tn.Length = &p
			i += 3
		}
	}
	return i
}
