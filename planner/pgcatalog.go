package planner

// Virtual pg_catalog and information_schema relations.
//
// PostgreSQL clients learn about a database by querying its system
// catalogs: psql's \dt, \d t, \di, \l, \dn and \du, drivers' type and
// column lookups, ORMs' information_schema reads. kvsql keeps no such
// tables. Instead, when a FROM item names one of them, virtualRelation
// materialises it at plan time from the planner's catalog snapshot as a
// *Values node with typed columns, and the rest of the query (joins,
// filters, subqueries, ORDER BY) runs over it as over any other rows.
//
// Object identifiers (OIDs) are derived from kvsql's catalog so that they
// are stable while the schema does not change and unique among the rows
// of one relation (see the oid* functions): a table's OID is its master
// key space id, an index's OID its index key space id. Types keep their
// real PostgreSQL OIDs, namespaces theirs (pg_catalog 11, public 2200).
//
// Columns of PostgreSQL type oid, regproc and the like are typed bigint
// (kvsql has no oid type); "char" columns (relkind, contype...) are text;
// array columns are arrays (conkey int2[], reloptions and the ACLs text[],
// oid[] and oidvector bigint[]: clients such as pg_dump unnest them, test
// them with = ANY and pass them to array_to_string), except int2vector and
// oidvector columns clients parse as text: indkey, indclass... are text in
// their output form ("1 2").

import (
	"hash/fnv"
	"sort"

	"github.com/kvsql/kvsql/catalog"
	"github.com/kvsql/kvsql/types"
)

// Namespace OIDs, as PostgreSQL assigns them.
const (
	oidPgCatalog         = 11
	oidPublic            = 2200
	oidPgToast           = 99
	oidInformationSchema = 13000 // PostgreSQL's varies by release; any fixed value
	oidBootstrapRole     = 10    // the role owning every object
	oidDatabaseOwnerRole = 6171  // pg_database_owner, owner of public
	oidBtreeAM           = 403
	oidHeapAM            = 2
)

// OID ranges for objects that have no key space of their own. Key space
// ids are small counters, far below these bases.
const (
	oidPrimaryKeyBase = 0x40000000 // + table id: the primary key "index" (the master file)
	oidConstraintBase = 0x50000000 // + table id (primary key) or index id (unique)
	oidForeignKeyBase = 0x58000000 // + table id * 64 + ordinal
	oidCheckBase      = 0x5C000000 // + table id * 64 + ordinal
	oidViewBase       = 0x60000000 // + 28-bit hash of the view name
	oidAttrDefBase    = 0x70000000 // + table id * 1024 + column number
	oidDatabaseBase   = 16384      // + ordinal in sorted database names (pg_database.oid)
)

// vcol is one column of a virtual relation.
type vcol struct {
	name string
	t    types.T
}

// vrel describes one virtual relation: its columns and how to build its
// rows from a catalog snapshot.
type vrel struct {
	cols []vcol
	rows func(g *vgen) [][]Expr
}

// vgen is what a relation's row generator reads: the planner's catalog
// snapshot, the current database and the binder (to plan views for their
// column types).
type vgen struct {
	b    *binder
	cat  *catalog.Catalog
	db   string
	boot string // the bootstrap superuser's name (Planner.Bootstrap)
}

// isVirtualSchema reports whether schema holds virtual relations.
func isVirtualSchema(schema string) bool {
	return schema == "pg_catalog" || schema == "information_schema"
}

// virtualRelation returns the rows of the virtual relation schema.name as
// a Values node, and whether such a relation exists. schema is
// "pg_catalog", "information_schema" or "" (unqualified: pg_catalog
// relations only, as PostgreSQL's search_path puts pg_catalog first; the
// caller lets a user table of the same name shadow it).
func (b *binder) virtualRelation(schema, name string) (Node, bool, error) {
	var rel *vrel
	switch schema {
	case "", "pg_catalog":
		rel = pgCatalogRelations[name]
	case "information_schema":
		rel = infoSchemaRelations[name]
	}
	if rel == nil {
		return nil, false, nil
	}
	g := &vgen{b: b, cat: b.p.Catalog, db: b.p.DB, boot: b.p.Bootstrap}
	n := &Values{Rows: rel.rows(g)}
	for _, c := range rel.cols {
		n.Cols = append(n.Cols, Column{Name: c.name, T: c.t})
	}
	for _, r := range n.Rows {
		if len(r) != len(n.Cols) {
			panic("planner: virtual relation " + name + ": row width differs from its columns") // broken invariant
		}
	}
	retype(n.Rows, rel.cols)
	if oid, ok := catalogOIDs[name]; ok && schema != "information_schema" {
		// tableoid, the system column naming the catalog a row is in
		// (pg_dump selects it from every catalog it reads).
		n.Cols = append(n.Cols, Column{Name: "tableoid", T: tInt8, Hidden: true})
		for i, r := range n.Rows {
			n.Rows[i] = append(r, oidConst(oid))
		}
	}
	return n, true, nil
}

