package pgregress

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// SetupFiles are the suite's setup scripts: they run before test files
// (see SetupsFor) and are reported apart, not in the score.
var SetupFiles = []string{"test_setup", "create_misc", "create_aggregate"}

// SetupsFor lists the setup files that run, in order, before test file
// name, as PostgreSQL 15's parallel_schedule orders them: test_setup
// before every file, create_misc before join and with, create_aggregate
// before aggregates.
func SetupsFor(name string) []string {
	s := []string{"test_setup"}
	switch name {
	case "join", "with":
		s = append(s, "create_misc")
	case "aggregates":
		s = append(s, "create_aggregate")
	}
	return s
}

// Options configure Run.
type Options struct {
	// Corpus is the directory holding sql/ and data/.
	Corpus string
	// Files are the test files to run, by name without .sql; all of
	// sql/ but the setup files when empty.
	Files []string
	// Timeout limits each statement; it is then cancelled. Default 10s.
	Timeout time.Duration
	// Jobs is how many files run at once. Default 1.
	Jobs int
	// Progress, if set, gets a line per file.
	Progress io.Writer
}

// Report is the outcome of a run.
type Report struct {
	Generated time.Time     `json:"generated"`
	Reference string        `json:"reference"`
	Subject   string        `json:"subject"`
	Timeout   string        `json:"statement_timeout"`
	Files     []*FileReport `json:"files"`
	// Setups are the setup files, as run before the first test file
	// that needs each.
	Setups []*FileReport `json:"setups"`
}

// FileReport is one file's tally.
type FileReport struct {
	Name string `json:"name"`
	// Statements counts query strings sent (\copy included); Meta the
	// psql-only backslash commands, not sent and not scored; Unscored
	// the nondeterministic statements, sent but not scored.
	Statements int `json:"statements"`
	Meta       int `json:"meta_commands"`
	Unscored   int `json:"unscored_nondeterministic"`
	Scored     int `json:"scored"`
	Agree      int `json:"agree"`
	// Classes counts the scored statements that differ, by reason.
	Classes map[string]int `json:"classes,omitempty"`
	// Features tallies the statements that use a feature out of reach.
	Features map[string]*Tally `json:"features,omitempty"`
	Diffs    []Diff            `json:"diffs,omitempty"`
	// Error says why the file could not run, if it could not.
	Error   string  `json:"error,omitempty"`
	Seconds float64 `json:"seconds"`
}

// Tally counts scored statements and those of them that agree.
type Tally struct {
	Scored int `json:"scored"`
	Agree  int `json:"agree"`
}

// Diff is one scored statement that differs.
type Diff struct {
	Line      int    `json:"line"`
	SQL       string `json:"sql"`
	Class     string `json:"class"`
	Reference string `json:"reference"`
	Subject   string `json:"subject"`
	// First is the first row that differs, when rows differ.
	First string `json:"first_difference,omitempty"`
}

// Percent is 100*Agree/Scored.
func (f *FileReport) Percent() float64 { return percent(f.Agree, f.Scored) }

func percent(a, n int) float64 {
	if n == 0 {
		return 0
	}
	return 100 * float64(a) / float64(n)
}

// Totals sums the test files (setup files apart).
func (r *Report) Totals() (scored, agree int) {
	for _, f := range r.Files {
		scored += f.Scored
		agree += f.Agree
	}
	return scored, agree
}

// ErrNoCorpus is returned when the corpus directory has no sql/ folder.
var ErrNoCorpus = errors.New("no PostgreSQL regression files")

