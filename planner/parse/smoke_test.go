package parse

import (
	"bufio"
	"fmt"
	"os"
	"testing"

	"vitess.io/vitess/go/vt/sqlparser"
)

func TestSmoke(t *testing.T) {
	f, err := os.Open("/tmp/smoke.sql")
	if err != nil {
		t.Skip("no smoke")
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		st, err := ParseOne(sc.Text())
		if err != nil {
			fmt.Printf("%s\n   ERR %v (pos %d)\n", sc.Text(), err, err.(interface{ Error() string }))
			continue
		}
		fmt.Printf("%s\n   %s\n", sc.Text(), render(&st))
	}
}

// show formats n; a Limit without Rowcount (which vitess cannot format)
// is shown as LIMIT ALL.
func show(n sqlparser.SQLNode) string {
	if n == nil {
		return ""
	}
	c := sqlparser.Rewrite(sqlparser.CloneSQLNode(n), nil, func(c *sqlparser.Cursor) bool {
		if l, ok := c.Node().(*sqlparser.Limit); ok && l != nil && l.Rowcount == nil {
			c.Replace(&sqlparser.Limit{Offset: l.Offset, Rowcount: sqlparser.NewColName("ALL")})
		}
		return true
	})
	return sqlparser.String(c)
}

func render(st *Statement) string {
	switch {
	case st.Compound != nil:
		c := st.Compound
		return fmt.Sprintf("COMPOUND %s all=%v [%s] [%s] order=%s limit=%s", c.Op, c.All, render(c.Left), render(c.Right), show(c.OrderBy), show(c.Limit))
	case st.AST != nil:
		s := fmt.Sprintf("%T %s", st.AST, show(st.AST))
		if st.Returning != nil {
			s += fmt.Sprintf(" RETURNING %d", len(st.Returning))
		}
		return s
	}
	return fmt.Sprintf("%+v %+v %+v %+v %+v %+v", st.Set, st.Show, st.Copy, st.DropIndex, st.Analyze, st.Database)
}
