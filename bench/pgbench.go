package bench

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"time"

	"github.com/kvsql/kvsql/pgerror"
)

// PgbenchResult is what ParsePgbench reads from pgbench's summary.
type PgbenchResult struct {
	TPS          float64 // "tps = X (without initial connection time)"
	Transactions int64   // "number of transactions actually processed"
	Failed       int64   // "number of failed transactions"
	Retried      int64   // "number of transactions retried" (0 when absent)
	Retries      int64   // "total number of retries" (0 when absent)
	LatencyMS    float64 // "latency average = X ms"
}

var (
	reTPS       = regexp.MustCompile(`(?m)^tps = ([0-9.]+) \(without initial connection time\)`)
	reProcessed = regexp.MustCompile(`(?m)^number of transactions actually processed: (\d+)`)
	reFailed    = regexp.MustCompile(`(?m)^number of failed transactions: (\d+)`)
	reRetried   = regexp.MustCompile(`(?m)^number of transactions retried: (\d+)`)
	reRetries   = regexp.MustCompile(`(?m)^total number of retries: (\d+)`)
	reLatency   = regexp.MustCompile(`(?m)^latency average = ([0-9.]+) ms`)
)

// ParsePgbench reads the summary pgbench (version 15) prints at the end of
// a run. The tps and processed lines are required; the failure and retry
// lines are optional (older versions and runs without --max-tries omit
// some of them).
func ParsePgbench(out string) (PgbenchResult, error) {
	var r PgbenchResult
	m := reTPS.FindStringSubmatch(out)
	if m == nil {
		return r, fmt.Errorf("pgbench: no tps line in output")
	}
	var err error
	if r.TPS, err = strconv.ParseFloat(m[1], 64); err != nil {
		return r, fmt.Errorf("pgbench: tps %q: %w", m[1], err)
	}
	m = reProcessed.FindStringSubmatch(out)
	if m == nil {
		return r, fmt.Errorf("pgbench: no 'transactions actually processed' line in output")
	}
	r.Transactions, _ = strconv.ParseInt(m[1], 10, 64)
	for _, f := range []struct {
		re  *regexp.Regexp
		dst *int64
	}{{reFailed, &r.Failed}, {reRetried, &r.Retried}, {reRetries, &r.Retries}} {
		if m := f.re.FindStringSubmatch(out); m != nil {
			*f.dst, _ = strconv.ParseInt(m[1], 10, 64)
		}
	}
	if m := reLatency.FindStringSubmatch(out); m != nil {
		r.LatencyMS, _ = strconv.ParseFloat(m[1], 64)
	}
	return r, nil
}

// PgbenchSpec is one pgbench invocation against one server.
type PgbenchSpec struct {
	Script   string        // the custom script's text (-f)
	Clients  int           // -c; threads (-j) are min(clients, 2)
	Mode     string        // -M: simple, extended or prepared
	Duration time.Duration // -T, whole seconds; under a second runs -t 200 instead
	MaxTries int           // --max-tries; 0 leaves pgbench's default (1)
}

// RunPgbench runs pgbench with spec against the server at host:port and
// parses its summary. A non-zero exit (an aborted client, a script error)
// is an error carrying the tail of pgbench's output.
func RunPgbench(ctx context.Context, host string, port int, workDir string, spec PgbenchSpec) (PgbenchResult, error) {
	f, err := os.CreateTemp(workDir, "pgbench-*.sql")
	if err != nil {
		return PgbenchResult{}, err
	}
	defer os.Remove(f.Name())
	if _, err := f.WriteString(spec.Script); err != nil {
		f.Close()
		return PgbenchResult{}, err
	}
	f.Close()
	length := []string{"-T", strconv.Itoa(int(spec.Duration.Round(time.Second) / time.Second))}
	if spec.Duration < time.Second {
		length = []string{"-t", "200"}
	}
	args := []string{"-n", "-h", host, "-p", strconv.Itoa(port), "-U", "postgres",
		"-f", filepath.Clean(f.Name()), "-c", strconv.Itoa(spec.Clients), "-j", strconv.Itoa(min(spec.Clients, 2)),
		"-M", spec.Mode}
	args = append(args, length...)
	if spec.MaxTries > 0 {
		args = append(args, "--max-tries", strconv.Itoa(spec.MaxTries))
	}
	args = append(args, "postgres")
	cmd := exec.CommandContext(ctx, pgbenchPath(), args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return PgbenchResult{}, fmt.Errorf("pgbench %v: %w: %s", args, err, tail(out.String(), 600))
	}
	return ParsePgbench(out.String())
}

// pgbenchPath prefers PostgreSQL 15's own pgbench.
func pgbenchPath() string {
	p := filepath.Join(PGBinDir, "pgbench")
	if _, err := os.Stat(p); err == nil {
		return p
	}
	return "pgbench"
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}

// isRetryable reports whether err is a serialization failure or deadlock,
// the errors a client is expected to retry.
func isRetryable(err error) bool {
	return pgerror.HasCode(err, pgerror.SerializationFailure) || pgerror.CodeOf(err) == "40P01" || sqlstate(err) == "40001" || sqlstate(err) == "40P01"
}
