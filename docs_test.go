package kvsql_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// The documents hold each other together with relative links
// ([text](layout.md#foreign-layouts)) and the code cites them by file and
// section (docs/privileges.md, "Roles and privileges"). These tests keep
// both from pointing at a file or a heading that moved.

// docFiles lists README.md and every Markdown file under docs/.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md"}
	more, err := filepath.Glob(filepath.Join("docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append(files, more...)
}

var (
	fenceRE    = regexp.MustCompile("(?ms)^\\s*```.*?^\\s*```[^\\n]*$")
	codeSpanRE = regexp.MustCompile("`[^`]*`")
	linkRE     = regexp.MustCompile(`\[([^\]]*)\]\(([^)\s]*)\)`)
	headingRE  = regexp.MustCompile(`(?m)^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$`)
)

// prose is a document's text without fenced code blocks.
func prose(text string) string {
	return fenceRE.ReplaceAllString(text, "")
}

// slug is the anchor GitHub gives a heading: lower case, punctuation
// dropped, spaces turned into hyphens.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// headings returns a Markdown file's headings as written.
func headings(t *testing.T, path string) []string {
	t.Helper()
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range headingRE.FindAllStringSubmatch(prose(string(text)), -1) {
		out = append(out, m[1])
	}
	return out
}

// anchors returns the anchors of a Markdown file's headings, numbered
// as GitHub numbers repeated ones (x, x-1, x-2).
func anchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	seen := map[string]int{}
	out := map[string]bool{}
	for _, h := range headings(t, path) {
		s := slug(h)
		if n := seen[s]; n > 0 {
			out[s+"-"+strconv.Itoa(n)] = true
		} else {
			out[s] = true
		}
		seen[s]++
	}
	return out
}

// TestDocLinks checks that every relative link in README.md and docs/
// names a file that exists and, with #anchor, a heading of that file.
func TestDocLinks(t *testing.T) {
	checked := 0
	for _, doc := range docFiles(t) {
		text, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		body := codeSpanRE.ReplaceAllString(prose(string(text)), "")
		for _, m := range linkRE.FindAllStringSubmatch(body, -1) {
			target := m[2]
			if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			file := doc
			if path != "" {
				file = filepath.Join(filepath.Dir(doc), filepath.FromSlash(path))
			}
			checked++
			if _, err := os.Stat(file); err != nil {
				t.Errorf("%s: link [%s](%s): no file %s", doc, m[1], target, file)
				continue
			}
			if anchor == "" {
				continue
			}
			if !strings.HasSuffix(file, ".md") {
				t.Errorf("%s: link [%s](%s): an anchor into a file that is not Markdown", doc, m[1], target)
				continue
			}
			if !anchors(t, file)[anchor] {
				t.Errorf("%s: link [%s](%s): %s has no heading #%s", doc, m[1], target, file, anchor)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no relative links found: the scan is broken")
	}
}

var (
	// docs/transactions.md, "Big commits are ingested": the quote may
	// continue on the next line of a comment.
	citeRE = regexp.MustCompile(`docs/([a-z0-9-]+\.md),(?:\s|//)*"([^"]+)"`)
	// Any mention of a document by its repository path.
	docPathRE = regexp.MustCompile(`docs/[a-z0-9-]+\.md`)
	// A line break inside a quoted section name, with a comment's //.
	breakRE = regexp.MustCompile(`\s*\n\s*(?://)?\s*`)
)

// citationSources lists the files whose citations of docs are checked:
// every Go file, README.md and every document in docs/ (the benchmark
// reports too: the bench command splices benchmarks-analysis.md into
// benchmarks.md, so a stale citation there fails here).
func citationSources(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, docFiles(t)...)
	return files
}

// TestDocCitations checks that every docs/NAME.md the code and the
// documents mention exists, and that a cited section ("Section" after
// the name) begins one of that file's headings.
func TestDocCitations(t *testing.T) {
	cites := 0
	for _, src := range citationSources(t) {
		text, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range docPathRE.FindAllString(string(text), -1) {
			if _, err := os.Stat(filepath.FromSlash(p)); err != nil {
				t.Errorf("%s: mentions %s, which does not exist", src, p)
			}
		}
		for _, m := range citeRE.FindAllStringSubmatch(string(text), -1) {
			file := filepath.Join("docs", m[1])
			if _, err := os.Stat(file); err != nil {
				continue // reported above
			}
			cites++
			section := strings.ToLower(breakRE.ReplaceAllString(m[2], " "))
			found := false
			for _, h := range headings(t, file) {
				if strings.HasPrefix(strings.ToLower(h), section) {
					found = true
					break
				}
			}
			if !found {
				t.Errorf("%s: cites docs/%s, %q: no heading there begins so", src, m[1], section)
			}
		}
	}
	if cites == 0 {
		t.Fatal("no citations found: the scan is broken")
	}
}
