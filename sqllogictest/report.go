package sqllogictest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// FailureKind classifies why a record failed.
type FailureKind string

const (
	// FailError: the statement or query returned an error it should not have.
	FailError FailureKind = "error"
	// FailNoError: a "statement error" record succeeded.
	FailNoError FailureKind = "no error"
	// FailResult: the query's values (or hash) differ from the expected ones.
	FailResult FailureKind = "wrong result"
	// FailColumns: the query returned a different number of columns.
	FailColumns FailureKind = "wrong column count"
	// FailLabel: the query's hash differs from an earlier query with its label.
	FailLabel FailureKind = "label mismatch"
	// FailTimeout: the record ran longer than Options.StatementTimeout.
	FailTimeout FailureKind = "timeout"
	// FailPanic: the target panicked while running the record.
	FailPanic FailureKind = "panic"
)

// Failure describes one failed record.
type Failure struct {
	File string      `json:"file"`
	Line int         `json:"line"`
	Kind FailureKind `json:"kind"`
	SQL  string      `json:"sql"`
	// Expected holds the expected lines (values or the hash line).
	Expected []string `json:"expected,omitempty"`
	// Actual holds the rendered, sorted values (at most maxShownValues,
	// then "..."), preceded by their hash line when the record expected
	// a hash.
	Actual []string `json:"actual,omitempty"`
	// Err is the error the target returned, or what else went wrong.
	Err string `json:"error,omitempty"`
}

// String formats the failure for a terminal: location, kind, SQL, and the
// expected and actual results or the error.
func (f *Failure) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d: %s\n", f.File, f.Line, f.Kind)
	fmt.Fprintf(&b, "    %s\n", strings.ReplaceAll(f.SQL, "\n", "\n    "))
	if f.Err != "" {
		fmt.Fprintf(&b, "  error: %s\n", f.Err)
	}
	if f.Expected != nil || f.Actual != nil {
		fmt.Fprintf(&b, "  expected: %s\n", strings.Join(f.Expected, " "))
		fmt.Fprintf(&b, "  actual:   %s\n", strings.Join(f.Actual, " "))
	}
	return b.String()
}

// FileResult is the outcome of one .test file.
type FileResult struct {
	Path string `json:"path"`
	// Records counts statement and query records that ran; Skipped those
	// that skipif/onlyif kept from running. Passed+Failed == Records.
	Records int `json:"records"`
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Skipped int `json:"skipped"`
	// Halted is set when a halt record stopped the file; Aborted when
	// Options.MaxFailuresPerFile did, or the run was cancelled. Records
	// after the stop are not counted at all.
	Halted   bool          `json:"halted,omitempty"`
	Aborted  bool          `json:"aborted,omitempty"`
	Duration time.Duration `json:"-"`
	Seconds  float64       `json:"seconds"`
	// Error is set when the file could not be run at all (parse error,
	// Target.Open failed) or its connection failed to close.
	Error string `json:"error,omitempty"`
	// Failures holds the first Options.MaxStoredFailures failures.
	Failures []Failure `json:"failures,omitempty"`
	// Reasons counts every failure by reason (see reasonOf).
	Reasons map[string]int `json:"reasons,omitempty"`
}

// Report is the outcome of RunFiles. Files are in the order of the
// expanded path list, whatever order they ran in.
type Report struct {
	Target   string        `json:"target"`
	Engine   string        `json:"engine"`
	Files    []FileResult  `json:"files"`
	Duration time.Duration `json:"-"`
	Seconds  float64       `json:"seconds"`
}

// Totals sums the counts over all files.
func (r *Report) Totals() (records, passed, failed, skipped int) {
	for i := range r.Files {
		f := &r.Files[i]
		records += f.Records
		passed += f.Passed
		failed += f.Failed
		skipped += f.Skipped
	}
	return
}

// JSON writes the whole report as indented JSON.
func (r *Report) JSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// ReadReport reads a report written by Report.JSON.
func ReadReport(r io.Reader) (*Report, error) {
	var rep Report
	if err := json.NewDecoder(r).Decode(&rep); err != nil {
		return nil, err
	}
	rep.Duration = time.Duration(rep.Seconds * float64(time.Second))
	for i := range rep.Files {
		f := &rep.Files[i]
		f.Duration = time.Duration(f.Seconds * float64(time.Second))
	}
	return &rep, nil
}

