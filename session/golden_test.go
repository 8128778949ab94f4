package session_test

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/kvsql/kvsql/encoding"
	"github.com/kvsql/kvsql/index"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/session"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the golden scripts under testdata/ with the actual output")

// TestGolden runs every script under testdata/access, testdata/dml and
// testdata/queries (joins, aggregation, sorting, subqueries, spilling).
// Each script runs against a fresh memory store whose engine is wrapped by
// kvtrace. A script is a sequence of blocks:
//
//	# comments and blank lines between blocks are kept by -rewrite
//	<command>
//	<SQL, one or more lines>
//	----
//	<expected output, up to the next blank line>
//
// Commands:
//
//	setup  runs the SQL untraced; output "ok" or the error.
//	run    one statement: its EXPLAIN tree ("plan:"), the key-value
//	       operations it performed ("kv:"), then its rows and tag.
//	query  runs the SQL untraced and shows rows and tags only.
//	plan   the EXPLAIN tree, then the rows and tag (no trace).
//	dump   the input is a table name: every key and value of its master
//	       file and index files, in key order.
//
// After each script the store must pass index.Check. Regenerate the
// expected output with: go test -run TestGolden -rewrite
func TestGolden(t *testing.T) {
	var files []string
	for _, dir := range []string{"access", "dml", "queries"} {
		f, err := filepath.Glob(filepath.Join("testdata", dir, "*.txt"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f...)
	}
	if len(files) == 0 {
		t.Fatal("no golden scripts under testdata/")
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(f[len("testdata/"):], ".txt"), func(t *testing.T) {
			runScript(t, f)
		})
	}
}

// block is one command of a golden script.
type block struct {
	pre      []string // comment and blank lines before the command
	cmd      string
	input    []string
	expected []string
	line     int // of the command, 1-based
}