// catalogOIDs are the OIDs PostgreSQL gives its system catalogs (a
// catalog row's tableoid, pg_class's OID in regclass).
var catalogOIDs = map[string]int64{
	"pg_class": 1259, "pg_namespace": 2615, "pg_type": 1247, "pg_attribute": 1249, "pg_proc": 1255,
	"pg_constraint": 2606, "pg_index": 2610, "pg_attrdef": 2604, "pg_am": 2601, "pg_collation": 3456,
	"pg_extension": 3079, "pg_depend": 2608, "pg_description": 2609, "pg_rewrite": 2618, "pg_trigger": 2620,
	"pg_policy": 3256, "pg_publication": 6104, "pg_publication_rel": 6106, "pg_publication_namespace": 6237,
	"pg_statistic_ext": 3381, "pg_sequence": 2224, "pg_database": 1262, "pg_authid": 1260, "pg_tablespace": 1213,
	"pg_language": 2612, "pg_operator": 2617, "pg_opclass": 2616, "pg_opfamily": 2753, "pg_ts_parser": 3601,
	"pg_ts_template": 3764, "pg_ts_dict": 3600, "pg_ts_config": 3602, "pg_foreign_data_wrapper": 2328,
	"pg_foreign_server": 1417, "pg_default_acl": 826, "pg_conversion": 2607, "pg_cast": 2605, "pg_transform": 3576,
	"pg_event_trigger": 3466, "pg_subscription": 6100, "pg_largeobject_metadata": 2995, "pg_inherits": 2611,
	"pg_init_privs": 3394, "pg_amop": 2602, "pg_amproc": 2603, "pg_enum": 3501, "pg_range": 3541,
	"pg_partitioned_table": 3350, "pg_seclabel": 3596, "pg_shdescription": 2396, "pg_auth_members": 1261,
	"pg_shseclabel": 3592, "pg_db_role_setting": 2964, "pg_parameter_acl": 6243, "pg_foreign_table": 3118, "pg_user_mapping": 1418,
}

// vcols parses a column list written as name/type pairs; the types are
// short names: o (oid, as bigint), t (text), b (bool), i2, i4, i8, f4,
// tz (timestamptz), and arrays of some of these: o[] (oid[], oidvector
// as bigint[]), t[], i2[] (int2vector).
func vcols(pairs ...string) []vcol {
	out := make([]vcol, 0, len(pairs)/2)
	for i := 0; i+1 < len(pairs); i += 2 {
		var t types.T
		switch pairs[i+1] {
		case "o", "i8":
			t = tInt8
		case "t":
			t = tText
		case "b":
			t = tBool
		case "i2":
			t = tInt2
		case "i4":
			t = tInt4
		case "f4":
			t = types.T{Family: types.Float4}
		case "tz":
			t = tTSTZ
		case "o[]", "i8[]":
			t = types.ArrayOf(tInt8)
		case "t[]":
			t = types.ArrayOf(tText)
		case "i2[]":
			t = types.ArrayOf(tInt2)
		default:
			panic("planner: virtual column type " + pairs[i+1]) // broken invariant
		}
		out = append(out, vcol{name: pairs[i], t: t})
	}
	return out
}

// vrow converts Go values to constant expressions typed as the relation's
// columns: nil is NULL, int/int64/bool/string/float64 the matching datum,
// a []string a text array,
// an Expr is used as it is (for values known only at run time, such as
// current_user).
func vrow(vals ...any) []Expr {
	out := make([]Expr, len(vals))
	for i, v := range vals {
		switch v := v.(type) {
		case nil:
			out[i] = &Const{Value: types.Null, T: tUnk}
		case int:
			out[i] = &Const{Value: types.NewInt(int64(v)), T: tInt8}
		case int64:
			out[i] = &Const{Value: types.NewInt(v), T: tInt8}
		case uint64:
			out[i] = &Const{Value: types.NewInt(int64(v)), T: tInt8}
		case bool:
			out[i] = &Const{Value: types.NewBool(v), T: tBool}
		case string:
			out[i] = &Const{Value: types.NewText(v), T: tText}
		case float64:
			out[i] = &Const{Value: types.NewFloat(v), T: tFloat8}
		case []string:
			elems := make([]types.Datum, len(v))
			for j, s := range v {
				elems[j] = types.NewText(s)
			}
			out[i] = &Const{Value: types.NewArray(elems), T: types.ArrayOf(tText)}
		case Expr:
			out[i] = v
		default:
			panic("planner: virtual row value of unexpected type") // broken invariant
		}
	}
	return out
}

