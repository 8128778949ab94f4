package parse

import (
	"reflect"
	"testing"

	"github.com/kvsql/kvsql/pgerror"
)

func TestChainAndCurrentOf(t *testing.T) {
	cases := []struct {
		in        string
		chain     bool
		currentOf string
	}{
		{`COMMIT AND CHAIN`, true, ""},
		{`END WORK AND NO CHAIN`, false, ""},
		{`ROLLBACK TRANSACTION AND CHAIN`, true, ""},
		{`DELETE FROM t WHERE CURRENT OF c1`, false, "c1"},
		{`UPDATE t SET a = a + 1 WHERE CURRENT OF "C"`, false, "C"},
		{`UPDATE t SET a = (SELECT 1 WHERE true) WHERE a = 1`, false, ""},
	}
	for _, c := range cases {
		st, err := ParseOne(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if st.Chain != c.chain || st.CurrentOf != c.currentOf {
			t.Errorf("%s: chain %v currentOf %q, want %v %q", c.in, st.Chain, st.CurrentOf, c.chain, c.currentOf)
		}
	}
	if _, err := ParseOne(`COMMIT AND`); !pgerror.HasCode(err, pgerror.SyntaxError) {
		t.Errorf("COMMIT AND: %v, want 42601", err)
	}
}

func TestCopyOptions(t *testing.T) {
	cases := []struct {
		in   string
		want CopyStmt
	}{
		{`COPY x FROM STDIN (FORMAT csv, FORCE_NOT_NULL (b), FORCE_NULL (c, d), HEADER match)`,
			CopyStmt{Table: "x", From: true, Format: "csv", Header: true, HeaderMatch: true, ForceNotNull: []string{"b"}, ForceNull: []string{"c", "d"}}},
		{`COPY y TO STDOUT WITH CSV FORCE QUOTE * ESCAPE E'\\' ENCODING 'sql_ascii'`,
			CopyStmt{Table: "y", Format: "csv", ForceQuoteAll: true, Escape: `\`, Encoding: "sql_ascii"}},
		{`COPY y TO STDOUT CSV FORCE QUOTE a, b`,
			CopyStmt{Table: "y", Format: "csv", ForceQuote: []string{"a", "b"}}},
		{`COPY x FROM STDIN CSV FREEZE WHERE a > 1 AND b = 'x'`,
			CopyStmt{Table: "x", From: true, Format: "csv", Freeze: true, Where: "a > 1 AND b = 'x'"}},
	}
	for _, c := range cases {
		st, err := ParseOne(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if !reflect.DeepEqual(*st.Copy, c.want) {
			t.Errorf("%s:\n got  %+v\n want %+v", c.in, *st.Copy, c.want)
		}
	}
	for _, in := range []string{
		`COPY x FROM STDIN (format csv, FORMAT csv)`,
		`COPY x FROM STDIN (freeze off, freeze on)`,
		`COPY x FROM STDIN (force_null (a), force_null (b))`,
		`COPY x FROM STDIN CSV CSV`,
		`COPY x TO STDOUT WHERE a = 1`,
	} {
		if _, err := ParseOne(in); !pgerror.HasCode(err, pgerror.SyntaxError) {
			t.Errorf("%s: %v, want 42601", in, err)
		}
	}
	if _, err := ParseOne(`COPY x FROM STDIN WHERE a IN (SELECT 1)`); !pgerror.HasCode(err, pgerror.FeatureNotSupported) {
		t.Errorf("COPY WHERE subquery: %v, want 0A000", err)
	}
}

func TestCursorBackward(t *testing.T) {
	cases := []struct {
		fetch string
		pos   int64
		want  bool
	}{
		{`FETCH NEXT FROM c`, 3, false},
		{`FETCH BACKWARD 1 FROM c`, 3, true},
		{`FETCH -2 FROM c`, 3, true},
		{`FETCH ABSOLUTE 4 FROM c`, 3, false},
		{`FETCH ABSOLUTE 3 FROM c`, 3, true},
		{`FETCH ABSOLUTE 0 FROM c`, 0, false},
		{`FETCH FIRST FROM c`, 0, false},
		{`FETCH FIRST FROM c`, 1, true},
		{`FETCH LAST FROM c`, 0, true},
		{`FETCH RELATIVE 0 FROM c`, 1, true},
		{`FETCH RELATIVE 2 FROM c`, 1, false},
		{`MOVE FORWARD ALL IN c`, 1, false},
	}
	for _, c := range cases {
		st, err := ParseOne(c.fetch)
		if err != nil {
			t.Fatalf("%s: %v", c.fetch, err)
		}
		if got := st.Cursor.Backward(c.pos); got != c.want {
			t.Errorf("%s at %d: backward %v, want %v", c.fetch, c.pos, got, c.want)
		}
	}
}

func TestExplainDeclare(t *testing.T) {
	st, err := ParseOne(`EXPLAIN DECLARE c SCROLL CURSOR FOR SELECT a FROM t`)
	if err != nil {
		t.Fatal(err)
	}
	if st.Explained == nil || st.Explained.Cursor != nil || render(st.Explained) != "select a from t" {
		t.Errorf("EXPLAIN DECLARE explains %+v, want the cursor's query", st.Explained)
	}
}

func TestSetConstraints(t *testing.T) {
	for in, want := range map[string][]string{
		`SET CONSTRAINTS ALL IMMEDIATE`:   {"immediate"},
		`SET CONSTRAINTS a, s.b DEFERRED`: {"deferred", "a", "s.b"},
		`set constraints "X" immediate`:   {"immediate", "X"},
	} {
		st, err := ParseOne(in)
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if st.Set == nil || st.Set.Name != "constraints" || !reflect.DeepEqual(st.Set.Value, want) {
			t.Errorf("%s: %+v, want constraints %v", in, st.Set, want)
		}
	}
	if _, err := ParseOne(`SET CONSTRAINTS ALL`); !pgerror.HasCode(err, pgerror.SyntaxError) {
		t.Errorf("SET CONSTRAINTS ALL: %v, want 42601", err)
	}
}