func parseScript(t *testing.T, path string) (blocks []block, trailer []string) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var cur block
	state := 0 // 0 before a command, 1 in input, 2 in expected output
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		switch state {
		case 0:
			if line == "" || strings.HasPrefix(line, "#") {
				cur.pre = append(cur.pre, line)
				continue
			}
			cur.cmd, cur.line, state = strings.TrimSpace(line), n, 1
		case 1:
			if line == "----" {
				state = 2
				continue
			}
			cur.input = append(cur.input, line)
		case 2:
			if line == "" {
				blocks = append(blocks, cur)
				cur, state = block{}, 0
				continue
			}
			cur.expected = append(cur.expected, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	switch state {
	case 1:
		t.Fatalf("%s:%d: %s block without ----", path, cur.line, cur.cmd)
	case 2:
		blocks = append(blocks, cur)
	default:
		trailer = cur.pre
	}
	return blocks, trailer
}

func runScript(t *testing.T, path string) {
	blocks, trailer := parseScript(t, path)
	td := newTracedDB(t, kv.NewMemory())
	var out strings.Builder
	for i := range blocks {
		b := &blocks[i]
		got := td.runBlock(t, b)
		if !*rewrite && strings.Join(got, "\n") != strings.Join(b.expected, "\n") {
			t.Errorf("%s:%d: %s\n%s\ngot:\n%s\nwant:\n%s", path, b.line, b.cmd,
				strings.Join(b.input, "\n"), strings.Join(got, "\n"), strings.Join(b.expected, "\n"))
		}
		for _, l := range b.pre {
			out.WriteString(l + "\n")
		}
		out.WriteString(b.cmd + "\n")
		for _, l := range b.input {
			out.WriteString(l + "\n")
		}
		out.WriteString("----\n")
		for _, l := range got {
			out.WriteString(l + "\n")
		}
		if i < len(blocks)-1 || len(trailer) > 0 {
			out.WriteString("\n")
		}
	}
	for i, l := range trailer {
		if i > 0 || l != "" {
			out.WriteString(l + "\n")
		}
	}
	probs, err := index.Check(td.db.Engine(), td.db.Catalog())
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range probs {
		t.Errorf("%s: index.Check: %s", path, p)
	}
	if *rewrite {
		if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func (td *tracedDB) runBlock(t *testing.T, b *block) []string {
	ctx := context.Background()
	sql := strings.Join(b.input, "\n")
	switch b.cmd {
	case "setup":
		if _, err := td.s.Exec(ctx, sql); err != nil {
			return []string{errLine(err)}
		}
		return []string{"ok"}
	case "query":
		res, err := td.s.Exec(ctx, sql)
		out := resultLines(res)
		if err != nil {
			out = append(out, errLine(err))
		}
		return out
	case "run":
		var out []string
		if res, err := td.s.Exec(ctx, "EXPLAIN "+sql); err != nil {
			out = append(out, "plan: "+errLine(err))
		} else {
			out = append(out, "plan:")
			for _, r := range res {
				for _, row := range r.Rows {
					for _, d := range row {
						out = append(out, "  "+d.S)
					}
				}
			}
		}
		res, trace, err := td.run(ctx, sql)
		out = append(out, "kv:")
		for _, l := range trace {
			out = append(out, "  "+l)
		}
		out = append(out, resultLines(res)...)
		if err != nil {
			out = append(out, errLine(err))
		}
		return out
	case "plan":
		// The EXPLAIN tree and the rows, without the key-value trace.
		var out []string
		if res, err := td.s.Exec(ctx, "EXPLAIN "+sql); err != nil {
			out = append(out, "plan: "+errLine(err))
		} else {
			out = append(out, "plan:")
			for _, r := range res {
				for _, row := range r.Rows {
					out = append(out, "  "+row[0].S)
				}
			}
		}
		res, err := td.s.Exec(ctx, sql)
		out = append(out, resultLines(res)...)
		if err != nil {
			out = append(out, errLine(err))
		}
		return out
	case "dump":
		return td.dumpTable(t, strings.TrimSpace(sql))
	}
	t.Fatalf("line %d: unknown command %q", b.line, b.cmd)
	return nil
}

// dumpTable lists the keys and values of a table's master file and index
// files, in key order.
func (td *tracedDB) dumpTable(t *testing.T, name string) []string {
	td.refreshSpaces()
	tab, err := td.db.Catalog().Table(session.DefaultDatabase, name)
	if err != nil {
		return []string{errLine(err)}
	}
	spaces := []uint64{tab.ID}
	for _, idx := range tab.Indexes {
		spaces = append(spaces, idx.ID)
	}
	sort.Slice(spaces, func(i, j int) bool { return spaces[i] < spaces[j] })
	var out []string
	for _, sp := range spaces {
		lo := encoding.EncodeUvarintAsc(nil, sp)
		hi := encoding.EncodeUvarintAsc(nil, sp+1)
		it, err := td.db.Engine().NewIter(kv.IterOptions{LowerBound: lo, UpperBound: hi})
		if err != nil {
			t.Fatal(err)
		}
		for ok := it.First(); ok; ok = it.Next() {
			out = append(out, encoding.Pretty(it.Key())+" -> "+td.formatValue(it.Key(), it.Value()))
		}
		if err := it.Error(); err != nil {
			t.Fatal(err)
		}
		_ = it.Close()
	}
	if len(out) == 0 {
		out = append(out, "(no keys)")
	}
	return out
}

// resultLines renders results: for each, a header of column names (when
// it has columns), its rows, and its tag.
func resultLines(res []session.Result) []string {
	var out []string
	for _, r := range res {
		if len(r.Columns) > 0 {
			names := make([]string, len(r.Columns))
			for i, c := range r.Columns {
				names[i] = c.Name
			}
			out = append(out, "rows: "+strings.Join(names, " | "))
			for _, row := range r.Rows {
				out = append(out, "  "+formatRow(row))
			}
		}
		out = append(out, "tag: "+r.Tag)
	}
	return out
}

func errLine(err error) string {
	return fmt.Sprintf("error %s: %v", pgerror.CodeOf(err), err)
}
