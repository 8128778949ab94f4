package sqllogictest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Conn is one session to a database under test. The runner uses a Conn
// from one goroutine at a time.
type Conn interface {
	// Exec runs a statement and reports only whether it failed.
	Exec(ctx context.Context, sql string) error
	// Query runs a statement and returns all its rows. Each value is nil,
	// bool, int64, float64, string, []byte or time.Time (other Go integer
	// and float kinds are accepted). A statement that returns no rows
	// yields an empty result, not an error.
	Query(ctx context.Context, sql string) (rows [][]any, err error)
	// Close ends the session and releases what Target.Open created for it.
	Close() error
}

// Target opens sessions to the database under test.
type Target interface {
	// Open returns a session to a FRESH, empty database for one test
	// file. name is unique within the process's runs and is a valid
	// unquoted SQL identifier (lower-case letters, digits, '_', at most
	// 63 bytes), so a target may use it as a database name. Open may be
	// called from several goroutines at once.
	Open(ctx context.Context, name string) (Conn, error)
	// Name describes the target in reports (no passwords).
	Name() string
}

// DefaultEngine is the engine name skipif/onlyif lines are matched
// against when Options.Engine is empty. kvsql speaks PostgreSQL's dialect,
// and the corpus marks with "skipif postgresql" the records PostgreSQL
// rejects (output columns renamed without AS, loose GROUP BY) and with
// "onlyif mysql" those in MySQL's dialect (DIV, CAST AS SIGNED); matching
// as postgresql therefore runs the records kvsql is meant to pass, and
// scores kvsql and PostgreSQL itself on exactly the same records.
const DefaultEngine = "postgresql"

// Options tune RunFiles. The zero value is usable.
type Options struct {
	// Engine is matched against skipif/onlyif; DefaultEngine when empty.
	Engine string
	// Jobs is the number of files run at once; 1 when <= 0.
	Jobs int
	// StatementTimeout bounds each record's run; no bound when 0.
	StatementTimeout time.Duration
	// Progress, when set, receives a progress bar (a terminal) or
	// periodic progress lines (anything else).
	Progress io.Writer
	// Verbose writes every failure to Progress (or standard error when
	// Progress is nil) as it happens.
	Verbose bool
	// MaxFailuresPerFile stops a file after that many failures; no limit
	// when 0.
	MaxFailuresPerFile int
	// MaxStoredFailures bounds the failures kept per FileResult (counts
	// stay exact); 20 when 0, none kept when negative.
	MaxStoredFailures int
}

// defaultStoredFailures is the per-file cap on kept failures, enough to
// diagnose a file without making the JSON report huge.
const defaultStoredFailures = 20

// maxShownValues caps the actual values a Failure carries.
const maxShownValues = 64

// ExpandPaths turns files and directories into the sorted list of .test
// files to run: a directory contributes every *.test below it; a file is
// taken as given whatever its name. Duplicates are removed.
func ExpandPaths(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !fi.IsDir() {
			out = append(out, p)
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(path, ".test") {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		slices.Sort(found)
		out = append(out, found...)
	}
	seen := map[string]bool{}
	uniq := out[:0]
	for _, p := range out {
		if !seen[p] {
			seen[p] = true
			uniq = append(uniq, p)
		}
	}
	return uniq, nil
}

// runSeq numbers database names across runs in one process.
var runSeq atomic.Int64

// dbName builds the unique identifier passed to Target.Open.
func dbName(path string) string {
	base := strings.TrimSuffix(filepath.Base(path), ".test")
	var b strings.Builder
	fmt.Fprintf(&b, "slt_%d_%d_", os.Getpid()%100000, runSeq.Add(1))
	for _, c := range strings.ToLower(base) {
		if (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' {
			b.WriteRune(c)
		} else {
			b.WriteByte('_')
		}
		if b.Len() >= 63 {
			break
		}
	}
	return b.String()
}

// RunFiles runs every .test file under paths (see ExpandPaths) against t
// and returns the report. Each file gets its own fresh database from
// t.Open; up to opts.Jobs files run at once. Failing records never make
// RunFiles fail: they are counted in the report. The error is non-nil
// only when paths cannot be expanded or ctx is cancelled (the report then
// holds what ran).
func RunFiles(ctx context.Context, t Target, paths []string, opts Options) (*Report, error) {
	files, err := ExpandPaths(paths)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, errors.New("sqllogictest: no .test files in the given paths")
	}
	if opts.Engine == "" {
		opts.Engine = DefaultEngine
	}
	if opts.Jobs <= 0 {
		opts.Jobs = 1
	}
	if opts.MaxStoredFailures == 0 {
		opts.MaxStoredFailures = defaultStoredFailures
	}
	rep := &Report{Target: t.Name(), Engine: opts.Engine, Files: make([]FileResult, len(files))}
	start := time.Now()
	prog := newProgress(opts.Progress, len(files))
	logw := opts.Progress
	if logw == nil {
		logw = os.Stderr
	}
	var logMu sync.Mutex
	r := &fileRunner{t: t, opts: opts, prog: prog, logf: func(f *Failure) {
		logMu.Lock()
		defer logMu.Unlock()
		prog.clear()
		fmt.Fprint(logw, f.String())
	}}

	next := make(chan int)
	var wg sync.WaitGroup
	for range opts.Jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				rep.Files[i] = r.run(ctx, files[i])
				prog.fileDone()
			}
		}()
	}
	for i := range files {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	prog.stop()
	rep.Duration = time.Since(start)
	rep.Seconds = rep.Duration.Seconds()
	for i := range rep.Files {
		if rep.Files[i].Path == "" {
			rep.Files[i] = FileResult{Path: files[i], Aborted: true, Error: "not run: cancelled"}
		}
	}
	return rep, ctx.Err()
}