// TestFiles lists the corpus's test files (setup files excluded), sorted.
func TestFiles(corpus string) ([]string, error) {
	paths, err := filepath.Glob(filepath.Join(corpus, "sql", "*.sql"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%w in %s (expected sql/*.sql and data/ from PostgreSQL 15's src/test/regress)", ErrNoCorpus, corpus)
	}
	var names []string
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".sql")
		if !slices.Contains(SetupFiles, name) {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names, nil
}

// Run runs the corpus's test files on ref (PostgreSQL) and sub, each file
// on fresh databases after its setup files, and scores sub against ref.
func Run(ctx context.Context, ref, sub Target, opts Options) (*Report, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.Jobs <= 0 {
		opts.Jobs = 1
	}
	corpus, err := filepath.Abs(opts.Corpus)
	if err != nil {
		return nil, err
	}
	opts.Corpus = corpus
	names, err := TestFiles(corpus)
	if err != nil {
		return nil, err
	}
	if len(opts.Files) > 0 {
		for _, f := range opts.Files {
			if !slices.Contains(names, f) {
				return nil, fmt.Errorf("no test file %s.sql in %s", f, filepath.Join(corpus, "sql"))
			}
		}
		names = opts.Files
	}
	rep := &Report{Generated: time.Now().UTC(), Reference: ref.Name(), Subject: sub.Name(), Timeout: opts.Timeout.String()}
	rep.Files = make([]*FileReport, len(names))
	setups := make([][]*FileReport, len(names))
	work := make(chan int)
	var wg sync.WaitGroup
	var progress sync.Mutex
	for range opts.Jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				start := time.Now()
				rep.Files[i], setups[i] = runFile(ctx, ref, sub, names[i], opts)
				rep.Files[i].Seconds = time.Since(start).Seconds()
				if opts.Progress != nil {
					progress.Lock()
					f := rep.Files[i]
					fmt.Fprintf(opts.Progress, "%-20s %5d of %5d agree (%5.1f%%)  %6.1fs %s\n", f.Name, f.Agree, f.Scored, f.Percent(), f.Seconds, f.Error)
					progress.Unlock()
				}
			}
		}()
	}
	for i := range names {
		if ctx.Err() != nil {
			break
		}
		work <- i
	}
	close(work)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, ss := range setups {
		for _, s := range ss {
			if !seen[s.Name] {
				seen[s.Name] = true
				rep.Setups = append(rep.Setups, s)
			}
		}
	}
	return rep, nil
}

// side is one server's connection for the file being run.
type side struct {
	url  string
	conn *Conn
}

// run sends sql, reconnecting first if the last statement broke the
// connection; a connection that cannot be made counts as lost.
func (s *side) run(ctx context.Context, sql string, timeout time.Duration, copyIn func() []byte) Outcome {
	if s.conn == nil {
		dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		c, err := Dial(dctx, s.url)
		cancel()
		if err != nil {
			return Outcome{Lost: true}
		}
		s.conn = c
	}
	o := s.conn.Run(sql, timeout, copyIn)
	if o.Broken() {
		s.conn.Close()
		s.conn = nil
	}
	return o
}

func (s *side) close() {
	if s.conn != nil {
		s.conn.Close()
	}
}

// runFile runs one test file after its setup files on fresh databases.
func runFile(ctx context.Context, refT, subT Target, name string, opts Options) (*FileReport, []*FileReport) {
	rep := newFileReport(name)
	var ref, sub side
	var dropRef, dropSub func()
	var err error
	if ref.url, dropRef, err = refT.Fresh(ctx); err != nil {
		rep.Error = refT.Name() + ": " + err.Error()
		return rep, nil
	}
	defer dropRef()
	if sub.url, dropSub, err = subT.Fresh(ctx); err != nil {
		rep.Error = subT.Name() + ": " + err.Error()
		return rep, nil
	}
	defer dropSub()
	defer ref.close()
	defer sub.close()

	r := &fileRun{ctx: ctx, opts: opts, ref: &ref, sub: &sub, subName: subT.Name(), failed: map[string]string{}}
	var setups []*FileReport
	for _, s := range SetupsFor(name) {
		srep := newFileReport(s)
		if err := r.runScript(s, srep, "in setup"); err != nil {
			srep.Error = err.Error()
		}
		setups = append(setups, srep)
	}
	if err := r.runScript(name, rep, "earlier"); err != nil {
		rep.Error = err.Error()
	}
	return rep, setups
}

func newFileReport(name string) *FileReport {
	return &FileReport{Name: name, Classes: map[string]int{}, Features: map[string]*Tally{}}
}

// fileRun is the state of one file's run: the two connections and the
// relations whose CREATE worked on the reference but failed on the
// subject (named in the reason of a later 42P01).
type fileRun struct {
	ctx      context.Context
	opts     Options
	ref, sub *side
	subName  string
	failed   map[string]string
}

// maxDiffs bounds the differences kept per file in the JSON report.
const maxDiffs = 2000

// runScript runs one .sql file of the corpus statement by statement.
func (r *fileRun) runScript(name string, rep *FileReport, when string) error {
	src, err := os.ReadFile(filepath.Join(r.opts.Corpus, "sql", name+".sql"))
	if err != nil {
		return err
	}
	script := NewScript(string(src))
	script.Getenv = r.getenv
	for {
		if err := r.ctx.Err(); err != nil {
			return err
		}
		it, ok := script.Next()
		if !ok {
			return nil
		}
		sql := it.Text
		if it.Kind == Meta {
			if it.Cmd != "copy" {
				rep.Meta++
				continue
			}
			sql = "COPY " + it.Args[0] // \copy runs as the equivalent COPY
		}
		rep.Statements++
		var fileData, consumed []byte
		if rewritten, data, ok := copyFromFile(sql); ok {
			sql, fileData = rewritten, data
		}
		// COPY FROM STDIN takes the script's next lines only if the
		// reference entered COPY mode (psql's rule); the subject gets
		// the same lines, or none.
		refIn := func() []byte {
			if fileData != nil {
				return fileData
			}
			consumed = script.CopyData()
			return consumed
		}
		subIn := func() []byte {
			if fileData != nil {
				return fileData
			}
			return consumed
		}
		ro := r.ref.run(r.ctx, sql, r.opts.Timeout, refIn)
		so := r.sub.run(r.ctx, sql, r.opts.Timeout, subIn)

		if rel := createdRelation(sql); rel != "" {
			if ro.Err == nil && (so.Err != nil || so.Lost || so.Timeout) {
				r.failed[rel] = when
			} else {
				delete(r.failed, rel)
			}
		}
		if Nondeterministic(sql) {
			rep.Unscored++
			continue
		}
		rep.Scored++
		class := Compare(&ro, &so, sql)
		if rel := missingRelation(so.Err); class != "" && rel != "" {
			if where, ok := r.failed[rel]; ok {
				class += " (its CREATE failed on " + r.subName + " " + where + ")"
			}
		}
		if class == "" {
			rep.Agree++
		} else {
			rep.Classes[class]++
			if len(rep.Diffs) < maxDiffs {
				rep.Diffs = append(rep.Diffs, Diff{Line: it.Line, SQL: clip(sql, 300), Class: class, Reference: clip(ro.String(), 300), Subject: clip(so.String(), 300), First: FirstDifference(&ro, &so, sql)})
			}
		}
		for _, f := range FeaturesOf(sql) {
			t := rep.Features[f]
			if t == nil {
				t = &Tally{}
				rep.Features[f] = t
			}
			t.Scored++
			if class == "" {
				t.Agree++
			}
		}
	}
}

// getenv answers the \getenv of the suite's scripts as pg_regress sets
// the environment: PG_ABS_SRCDIR is the corpus directory.
func (r *fileRun) getenv(name string) (string, bool) {
	switch name {
	case "PG_ABS_SRCDIR":
		return r.opts.Corpus, true
	case "PG_LIBDIR":
		return filepath.Join(filepath.Dir(PGBinDir), "lib"), true
	case "PG_DLSUFFIX":
		return ".so", true
	}
	return "", false
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
