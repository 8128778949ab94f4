package pgregress

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// Conn is one client connection speaking the simple query protocol, as
// psql does: a query string in, every result of it out as text. It is
// pgx's connection (pgconn does the startup and authentication), taken
// over after the handshake so that COPY FROM STDIN can ask for its data
// only once the server has entered COPY mode, as psql does.
type Conn struct {
	nc   net.Conn
	fe   *pgproto3.Frontend
	pid  uint32
	key  []byte
	addr string
}

// Dial connects to connString.
func Dial(ctx context.Context, connString string) (*Conn, error) {
	pc, err := pgconn.Connect(ctx, connString)
	if err != nil {
		return nil, err
	}
	hj, err := pc.Hijack()
	if err != nil {
		_ = pc.Close(ctx)
		return nil, err
	}
	return &Conn{nc: hj.Conn, fe: hj.Frontend, pid: hj.PID, key: hj.SecretKey, addr: hj.Conn.RemoteAddr().String()}, nil
}

// Close ends the session.
func (c *Conn) Close() {
	c.fe.Send(&pgproto3.Terminate{})
	_ = c.fe.Flush()
	_ = c.nc.Close()
}

// Result is one statement's result within a query string.
type Result struct {
	// Columns are the names of a row-returning statement's columns (nil
	// for a command); a COPY TO STDOUT has the one column "COPY" and its
	// data lines as rows.
	Columns []string    `json:"columns,omitempty"`
	Rows    [][]*string `json:"rows,omitempty"` // nil cell: NULL
	Tag     string      `json:"tag"`
}

// Error is an error the server reported.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Outcome is everything one query string produced on one server.
type Outcome struct {
	Results []Result `json:"results,omitempty"`
	Err     *Error   `json:"error,omitempty"`
	// Timeout: the statement ran past its limit and was cancelled (or,
	// when the cancel did not take, its connection dropped).
	Timeout bool `json:"timeout,omitempty"`
	// Lost: the connection broke; the server crashed or dropped it.
	Lost bool `json:"lost,omitempty"`
	// Copied: the server asked for COPY FROM STDIN data.
	Copied bool `json:"copied,omitempty"`
}

// Broken reports whether the connection cannot be used again.
func (o *Outcome) Broken() bool { return o.Lost || (o.Timeout && o.Err == nil) }

// graceAfterCancel is how long a cancelled statement may take to stop
// before its connection is dropped.
const graceAfterCancel = 5 * time.Second

// Run sends sql as one simple query and reads all its results. When the
// server asks for COPY data, copyIn (if not nil) supplies it. A query
// running longer than timeout is cancelled with a CancelRequest.
func (c *Conn) Run(sql string, timeout time.Duration, copyIn func() []byte) Outcome {
	var out Outcome
	var mu sync.Mutex
	timedOut := false
	cancel := time.AfterFunc(timeout, func() {
		mu.Lock()
		timedOut = true
		mu.Unlock()
		_ = c.cancel()
		_ = c.nc.SetReadDeadline(time.Now().Add(graceAfterCancel))
	})
	defer cancel.Stop()
	defer func() { _ = c.nc.SetReadDeadline(time.Time{}) }()
	didTimeOut := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return timedOut
	}

	c.fe.Send(&pgproto3.Query{String: sql})
	if err := c.fe.Flush(); err != nil {
		out.Lost = true
		return out
	}
	var cur *Result
	var copyOut *strings.Builder
	for {
		msg, err := c.fe.Receive()
		if err != nil {
			if didTimeOut() {
				out.Timeout = true
				out.Err = nil
			} else {
				out.Lost = true
			}
			return out
		}
		switch m := msg.(type) {
		case *pgproto3.RowDescription:
			cur = &Result{Columns: make([]string, len(m.Fields))}
			for i, f := range m.Fields {
				cur.Columns[i] = string(f.Name)
			}
		case *pgproto3.DataRow:
			if cur == nil {
				cur = &Result{}
			}
			row := make([]*string, len(m.Values))
			for i, v := range m.Values {
				if v != nil {
					s := string(v)
					row[i] = &s
				}
			}
			cur.Rows = append(cur.Rows, row)
		case *pgproto3.CopyOutResponse:
			cur = &Result{Columns: []string{"COPY"}}
			copyOut = &strings.Builder{}
		case *pgproto3.CopyData:
			if copyOut != nil {
				copyOut.Write(m.Data)
			}
		case *pgproto3.CopyInResponse:
			out.Copied = true
			var data []byte
			if copyIn != nil {
				data = copyIn()
			}
			for len(data) > 0 {
				n := min(len(data), 64<<10)
				c.fe.Send(&pgproto3.CopyData{Data: data[:n]})
				data = data[n:]
			}
			c.fe.Send(&pgproto3.CopyDone{})
			if err := c.fe.Flush(); err != nil {
				out.Lost = true
				return out
			}
		case *pgproto3.CommandComplete:
			if cur == nil {
				cur = &Result{}
			}
			if copyOut != nil {
				for _, line := range strings.SplitAfter(copyOut.String(), "\n") {
					if line != "" {
						cur.Rows = append(cur.Rows, []*string{&line})
					}
				}
				copyOut = nil
			}
			cur.Tag = string(m.CommandTag)
			out.Results = append(out.Results, *cur)
			cur = nil
		case *pgproto3.EmptyQueryResponse:
			out.Results = append(out.Results, Result{})
			cur = nil
		case *pgproto3.ErrorResponse:
			// Rows sent before the error are not a result: psql shows
			// only the error.
			cur, copyOut = nil, nil
			out.Err = &Error{Code: m.Code, Message: m.Message}
			if m.Code == "57014" && didTimeOut() {
				out.Timeout = true
			}
		case *pgproto3.ReadyForQuery:
			return out
		}
	}
}

// cancel asks the server to cancel the running query on a new
// connection, as PostgreSQL's protocol prescribes.
func (c *Conn) cancel() error {
	nc, err := net.DialTimeout("tcp", c.addr, 5*time.Second)
	if err != nil {
		return err
	}
	defer nc.Close()
	b, err := (&pgproto3.CancelRequest{ProcessID: c.pid, SecretKey: c.key}).Encode(nil)
	if err != nil {
		return err
	}
	_ = nc.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := nc.Write(b); err != nil {
		return err
	}
	// The server closes the connection when it has read the request.
	var one [1]byte
	_, _ = nc.Read(one[:])
	return nil
}

// String is a one-line summary of an outcome for reports.
func (o *Outcome) String() string {
	var parts []string
	for _, r := range o.Results {
		s := r.Tag
		if s == "" {
			s = "(empty)"
		}
		if r.Columns != nil {
			s = fmt.Sprintf("%s, %d columns (%s)", s, len(r.Columns), strings.Join(r.Columns, ", "))
		}
		parts = append(parts, s)
	}
	switch {
	case o.Timeout:
		parts = append(parts, "timeout")
	case o.Lost:
		parts = append(parts, "connection lost")
	case o.Err != nil:
		parts = append(parts, "ERROR "+o.Err.Code+" "+o.Err.Message)
	}
	return strings.Join(parts, "; ")
}