// retype fixes the types of a relation's rows to its columns: constants
// are retyped in place (their datums already have the right kind, except
// integers in float columns), other expressions are cast.
func retype(rows [][]Expr, cols []vcol) {
	for _, r := range rows {
		for i, e := range r {
			want := cols[i].t
			if c, ok := e.(*Const); ok {
				v := c.Value
				if v.Kind == types.KindInt && want.Kind() == types.KindFloat {
					v = types.NewFloat(float64(v.I))
				}
				if v.Kind == types.KindText && want.IsArray() {
					if a, err := arrayConst(c, want); err == nil {
						r[i] = a
						continue
					}
					r[i] = &Cast{X: c, T: want}
					continue
				}
				r[i] = &Const{Value: v, T: want}
			} else if e.Type() != want {
				r[i] = &Cast{X: e, T: want}
			}
		}
	}
}

// currentUser is the owner of every relation, the bootstrap superuser
// (OID 10), named when the statement runs.
func currentUser() Expr {
	return &Func{Name: "pg_get_userbyid", Args: []Expr{&Const{Value: types.NewInt(oidBootstrapRole), T: tInt8}}, T: tText}
}

// tables returns the current database's tables sorted by name (none if
// the database is gone).
func (g *vgen) tables() []*catalog.Table {
	ts, err := g.cat.Tables(g.db)
	if err != nil {
		return nil
	}
	return ts
}

// views returns the current database's views sorted by name.
func (g *vgen) views() []*catalog.View {
	vs, err := g.cat.Views(g.db)
	if err != nil {
		return nil
	}
	return vs
}

// viewColumns plans v to learn its output columns; a view that no longer
// plans (a table it reads was dropped) has none.
func (g *vgen) viewColumns(v *catalog.View) []Column {
	n, err := g.b.view(v)
	if err != nil {
		return nil
	}
	var out []Column
	for _, c := range n.Columns() {
		if c.Hidden {
			continue
		}
		if c.T.Family == types.Unknown {
			c.T = tText
		}
		out = append(out, c)
	}
	return out
}

// visibleColumns are a table's columns minus the hidden row id, with their
// PostgreSQL attribute numbers (1-based positions among visible columns).
func visibleColumns(t *catalog.Table) (cols []catalog.Column, attnums []int) {
	n := 0
	for _, c := range t.Columns {
		if c.Hidden {
			continue
		}
		n++
		cols = append(cols, c)
		attnums = append(attnums, n)
	}
	return cols, attnums
}

// attnum maps a column ordinal of t to its attribute number (0 if hidden).
func attnum(t *catalog.Table, ordinal int) int {
	n := 0
	for i, c := range t.Columns {
		if !c.Hidden {
			n++
		}
		if i == ordinal {
			if c.Hidden {
				return 0
			}
			return n
		}
	}
	return 0
}

// hasPrimaryKey reports whether t has a declared primary key, which
// PostgreSQL clients see as an index named PrimaryKeyName.
func hasPrimaryKey(t *catalog.Table) bool { return !t.HiddenRowID && len(t.PrimaryKey) > 0 }

func oidPrimaryKey(t *catalog.Table) int64 { return oidPrimaryKeyBase + int64(t.ID) }

func pkName(t *catalog.Table) string {
	if t.PrimaryKeyName != "" {
		return t.PrimaryKeyName
	}
	return t.Name + "_pkey"
}

// oidView derives a view's OID from its name: views have no key space.
func oidView(name string) int64 {
	h := fnv.New32a()
	h.Write([]byte(name))
	return oidViewBase + int64(h.Sum32()&0x0fffffff)
}

// databaseOID numbers the databases in name order.
func (g *vgen) databaseOID(name string) int64 {
	names := g.cat.Databases()
	i := sort.SearchStrings(names, name)
	return oidDatabaseBase + int64(i)
}

// typmod is PostgreSQL's atttypmod for t (see types.T.Typmod).
func typmod(t types.T) int64 { return int64(t.Typmod()) }

// VirtualRelations lists every virtual relation as "schema.name", sorted
// (for tests and documentation).
func VirtualRelations() []string {
	var out []string
	for name := range pgCatalogRelations {
		out = append(out, "pg_catalog."+name)
	}
	for name := range infoSchemaRelations {
		out = append(out, "information_schema."+name)
	}
	sort.Strings(out)
	return out
}
