package session

import (
	"context"
	"slices"
	"strconv"
	"time"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
	"vitess.io/vitess/go/vt/sqlparser"
)

// CREATE INDEX: the index's definition from the statement, its operator
// classes, and the hidden generated columns of an index over expressions
// or with a WHERE predicate (planner/generated.go), filled for the rows
// the table has before the index is built.

func (s *Session) createIndex(t *txn, p *parse.Statement, tableName string, id *sqlparser.IndexDefinition) error {
	def := catalog.IndexDef{Name: id.Info.Name.String(), Table: tableName, Unique: id.Info.Type == sqlparser.IndexTypeUnique,
		NullsNotDistinct: p.IndexNullsNotDistinct, Include: p.IndexInclude, Constraint: p.IndexConstraint}
	if p.IndexNameGenerated {
		def.Name = s.freeRelationName(t, def.Name)
	}
	if p.IfNotExists {
		schema, _ := catalog.SplitRelKey(tableName) // an index lives in its table's schema
		if _, _, err := t.cat.Index(s.database, catalog.RelKey(schema, def.Name)); err == nil {
			return nil
		}
	}
	for _, ic := range id.Columns {
		if ic.Expression != nil {
			return pgerror.New(pgerror.FeatureNotSupported, "indexes on expressions are not supported")
		}
		def.Columns = append(def.Columns, ic.Column.String())
		def.Desc = append(def.Desc, ic.Direction == sqlparser.DescOrder)
	}
	if err := s.checkOpclasses(t, tableName, def.Columns, p); err != nil {
		return err
	}
	if len(p.IndexExprs) > 0 || p.IndexWhere != "" {
		if err := s.addIndexColumns(t, tableName, &def, p); err != nil {
			return err
		}
	}
	switch p.IndexMethod {
	case "", "btree", "keyid":
		def.Form = catalog.FormKeyID
	case "inverted", "gin":
		if len(def.Include) > 0 {
			// An inverted entry's value is the list of the rows' primary
			// keys: there is no one row whose values it could carry.
			return pgerror.Newf(pgerror.FeatureNotSupported, "access method %q does not support included columns", p.IndexMethod)
		}
		if def.Unique {
			return pgerror.New(pgerror.FeatureNotSupported, "a unique index cannot use the inverted-list form")
		}
		def.Form = catalog.FormInverted
		// Over an array column, an inverted index lists each element
		// (GIN's array_ops), over jsonb each path and scalar (GIN's
		// jsonb_path_ops); GIN has no other operator class here.
		tbl, err := t.cat.Table(s.database, tableName)
		if err != nil {
			return err
		}
		isArray := len(def.Columns) == 1 && tbl.ColumnOrdinal(def.Columns[0]) >= 0 && catalog.ElementsIndexable(tbl.Columns[tbl.ColumnOrdinal(def.Columns[0])].Type)
		switch {
		case isArray:
			def.Elements = true
		case p.IndexMethod == "gin":
			typ := "these columns"
			if len(def.Columns) == 1 && tbl.ColumnOrdinal(def.Columns[0]) >= 0 {
				typ = tbl.Columns[tbl.ColumnOrdinal(def.Columns[0])].Type.String()
			}
			return pgerror.Newf(pgerror.UndefinedObject, "data type %s has no default operator class for access method \"gin\"", typ)
		}
	default:
		return pgerror.Newf(pgerror.UndefinedObject, "access method %q does not exist (kvsql has btree = keyid, inverted and gin)", p.IndexMethod)
	}
	next, err := t.cat.CreateIndex(t.kv, s.database, def)
	if err != nil {
		return err
	}
	tbl, err := next.Table(s.database, tableName)
	if err != nil {
		return err
	}
	idx := tbl.IndexByName(def.Name)
	if idx == nil {
		return pgerror.Newf(pgerror.Internal, "index %q vanished after creation", def.Name)
	}
	if err := s.backfillIndex(t, tbl, idx, "CREATE INDEX"); err != nil {
		return err
	}
	t.setCatalog(next)
	return nil
}

// freeRelationName is name, or name followed by the first number that
// makes it no relation's name (PostgreSQL's ChooseRelationName).
func (s *Session) freeRelationName(t *txn, name string) string {
	taken := func(n string) bool {
		if _, err := t.cat.Table(s.database, n); err == nil {
			return true
		}
		_, _, err := t.cat.Index(s.database, n)
		return err == nil
	}
	for i := 1; taken(name); i++ {
		if !taken(name + strconv.Itoa(i)) {
			return name + strconv.Itoa(i)
		}
	}
	return name
}

