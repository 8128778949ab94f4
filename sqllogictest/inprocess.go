package sqllogictest

import (
	"context"
	"time"

	"github.com/kvsql/kvsql"
	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/types"
)

// InProcessTarget runs kvsql's engine inside the test process: every file
// gets a new in-memory store, so it starts from nothing. It is the fast
// path for development and CI.
type InProcessTarget struct {
	// Options for each store; Memory is forced on.
	Options kvsql.Options
	// NewEngine, if set, makes each file's store (its Engine), in place
	// of an in-memory one: a test runs the files on another engine.
	NewEngine func() (kv.Engine, error)
}

var _ Target = (*InProcessTarget)(nil)

// Name implements Target.
func (t *InProcessTarget) Name() string { return "kvsql (in process)" }

// Open implements Target.
func (t *InProcessTarget) Open(ctx context.Context, name string) (Conn, error) {
	opts := t.Options
	opts.Memory = true
	if t.NewEngine != nil {
		e, err := t.NewEngine()
		if err != nil {
			return nil, err
		}
		opts.Engine = e
	}
	db, err := kvsql.Open(opts)
	if err != nil {
		return nil, err
	}
	s, err := db.Session("")
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	return &inProcessConn{db: db, s: s}, nil
}

type inProcessConn struct {
	db *kvsql.DB
	s  *kvsql.Session
}

func (c *inProcessConn) Exec(ctx context.Context, sql string) error {
	_, err := c.s.Exec(ctx, sql)
	return err
}

func (c *inProcessConn) Query(ctx context.Context, sql string) ([][]any, error) {
	res, err := c.s.Exec(ctx, sql)
	if err != nil {
		return nil, err
	}
	if len(res) == 0 {
		return nil, nil
	}
	last := res[len(res)-1]
	rows := make([][]any, len(last.Rows))
	for i, r := range last.Rows {
		row := make([]any, len(r))
		for j, d := range r {
			row[j] = goValue(d)
			if j < len(last.Columns) && (d.Kind == types.KindArray || d.Kind == types.KindRecord || isDateTime(last.Columns[j].Type.Family)) && !d.IsNull() {
				row[j] = string(eval.AppendTextStyle(nil, d, last.Columns[j].Type, eval.Style{Loc: c.s.Location(), Interval: c.s.IntervalStyle(), FloatDigits: c.s.FloatDigits()})) // as the wire sends it
			}
		}
		rows[i] = row
	}
	return rows, nil
}

func (c *inProcessConn) Close() error {
	_ = c.s.Close()
	return c.db.Close()
}

// isDateTime reports whether f's values reach the runner as PostgreSQL's
// text (as over the wire), not as Go times or bytes: date and time types,
// and inet, cidr, timetz and enums (bytes in a datum, text on the wire).
func isDateTime(f types.Family) bool {
	switch f {
	case types.Date, types.Timestamp, types.TimestampTZ, types.Interval, types.Time, types.Inet, types.Cidr, types.TimeTZ, types.Enum:
		return true
	}
	return false
}

// goValue converts a Datum to the Go value the runner formats.
func goValue(d types.Datum) any {
	switch d.Kind {
	case types.KindBool:
		return d.Bool()
	case types.KindInt:
		return d.I
	case types.KindFloat:
		return d.F
	case types.KindText, types.KindDecimal:
		return d.S // a numeric as PostgreSQL prints it, exactly
	case types.KindBytes:
		return []byte(d.S)
	case types.KindDate:
		return time.Unix(d.I*86400, 0).UTC()
	case types.KindTimestamp:
		return time.UnixMicro(d.I).UTC()
	case types.KindInterval:
		return types.FormatInterval(d.Interval())
	case types.KindTime:
		return types.FormatTime(d.I)
	}
	return nil
}