// fileRunner runs single files; it is shared by all jobs.
type fileRunner struct {
	t    Target
	opts Options
	prog *progress
	logf func(*Failure)
}

// fileState is what one file's run carries from record to record.
type fileState struct {
	res    *FileResult
	labels map[string]string // label -> hash line of the first passing query
}

func (r *fileRunner) run(ctx context.Context, path string) (res FileResult) {
	res.Path = path
	start := time.Now()
	defer func() {
		res.Duration = time.Since(start)
		res.Seconds = res.Duration.Seconds()
	}()
	recs, err := ParseFile(path)
	if err != nil {
		res.Error = err.Error()
		return res
	}
	conn, err := r.t.Open(ctx, dbName(path))
	if err != nil {
		if ctx.Err() != nil {
			res.Aborted, res.Error = true, "not run: cancelled"
			return res
		}
		res.Error = "open: " + err.Error()
		return res
	}
	defer func() {
		if err := conn.Close(); err != nil && res.Error == "" {
			res.Error = "close: " + err.Error()
		}
	}()
	st := &fileState{res: &res, labels: map[string]string{}}
	for i := range recs {
		rec := &recs[i]
		if ctx.Err() != nil {
			res.Aborted = true
			break
		}
		switch rec.Kind {
		case KindHashThreshold:
			continue
		case KindHalt:
			if rec.RunsOn(r.opts.Engine) {
				res.Halted = true
				return res
			}
			continue
		}
		if !rec.RunsOn(r.opts.Engine) {
			res.Skipped++
			continue
		}
		f := r.runRecord(ctx, conn, path, rec, st)
		if f != nil && ctx.Err() != nil {
			// The run was cancelled under this record: it neither
			// passed nor failed.
			res.Aborted = true
			break
		}
		res.Records++
		r.prog.record(f != nil)
		if f == nil {
			res.Passed++
			continue
		}
		res.Failed++
		if res.Reasons == nil {
			res.Reasons = map[string]int{}
		}
		res.Reasons[reasonOf(f)]++
		if len(res.Failures) < r.opts.MaxStoredFailures {
			res.Failures = append(res.Failures, *f)
		}
		if r.opts.Verbose {
			r.logf(f)
		}
		if r.opts.MaxFailuresPerFile > 0 && res.Failed >= r.opts.MaxFailuresPerFile {
			res.Aborted = true
			break
		}
	}
	return res
}

// runRecord runs one statement or query record and returns nil when it
// passed. A panic in the target becomes a FailPanic failure.
func (r *fileRunner) runRecord(ctx context.Context, conn Conn, path string, rec *Record, st *fileState) (f *Failure) {
	fail := func(kind FailureKind, err error) *Failure {
		f := &Failure{File: path, Line: rec.Line, Kind: kind, SQL: rec.SQL}
		if err != nil {
			f.Err = err.Error()
		}
		return f
	}
	defer func() {
		if p := recover(); p != nil {
			f = fail(FailPanic, fmt.Errorf("panic: %v\n%s", p, debug.Stack()))
		}
	}()
	rctx, cancel := ctx, context.CancelFunc(func() {})
	if r.opts.StatementTimeout > 0 {
		rctx, cancel = context.WithTimeout(ctx, r.opts.StatementTimeout)
	}
	defer cancel()
	timedOut := func(err error) bool {
		return err != nil && ctx.Err() == nil && errors.Is(rctx.Err(), context.DeadlineExceeded)
	}

	if rec.Kind == KindStatement {
		err := conn.Exec(rctx, rec.SQL)
		switch {
		case timedOut(err):
			return fail(FailTimeout, fmt.Errorf("no answer within %v: %w", r.opts.StatementTimeout, err))
		case rec.ExpectError && err == nil:
			return fail(FailNoError, nil)
		case !rec.ExpectError && err != nil:
			return fail(FailError, err)
		}
		return nil
	}

	rows, err := conn.Query(rctx, rec.SQL)
	if timedOut(err) {
		return fail(FailTimeout, fmt.Errorf("no answer within %v: %w", r.opts.StatementTimeout, err))
	}
	if err != nil {
		return fail(FailError, err)
	}
	vals, err := Render(rows, rec.Types)
	if err != nil {
		return fail(FailColumns, err)
	}
	SortValues(vals, len(rec.Types), rec.Sort)
	if !Matches(rec, vals) {
		f := fail(FailResult, nil)
		f.Expected = rec.Expected
		if rec.IsHash {
			f.Expected = []string{fmt.Sprintf("%d values hashing to %s", rec.HashCount, rec.ExpectedHash)}
			f.Actual = []string{HashLine(vals)}
		}
		shown := vals
		if len(shown) > maxShownValues {
			shown = append(slices.Clone(shown[:maxShownValues]), "...")
		}
		f.Actual = append(f.Actual, shown...)
		if f.Expected == nil {
			f.Expected = []string{}
		}
		return f
	}
	if rec.Label != "" {
		h := HashLine(vals)
		if prev, ok := st.labels[rec.Label]; !ok {
			st.labels[rec.Label] = h
		} else if prev != h {
			f := fail(FailLabel, fmt.Errorf("label %s: %s, an earlier query gave %s", rec.Label, h, prev))
			f.Expected, f.Actual = []string{prev}, []string{h}
			return f
		}
	}
	return nil
}
