package parse

import (
	"bufio"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

var fullCorpus = flag.Bool("corpus.full", false, "parse the whole sqllogictest corpus, not only select1-5 and evidence/")

// corpusDir finds ../shared/sqllogictest next to the module root.
func corpusDir(t *testing.T) string {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "..", "shared", "sqllogictest")
		}
		if filepath.Dir(dir) == dir {
			t.Skip("module root not found")
		}
	}
}

// corpusSQL streams the SQL text of every statement and query record of
// an sqllogictest file that is not restricted to another engine.
func corpusSQL(path string, each func(sql string)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	skip := false
	var buf []string
	inRecord := false
	flush := func() {
		if inRecord && !skip && len(buf) > 0 {
			each(strings.Join(buf, "\n"))
		}
		buf, inRecord, skip = buf[:0], false, false
	}
	for sc.Scan() {
		line := sc.Text()
		switch {
		case inRecord && (line == "" || line == "----"):
			flush()
			if line == "----" {
				// Skip the result block up to the blank line.
				for sc.Scan() && sc.Text() != "" {
				}
			}
		case inRecord:
			buf = append(buf, line)
		case strings.HasPrefix(line, "onlyif "):
			engine := strings.TrimSpace(strings.TrimPrefix(line, "onlyif "))
			if engine != "postgresql" {
				skip = true
			}
		case strings.HasPrefix(line, "statement ") || strings.HasPrefix(line, "query "):
			inRecord = true
		case line == "":
			skip = false
		}
	}
	flush()
	return sc.Err()
}

// TestCorpus parses every SQL text of the sqllogictest corpus when it is
// present. By default it reads select1-5.test and evidence/; -corpus.full
// adds index/ and random/.
func TestCorpus(t *testing.T) {
	dir := corpusDir(t)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("sqllogictest corpus not present at %s", dir)
	}
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".test") {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if *fullCorpus || !strings.Contains(rel, string(filepath.Separator)) || strings.HasPrefix(rel, "evidence") {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	seen := map[string]bool{}
	failures := map[string]string{}
	records := 0
	start := time.Now()
	for _, f := range files {
		err := corpusSQL(f, func(sql string) {
			records++
			if seen[sql] {
				return
			}
			seen[sql] = true
			if _, err := Parse(sql); err != nil {
				failures[sql] = err.Error()
			}
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d files, %d records, %d distinct SQL texts, %d failures, %v", len(files), records, len(seen), len(failures), time.Since(start))
	checkKnownFailures(t, failures, *fullCorpus)
}

var rewrite = flag.Bool("rewrite", false, "rewrite golden files under testdata/")

// checkKnownFailures compares the corpus texts that fail to parse with
// testdata/corpus_failures.txt: SQLite-only syntax (triggers, REINDEX,
// NOT INDEXED, blob literals, ...) that kvsql rejects on purpose. A new
// failure fails the test; -rewrite regenerates the file.
func checkKnownFailures(t *testing.T, failures map[string]string, full bool) {
	golden := filepath.Join("testdata", "corpus_failures.txt")
	var got []string
	for sql, msg := range failures {
		got = append(got, strings.ReplaceAll(sql, "\n", " ")+"\n\t"+msg)
	}
	sort.Strings(got)
	text := strings.Join(got, "\n") + "\n"
	if *rewrite && !full {
		if err := os.WriteFile(golden, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, line := range strings.Split(string(want), "\n") {
		if line != "" && !strings.HasPrefix(line, "\t") {
			known[line] = true
		}
	}
	for sql, msg := range failures {
		if !known[strings.ReplaceAll(sql, "\n", " ")] {
			t.Errorf("new parse failure: %s\n    %s", sql, msg)
		}
	}
}
