package parse

import (
	"testing"

	"github.com/kvsql/kvsql/pgerror"
)

// TestParsePL checks the tree of a body with each kind of statement.
func TestParsePL(t *testing.T) {
	b, err := ParsePL(`
<<top>>
DECLARE
  x int := 1;
  c CONSTANT text = 'k';
  r record;
  rt t%ROWTYPE;
  a ALIAS FOR $1;
BEGIN
  x := x + 1;
  r.f = 2;
  IF x > 1 THEN NULL; ELSIF x < 0 THEN x := 0; ELSE x := CASE WHEN true THEN 1 END; END IF;
  FOR i IN REVERSE 10..1 BY 2 LOOP EXIT WHEN i < 3; END LOOP;
  FOR r IN SELECT * FROM t LOOP CONTINUE; END LOOP;
  FOREACH x IN ARRAY ARRAY[1,2] LOOP END LOOP;
  SELECT a, b INTO STRICT x, c FROM t WHERE id = 1;
  INSERT INTO t VALUES (1) RETURNING id INTO x;
  RAISE NOTICE 'v % %', x, c USING HINT = 'h';
  GET DIAGNOSTICS x = ROW_COUNT;
  EXECUTE 'select 1' INTO x USING 1, 2;
  RETURN x;
EXCEPTION
  WHEN division_by_zero OR SQLSTATE '22003' THEN RAISE;
  WHEN others THEN NULL;
END top;`)
	if err != nil {
		t.Fatal(err)
	}
	if b.Label != "top" || len(b.Decls) != 5 || len(b.Body) != 12 || len(b.Handlers) != 2 {
		t.Fatalf("block: label %q, %d decls, %d stmts, %d handlers", b.Label, len(b.Decls), len(b.Body), len(b.Handlers))
	}
	if d := b.Decls[1]; !d.Constant || d.Type != "text" || d.Default != "'k'" {
		t.Fatalf("constant: %+v", d)
	}
	if d := b.Decls[3]; d.Type != "t%rowtype" {
		t.Fatalf("rowtype: %+v", d)
	}
	if d := b.Decls[4]; d.Alias != 1 {
		t.Fatalf("alias: %+v", d)
	}
	kinds := []string{PLAssign, PLAssign, PLIf, PLForInt, PLForQuery, PLForEach, PLSQL, PLSQL, PLRaise, PLGetDiag, PLExecute, PLReturn}
	for i, k := range kinds {
		if b.Body[i].Kind != k {
			t.Fatalf("statement %d: %s, want %s", i, b.Body[i].Kind, k)
		}
	}
	if st := b.Body[3]; !st.Reverse || st.Lo != "10" || st.Hi != "1" || st.By != "2" {
		t.Fatalf("FOR: %+v", st)
	}
	if st := b.Body[6]; !st.Strict || st.Query != "SELECT a, b FROM t WHERE id = 1" || len(st.Target) != 2 {
		t.Fatalf("SELECT INTO: %+v", st)
	}
	if st := b.Body[7]; st.Query != "INSERT INTO t VALUES (1) RETURNING id" || st.Target[0] != "x" {
		t.Fatalf("RETURNING INTO: %+v", st)
	}
	if st := b.Body[8]; st.Level != "notice" || st.Format != "v % %" || len(st.Args) != 2 || st.Options[0] != [2]string{"hint", "'h'"} {
		t.Fatalf("RAISE: %+v", st)
	}
	if h := b.Handlers[0]; len(h.Codes) != 2 || h.Codes[0] != "22012" || h.Codes[1] != "22003" {
		t.Fatalf("handler: %+v", h)
	}
}

// TestParsePLErrors: a body's mistakes are found when it is parsed, with
// PostgreSQL's SQLSTATE.
func TestParsePLErrors(t *testing.T) {
	cases := []struct {
		body string
		code pgerror.Code
	}{
		{"BEGIN", pgerror.SyntaxError},
		{"BEGIN RETURN 1 END", pgerror.SyntaxError},
		{"BEGIN IF true THEN NULL; END; END", pgerror.SyntaxError},
		{"BEGIN LOOP NULL; END IF; END", pgerror.SyntaxError},
		{"DECLARE x int NOT NULL; BEGIN END", pgerror.SyntaxError},
		{"DECLARE x CONSTANT int; BEGIN END", pgerror.SyntaxError},
		{"DECLARE x nosuchtype(; BEGIN END", pgerror.SyntaxError},
		{"BEGIN RAISE NOTICE 'a % %', 1; END", pgerror.SyntaxError},
		{"BEGIN RAISE NOTICE 'a', 1; END", pgerror.SyntaxError},
		{"BEGIN RAISE 'x' USING COLOUR = 1; END", pgerror.SyntaxError},
		{"BEGIN NULL; EXCEPTION WHEN no_such_condition THEN NULL; END", pgerror.UndefinedObject},
		{"BEGIN NULL; EXCEPTION WHEN SQLSTATE '2201' THEN NULL; END", pgerror.SyntaxError},
		{"<<a>> BEGIN NULL; END b", pgerror.SyntaxError},
		{"BEGIN frobnicate; END", pgerror.SyntaxError},
		{"BEGIN COMMIT; END", pgerror.FeatureNotSupported},
		{"BEGIN NULL; END; extra", pgerror.SyntaxError},
	}
	for _, c := range cases {
		_, err := ParsePL(c.body)
		if got := pgerror.CodeOf(err); err == nil || got != c.code {
			t.Errorf("%q: %v (%s), want %s", c.body, err, got, c.code)
		}
	}
}