// Group sums the results of the files of one directory.
type Group struct {
	Name                                    string
	Files, Records, Passed, Failed, Skipped int
	Errors                                  int // files that could not run
	Duration                                time.Duration
}

func (g *Group) add(f *FileResult) {
	g.Files++
	g.Records += f.Records
	g.Passed += f.Passed
	g.Failed += f.Failed
	g.Skipped += f.Skipped
	g.Duration += f.Duration
	if f.Error != "" {
		g.Errors++
	}
}

// Groups sums the report per directory, in directory order, followed by
// the total (named "total", with the run's wall time).
func (r *Report) Groups() []Group {
	byDir := map[string]*Group{}
	total := Group{Name: "total", Duration: r.Duration}
	for i := range r.Files {
		f := &r.Files[i]
		dir := filepath.Dir(f.Path)
		g := byDir[dir]
		if g == nil {
			g = &Group{Name: dir}
			byDir[dir] = g
		}
		g.add(f)
		dur := total.Duration
		total.add(f)
		total.Duration = dur
	}
	names := make([]string, 0, len(byDir))
	for n := range byDir {
		names = append(names, n)
	}
	slices.Sort(names)
	out := make([]Group, 0, len(names)+1)
	for _, n := range names {
		out = append(out, *byDir[n])
	}
	return append(out, total)
}

func percent(passed, records int) string {
	if records == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(passed)/float64(records))
}

// Summary writes a table with one row per directory (the directory part
// of each file's path), a total row, the files that could not run, and the
// most frequent failure reasons. Times are summed file run times, so with
// several jobs they add up to more than the wall clock shown in the total.
func (r *Report) Summary(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "directory\tfiles\trecords\tpassed\tfailed\tskipped\tpass\ttime\t\n")
	for _, g := range r.Groups() {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t\n", g.Name, g.Files, g.Records,
			g.Passed, g.Failed, g.Skipped, percent(g.Passed, g.Records), g.Duration.Round(time.Millisecond))
	}
	tw.Flush()
	fmt.Fprintf(w, "target %s, engine %s\n", r.Target, r.Engine)

	for i := range r.Files {
		if f := &r.Files[i]; f.Error != "" {
			fmt.Fprintf(w, "file error: %s: %s\n", f.Path, f.Error)
		}
	}
	if top := r.TopReasons(10); len(top) > 0 {
		fmt.Fprintf(w, "most frequent failure reasons:\n")
		for _, rc := range top {
			fmt.Fprintf(w, "  %7d  %s\n", rc.Count, rc.Reason)
		}
	}
}

// ReasonCount is one line of Report.TopReasons.
type ReasonCount struct {
	Reason string
	Count  int
}

// TopReasons returns the n most frequent failure reasons over all files,
// most frequent first (ties in reason order).
func (r *Report) TopReasons(n int) []ReasonCount {
	sum := map[string]int{}
	for i := range r.Files {
		for k, c := range r.Files[i].Reasons {
			sum[k] += c
		}
	}
	out := make([]ReasonCount, 0, len(sum))
	for k, c := range sum {
		out = append(out, ReasonCount{k, c})
	}
	slices.SortFunc(out, func(a, b ReasonCount) int {
		if c := cmp.Compare(b.Count, a.Count); c != 0 {
			return c
		}
		return cmp.Compare(a.Reason, b.Reason)
	})
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// maxReasonLen bounds a reason string so that error messages quoting long
// SQL still group together.
const maxReasonLen = 100

// reasonOf names the failure's cause for TopReasons: the kind, plus the
// first line of the error message when there is one.
func reasonOf(f *Failure) string {
	if f.Err == "" || f.Kind == FailLabel {
		return string(f.Kind)
	}
	msg, _, _ := strings.Cut(f.Err, "\n")
	if len(msg) > maxReasonLen {
		msg = msg[:maxReasonLen] + "..."
	}
	return string(f.Kind) + ": " + msg
}