// opclassTypes lists, for each operator class kvsql accepts, the type
// families it orders: every one is the type's default order (text and
// pattern classes alike, in the C collation kvsql compares in), so naming
// one changes nothing.
var opclassTypes = map[string][]types.Family{
	"int2_ops": {types.Int2, types.Int4, types.Int8}, "int4_ops": {types.Int2, types.Int4, types.Int8}, "int8_ops": {types.Int2, types.Int4, types.Int8},
	"float4_ops": {types.Float4, types.Float8}, "float8_ops": {types.Float4, types.Float8}, "numeric_ops": {types.Numeric},
	"text_ops": {types.Text, types.Varchar}, "varchar_ops": {types.Text, types.Varchar}, "name_ops": {types.Text, types.Varchar},
	"text_pattern_ops": {types.Text, types.Varchar}, "varchar_pattern_ops": {types.Text, types.Varchar},
	"bpchar_ops": {types.Char}, "bpchar_pattern_ops": {types.Char}, "bool_ops": {types.Bool}, "bytea_ops": {types.Bytea},
	"date_ops": {types.Date}, "timestamp_ops": {types.Timestamp}, "timestamptz_ops": {types.TimestampTZ},
	"time_ops": {types.Time}, "interval_ops": {types.Interval}, "uuid_ops": {types.UUID},
	"inet_ops": {types.Inet, types.Cidr}, "cidr_ops": {types.Inet, types.Cidr},
	"jsonb_ops": {types.JSONB}, "jsonb_path_ops": {types.JSONB}, "array_ops": {types.Array},
}

// checkOpclasses checks the operator classes CREATE INDEX names against
// their columns' types: PostgreSQL's 42704 for an unknown class and 42804
// for one of another type.
func (s *Session) checkOpclasses(t *txn, table string, cols []string, p *parse.Statement) error {
	if len(p.IndexOpclasses) == 0 {
		return nil
	}
	tbl, err := t.cat.Table(s.database, table)
	if err != nil {
		return err
	}
	method := p.IndexMethod
	if method == "" {
		method = "btree"
	}
	for k, cls := range p.IndexOpclasses {
		fams, ok := opclassTypes[cls]
		if !ok {
			return pgerror.Newf(pgerror.UndefinedObject, "operator class %q does not exist for access method %q", cls, method)
		}
		if k >= len(cols) {
			continue
		}
		o := tbl.ColumnOrdinal(cols[k])
		if o < 0 {
			continue // an expression, or a column CreateIndex reports missing
		}
		if typ := tbl.Columns[o].Type; !slices.Contains(fams, typ.Family) {
			return pgerror.Newf(pgerror.DatatypeMismatch, "operator class %q does not accept data type %s", cls, typ)
		}
	}
	return nil
}

// addIndexColumns adds to the table the hidden generated columns that
// hold an index's expressions and its WHERE predicate (planner/generated.go)
// and computes them for the rows it has, before the index is built over
// them. PostgreSQL's errors for such expressions come from binding them.
func (s *Session) addIndexColumns(t *txn, table string, def *catalog.IndexDef, p *parse.Statement) error {
	tbl, err := t.cat.Table(s.database, table)
	if err != nil {
		return err
	}
	pl := s.planner(t.cat)
	cat := t.cat
	add := func(name, expr string, predicate bool) error {
		typ, err := pl.BindIndexExpr(tbl, expr, predicate)
		if err != nil {
			return err
		}
		cat, err = cat.AddColumn(t.kv, s.database, table, catalog.Column{Name: name, Type: typ, Hidden: true, Generated: expr})
		return err
	}
	// The hidden columns are named after the index; a column left by an
	// index of the same name dropped earlier in the transaction, or a
	// user's column so named, moves the name on.
	free := func(name string) string {
		n := name
		for i := 1; tbl.ColumnOrdinal(n) >= 0; i++ {
			n = name + "_" + strconv.Itoa(i)
		}
		return n
	}
	for i, name := range def.Columns {
		if expr, ok := p.IndexExprs[name]; ok {
			def.Columns[i] = free(def.Name + ".expr" + strconv.Itoa(i))
			if err := add(def.Columns[i], expr, false); err != nil {
				return err
			}
		}
	}
	if p.IndexWhere != "" {
		def.Predicate = free(def.Name + ".where")
		if err := add(def.Predicate, p.IndexWhere, true); err != nil {
			return err
		}
	}
	ntbl, err := cat.Table(s.database, table)
	if err != nil {
		return err
	}
	gen, err := s.planner(cat).Generated(ntbl)
	if err != nil {
		return err
	}
	env := &eval.Env{Ctx: context.Background(), Now: time.Now(), Database: s.database}
	var olds [][]types.Datum
	it, err := index.ScanMaster(t.kv, ntbl, index.Span{}, false)
	if err != nil {
		return err
	}
	for it.Next() {
		olds = append(olds, append([]types.Datum(nil), it.Row()...))
	}
	if err := it.Close(); err != nil {
		return err
	}
	for _, old := range olds {
		nw := append([]types.Datum(nil), old...)
		for _, g := range gen {
			v, err := eval.Eval(env, g.Expr, nw)
			if err != nil {
				return err
			}
			nw[g.Col] = v
		}
		if err := index.Update(t.kv, ntbl, old, nw); err != nil {
			return err
		}
	}
	t.setCatalog(cat)
	return nil
}
