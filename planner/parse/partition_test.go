package parse

import (
	"fmt"
	"testing"

	"github.com/kvsql/kvsql/pgerror"
	"vitess.io/vitess/go/vt/sqlparser"
)

// TestPartitionStatements: the partitioning and inheritance forms of
// CREATE TABLE and ALTER TABLE parse into their structs, and what kvsql
// does not do is refused rather than dropped.
func TestPartitionStatements(t *testing.T) {
	for _, tc := range []struct{ sql, want string }{
		{`CREATE TABLE p (a int, b text) PARTITION BY LIST (a)`, `&{Strategy:list Keys:[a] KeyColumns:[true]}`},
		{`CREATE TABLE p (a int, b int) PARTITION BY RANGE (a, (b + 1))`, `&{Strategy:range Keys:[a (b + 1)] KeyColumns:[true false]}`},
		{`CREATE TABLE c PARTITION OF p FOR VALUES IN (1, NULL)`, `{Name:c Temp:false IfNotExists:false Parents:[p] PartitionOf:true Elements:[] Bound:<nil> PartitionBy:<nil>} [] bound &{Default:false In:[1 NULL] From:[] To:[] Modulus:0 Remainder:0 Hash:false} by <nil>`},
		{`CREATE TABLE c PARTITION OF p (b NOT NULL) FOR VALUES FROM (MINVALUE) TO (10) PARTITION BY HASH (b)`, `{Name:c Temp:false IfNotExists:false Parents:[p] PartitionOf:true Elements:[] Bound:<nil> PartitionBy:<nil>} [{Column:b Rest:NOT NULL Text:b NOT NULL Like: LikeDefaults:false}] bound &{Default:false In:[] From:[MINVALUE] To:[10] Modulus:0 Remainder:0 Hash:false} by &{Strategy:hash Keys:[b] KeyColumns:[true]}`},
		{`CREATE TABLE c PARTITION OF p FOR VALUES WITH (MODULUS 4, REMAINDER 1)`, `{Name:c Temp:false IfNotExists:false Parents:[p] PartitionOf:true Elements:[] Bound:<nil> PartitionBy:<nil>} [] bound &{Default:false In:[] From:[] To:[] Modulus:4 Remainder:1 Hash:true} by <nil>`},
		{`CREATE TABLE c PARTITION OF p DEFAULT`, `{Name:c Temp:false IfNotExists:false Parents:[p] PartitionOf:true Elements:[] Bound:<nil> PartitionBy:<nil>} [] bound &{Default:true In:[] From:[] To:[] Modulus:0 Remainder:0 Hash:false} by <nil>`},
		{`CREATE TABLE c () INHERITS (a, public.b)`, "{Name:c Temp:false IfNotExists:false Parents:[a public\x00b] PartitionOf:false Elements:[] Bound:<nil> PartitionBy:<nil>} [] bound <nil> by <nil>"},
		{`CREATE TABLE c (LIKE a INCLUDING DEFAULTS, x int)`, `{Name:c Temp:false IfNotExists:false Parents:[] PartitionOf:false Elements:[] Bound:<nil> PartitionBy:<nil>} [{Column: Rest: Text:LIKE a INCLUDING DEFAULTS Like:a LikeDefaults:true} {Column:x Rest:int Text:x int Like: LikeDefaults:false}] bound <nil> by <nil>`},
		{`ALTER TABLE p ATTACH PARTITION c FOR VALUES IN ('x')`, `{Parent:p Partition:c Detach:false Bound:<nil> Inheritance:false} bound &{Default:false In:['x'] From:[] To:[] Modulus:0 Remainder:0 Hash:false}`},
		{`ALTER TABLE c NO INHERIT public.p`, "{Parent:public\x00p Partition:c Detach:true Bound:<nil> Inheritance:true} bound <nil>"},
		{`ALTER TABLE p DETACH PARTITION c`, `{Parent:p Partition:c Detach:true Bound:<nil> Inheritance:false} bound <nil>`},
	} {
		st, err := ParseOne(tc.sql)
		if err != nil {
			t.Errorf("%s: %v", tc.sql, err)
			continue
		}
		var got string
		switch {
		case st.Inherit != nil:
			is := *st.Inherit
			got = fmt.Sprintf("%+v bound %+v by %+v", is.Elements, is.Bound, is.PartitionBy)
			is.Elements, is.Bound, is.PartitionBy = nil, nil, nil
			got = fmt.Sprintf("%+v ", is) + got
		case st.Attach != nil:
			as := *st.Attach
			got = fmt.Sprintf(" bound %+v", as.Bound)
			as.Bound = nil
			got = fmt.Sprintf("%+v", as) + got
		default:
			got = fmt.Sprintf("%+v", st.PartitionBy)
		}
		if got != tc.want {
			t.Errorf("%s\n got  %s\n want %s", tc.sql, got, tc.want)
		}
	}
	for _, tc := range []struct {
		sql  string
		code pgerror.Code
	}{
		{`CREATE TABLE p (a int) PARTITION BY SPREAD (a)`, "22023"},
		{`CREATE TABLE p (a int, b int) PARTITION BY LIST (a, b)`, pgerror.InvalidTableDefinition},
		{`CREATE TABLE p (a int) PARTITION BY HASH (a int4_ops)`, pgerror.FeatureNotSupported},
		{`CREATE TABLE c (LIKE a INCLUDING INDEXES)`, pgerror.FeatureNotSupported},
		{`ALTER TABLE p DETACH PARTITION c CONCURRENTLY`, pgerror.FeatureNotSupported},
	} {
		if _, err := ParseOne(tc.sql); !pgerror.HasCode(err, tc.code) {
			t.Errorf("%s: %v, want %s", tc.sql, err, tc.code)
		}
	}
}

// TestOnlyAndStars: ONLY t reaches vitess as the marked name, t* as t,
// and a bare * after other select items as the star marker.
func TestOnlyAndStars(t *testing.T) {
	for _, tc := range []struct{ sql, want string }{
		{`SELECT * FROM ONLY t`, "select * from `kvsql_only:t`"},
		{`SELECT * FROM t* JOIN ONLY u ON true`, "select * from t join `kvsql_only:u` on true"},
		{`DELETE FROM ONLY t WHERE a = 1`, "delete from `kvsql_only:t` where a = 1"},
		{`UPDATE ONLY t SET a = 1`, "update `kvsql_only:t` set a = 1"},
		{`SELECT a, * FROM t`, "select a, * from t"},
		{`SELECT count(*), 2 * 3 FROM t`, "select count(*), 2 * 3 from t"},
	} {
		st, err := ParseOne(tc.sql)
		if err != nil {
			t.Errorf("%s: %v", tc.sql, err)
			continue
		}
		if got := sqlparser.String(st.AST); got != tc.want {
			t.Errorf("%s\n got  %s\n want %s", tc.sql, got, tc.want)
		}
	}
}
