package session

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/kvsql/kvsql/exec"
	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
	"vitess.io/vitess/go/vt/sqlparser"
)

// maxQueryMemSetting is the session setting that lowers the per-statement
// memory limit below the server's (Options.MaxQueryMem); a session cannot
// raise it above the server's.
const maxQueryMemSetting = "kvsql.max_query_memory"

// maxQueryMem is the server's per-statement memory limit: Options.MaxQueryMem,
// or a quarter of the machine's memory (its cgroup limit when lower), or
// exec.DefaultMaxQueryMem when neither can be read.
func (db *DB) maxQueryMem() int64 {
	if db.opts.MaxQueryMem > 0 {
		return db.opts.MaxQueryMem
	}
	if ram := machineMemory(); ram > 0 {
		return ram / 4
	}
	return exec.DefaultMaxQueryMem
}

// maxValueSize is the server's cap on one value (Options.MaxValueSize).
func (db *DB) maxValueSize() int64 {
	if db.opts.MaxValueSize > 0 {
		return db.opts.MaxValueSize
	}
	return eval.DefaultMaxValueSize
}

// queryMemLimit is the memory limit of the session's next statement.
func (s *Session) queryMemLimit() int64 {
	limit := s.db.maxQueryMem()
	if n, ok := s.settingNumber(&s.parsed.queryMem, maxQueryMemSetting, parseMemory); ok && n < limit {
		return n
	}
	return limit
}

// machineMemory is physicalMemory read once per process: every statement
// asks for its limit, and reading /proc and /sys each time (six system
// calls) was a fifth of the server's time at pgbench's point select.
var machineMemory = sync.OnceValue(physicalMemory)

// physicalMemory is the memory this process may use in bytes: the
// machine's (MemTotal in /proc/meminfo) or its cgroup v2 limit when that
// is lower; 0 when neither can be read (not Linux).
func physicalMemory() int64 {
	var total int64
	if f, err := os.Open("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
				kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
				if err == nil {
					total = kb << 10
				}
				break
			}
		}
		_ = f.Close()
	}
	if b, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && n > 0 && (total == 0 || n < total) {
			total = n
		}
	}
	return total
}

// rowBytes estimates the memory a row kept by the session costs (as the
// executor's accounting does: a slice header, and per value its Datum
// and its string bytes).
func rowBytes(row []types.Datum) int64 {
	n := int64(48)
	for i := range row {
		n += 48 + int64(len(row[i].S))
	}
	return n
}

// outOfMemory is PostgreSQL's 53200 for a request of n bytes that the
// statement's memory limit refuses.
func outOfMemory(n int64) error {
	e := pgerror.New(pgerror.OutOfMemory, "out of memory")
	e.Detail = fmt.Sprintf("Failed on request of size %d in memory context \"PortalContext\".", n)
	return e
}

// rowCollector keeps the rows of a result the session holds whole (DML
// RETURNING) within the statement's memory limit; past it the rows are
// dropped and err is 53200.
type rowCollector struct {
	rows        [][]types.Datum
	size, limit int64
	err         error
}

func (c *rowCollector) add(row []types.Datum) {
	if c.err != nil {
		return
	}
	sz := rowBytes(row)
	if c.size+sz > c.limit {
		c.err, c.rows = outOfMemory(sz), nil
		return
	}
	c.size += sz
	c.rows = append(c.rows, append([]types.Datum(nil), row...))
}

// checkLiterals refuses (54000) a statement holding a literal longer than
// the value cap; Prepare calls it only for texts longer than the cap.
func checkLiterals(stmts []parse.Statement, limit int64) error {
	var err error
	for i := range stmts {
		if stmts[i].AST == nil {
			continue
		}
		_ = sqlparser.Walk(func(n sqlparser.SQLNode) (bool, error) {
			if lit, ok := n.(*sqlparser.Literal); ok && int64(len(lit.Val)) > limit && err == nil {
				err = pgerror.Newf(pgerror.ProgramLimitExceeded, "literal of %d bytes exceeds the value limit of %d bytes", len(lit.Val), limit)
			}
			return err == nil, nil
		}, stmts[i].AST)
	}
	return err
}
