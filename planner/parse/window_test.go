package parse

import (
	"errors"
	"testing"

	"github.com/kvsql/kvsql/pgerror"
	"vitess.io/vitess/go/vt/sqlparser"
)

// TestWindowFrames checks that every frame clause is read into
// Statement.Frames, in order, whatever its unit, bounds and exclusion.
func TestWindowFrames(t *testing.T) {
	st, err := ParseOne(`SELECT sum(x) OVER (ORDER BY x GROUPS BETWEEN 1 PRECEDING AND x::int FOLLOWING EXCLUDE TIES),
		count(*) OVER w, lag(x, y) OVER (w ROWS UNBOUNDED PRECEDING)
		FROM t WINDOW w AS (ORDER BY y RANGE BETWEEN CURRENT ROW AND interval '1 day' FOLLOWING EXCLUDE CURRENT ROW)`)
	if err != nil {
		t.Fatal(err)
	}
	want := []WindowFrame{
		{Unit: FrameGroups, Start: FrameBound{Kind: BoundPreceding}, End: FrameBound{Kind: BoundFollowing}, Exclude: ExcludeTies},
		{Unit: FrameRows, Start: FrameBound{Kind: BoundUnboundedPreceding}, End: FrameBound{Kind: BoundCurrentRow}},
		{Unit: FrameRange, Start: FrameBound{Kind: BoundCurrentRow}, End: FrameBound{Kind: BoundFollowing}, Exclude: ExcludeCurrentRow},
	}
	if len(st.Frames) != len(want) {
		t.Fatalf("got %d frames, want %d", len(st.Frames), len(want))
	}
	for i, f := range st.Frames {
		w := want[i]
		if f.Unit != w.Unit || f.Start.Kind != w.Start.Kind || f.End.Kind != w.End.Kind || f.Exclude != w.Exclude {
			t.Errorf("frame %d: got %+v, want %+v", i, f, w)
		}
		for _, b := range []FrameBound{f.Start, f.End} {
			hasOffset := b.Kind == BoundPreceding || b.Kind == BoundFollowing
			if (b.Offset != nil) != hasOffset {
				t.Errorf("frame %d: bound %v has offset %v", i, b.Kind, sqlparser.String(b.Offset))
			}
		}
	}
}

// TestWindowSyntaxErrors checks that malformed frame clauses and window
// calls are syntax errors (or PostgreSQL's 0A000) at the right place.
func TestWindowSyntaxErrors(t *testing.T) {
	for _, c := range []struct {
		sql  string
		code pgerror.Code
		pos  int
	}{
		{"SELECT sum(x) OVER (ROWS BETWEEN 1 PRECEDING) FROM t", pgerror.SyntaxError, 45},
		{"SELECT sum(x) OVER (ROWS BETWEEN AND 1 FOLLOWING) FROM t", pgerror.SyntaxError, 34},
		{"SELECT sum(x) OVER (ROWS 1 PRECEDING EXCLUDE OTHERS) FROM t", pgerror.SyntaxError, 46},
		{"SELECT sum(x) OVER (GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING junk) FROM t", pgerror.SyntaxError, 64},
		{"SELECT sum(DISTINCT x) OVER () FROM t", pgerror.FeatureNotSupported, 8},
		{"SELECT string_agg(x, ',' ORDER BY x) OVER () FROM t", pgerror.FeatureNotSupported, 8},
	} {
		_, err := ParseOne(c.sql)
		var pe *pgerror.Error
		if err == nil || pgerror.CodeOf(err) != c.code {
			t.Errorf("%s: got %v, want %s", c.sql, err, c.code)
			continue
		}
		if errors.As(err, &pe) && pe.Position != c.pos {
			t.Errorf("%s: error at %d, want %d", c.sql, pe.Position, c.pos)
		}
	}
}
