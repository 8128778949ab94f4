package sqllogictest

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"
)

// Conformance markers delimit the generated part of docs/conformance.md;
// the prose around them is written by hand and kept.
const (
	ConformanceBegin = "<!-- BEGIN GENERATED: kvsql conformance -->"
	ConformanceEnd   = "<!-- END GENERATED -->"
)

// ConformanceTable writes, as Markdown, the per-directory pass table of
// two runs of the same files: kvsql's and a reference engine's (PostgreSQL
// scored by the same runner). Directory names are shown relative to root.
func ConformanceTable(w io.Writer, kvsql, ref *Report, refName, root string, when time.Time) {
	rel := func(dir string) string {
		if r, err := filepath.Rel(root, dir); err == nil {
			if r == "." {
				return "(top level: select1-5)"
			}
			return r
		}
		return dir
	}
	refGroups := map[string]Group{}
	for _, g := range ref.Groups() {
		refGroups[g.Name] = g
	}
	fmt.Fprintf(w, "Generated %s by `kvsql conformance`: kvsql %s, %s %s, engine %q.\n\n",
		when.UTC().Format("2006-01-02 15:04 MST"), kvsql.Target, refName, ref.Target, kvsql.Engine)
	fmt.Fprintf(w, "| directory | records | kvsql passed | kvsql | %s passed | %s | kvsql time | %s time |\n", refName, refName, refName)
	fmt.Fprintf(w, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, g := range kvsql.Groups() {
		r := refGroups[g.Name]
		name := rel(g.Name)
		if g.Name == "total" {
			name = "**total**"
		}
		fmt.Fprintf(w, "| %s | %d | %d | %s | %d | %s | %s | %s |\n", name, g.Records, g.Passed, percent(g.Passed, g.Records),
			r.Passed, percent(r.Passed, r.Records), roundDur(g.Duration), roundDur(r.Duration))
	}
	fmt.Fprintf(w, "\nPer-file times of the slowest files:\n\n| file | kvsql | %s |\n| --- | ---: | ---: |\n", refName)
	refFiles := map[string]FileResult{}
	for _, f := range ref.Files {
		refFiles[f.Path] = f
	}
	for _, f := range slowest(kvsql, ref, 6) {
		fmt.Fprintf(w, "| %s | %s | %s |\n", rel(f), roundDur(fileDur(kvsql, f)), roundDur(refFiles[f].Duration))
	}
	if top := kvsql.TopReasons(12); len(top) > 0 {
		fmt.Fprintf(w, "\nkvsql's failures by reason:\n\n| count | reason |\n| ---: | --- |\n")
		for _, rc := range top {
			fmt.Fprintf(w, "| %d | %s |\n", rc.Count, strings.ReplaceAll(rc.Reason, "|", "\\|"))
		}
	}
}

func roundDur(d time.Duration) string {
	switch {
	case d >= time.Minute:
		return d.Round(time.Second).String()
	case d >= time.Second:
		return d.Round(10 * time.Millisecond).String()
	}
	return d.Round(time.Millisecond).String()
}

func fileDur(r *Report, path string) time.Duration {
	for _, f := range r.Files {
		if f.Path == path {
			return f.Duration
		}
	}
	return 0
}

// slowest returns the n files that took longest on either run.
func slowest(a, b *Report, n int) []string {
	longest := map[string]time.Duration{}
	for _, r := range []*Report{a, b} {
		for _, f := range r.Files {
			if f.Duration > longest[f.Path] {
				longest[f.Path] = f.Duration
			}
		}
	}
	paths := make([]string, 0, len(longest))
	for p := range longest {
		paths = append(paths, p)
	}
	// Longest first; ties by name for a stable document.
	for i := 1; i < len(paths); i++ {
		for j := i; j > 0; j-- {
			pj, pk := paths[j], paths[j-1]
			if longest[pj] > longest[pk] || (longest[pj] == longest[pk] && pj < pk) {
				paths[j], paths[j-1] = pk, pj
			}
		}
	}
	if len(paths) > n {
		paths = paths[:n]
	}
	return paths
}

// SpliceGenerated replaces the text between the conformance markers of doc
// with generated (adding the markers at the end when doc has none).
func SpliceGenerated(doc, generated string) string {
	block := ConformanceBegin + "\n" + generated + ConformanceEnd
	i := strings.Index(doc, ConformanceBegin)
	j := strings.Index(doc, ConformanceEnd)
	if i < 0 || j < i {
		return strings.TrimRight(doc, "\n") + "\n\n" + block + "\n"
	}
	return doc[:i] + block + doc[j+len(ConformanceEnd):]
}
