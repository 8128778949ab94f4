package wire

import (
	"context"
	"errors"
	"strconv"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
	"github.com/kvsql/kvsql/wire/backend"
)

// runCopy runs the COPY sub-protocol for spec and returns the "COPY n"
// tag. For COPY FROM STDIN a malformed row ends the COPY before the batch
// holding it reaches Insert; the engine runs the whole COPY in one
// transaction, so earlier batches are rolled back with it.
func (c *conn) runCopy(ctx *stmtCtx, spec *backend.CopySpec) (string, error) {
	codec, err := newCopyCodec(spec)
	if err != nil {
		return "", err
	}
	codec.style = c.style()
	if spec.In {
		return c.copyIn(ctx, spec, codec)
	}
	return c.copyOut(ctx, spec, codec)
}

// copyFormats returns CopyInResponse/CopyOutResponse's format fields.
func copyFormats(spec *backend.CopySpec) (byte, []uint16) {
	f := uint16(0)
	if spec.Format == "binary" {
		f = 1
	}
	cols := make([]uint16, len(spec.Columns))
	for i := range cols {
		cols[i] = f
	}
	return byte(f), cols
}

func (c *conn) copyIn(ctx *stmtCtx, spec *backend.CopySpec, codec *copyCodec) (tag string, err error) {
	if spec.Finish != nil {
		defer func() {
			ferr := c.guard("CopySpec.Finish", func() error { return spec.Finish(ctx, err) })
			if err == nil && ferr != nil {
				tag, err = "", ferr
			}
		}()
	}
	if spec.Insert == nil {
		return "", pgerror.New(pgerror.Internal, "COPY FROM STDIN without an Insert function")
	}
	overall, cols := copyFormats(spec)
	c.send(&pgproto3.CopyInResponse{OverallFormat: overall, ColumnFormatCodes: cols})
	if err := c.flush(); err != nil {
		return "", err
	}
	w := copyWriter{c: c, ctx: ctx, spec: spec, done: make(chan copyBatch, 1)}
	// Every way out waits for the batch in flight: Finish (commit or
	// rollback) must not run beside Insert, and an error of an earlier
	// batch comes before anything found later in the input.
	defer w.wait()
	cur := copyBatch{rows: make([][]types.Datum, 0, backend.CopyBatchRows)}
	flush := func() error {
		spare, err := w.wait()
		if err != nil || len(cur.rows) == 0 {
			return err
		}
		cur.slab = codec.swapSlab(spare.slab)
		w.start(cur)
		cur = copyBatch{rows: spare.rows, text: spare.text, ends: spare.ends}
		if cur.rows == nil {
			cur.rows = make([][]types.Datum, 0, backend.CopyBatchRows)
		}
		return nil
	}
	emit := func(row []types.Datum, raw []byte) error {
		if len(cur.rows) == 0 {
			cur.first = codec.line
		}
		cur.rows = append(cur.rows, row)
		if codec.format != "binary" {
			cur.text = append(cur.text, raw...)
			cur.ends = append(cur.ends, len(cur.text))
		}
		if len(cur.rows) >= backend.CopyBatchRows {
			return flush()
		}
		return nil
	}
	// fail returns the error of the batch in flight if it has one (its
	// rows came first), else err.
	fail := func(err error) error {
		if _, werr := w.wait(); werr != nil {
			return werr
		}
		return err
	}
	for {
		if err := ctx.Err(); err != nil {
			return "", fail(context.Cause(ctx))
		}
		typ, body, err := c.receiveRaw()
		if err != nil {
			w.wait()
			c.readFailed(err)
			c.stop()
			return "", errConnectionLost
		}
		switch typ {
		case 'd':
			if spec.Progress != nil {
				spec.Progress(int64(len(body)), 0)
			}
			if err := codec.feed(body, c.srv.cfg.MaxMessageSize, emit); err != nil {
				return "", fail(err)
			}
		case 'c':
			if err := codec.finish(emit); err != nil {
				return "", fail(err)
			}
			if err := flush(); err != nil {
				return "", err
			}
			if _, err := w.wait(); err != nil {
				return "", err
			}
			return "COPY " + strconv.FormatInt(w.total, 10), nil
		case 'f':
			var m pgproto3.CopyFail
			m.Decode(body)
			return "", fail(pgerror.Newf(pgerror.QueryCanceled, "COPY from stdin failed: %s", m.Message))
		case 'H', 'S':
			// PostgreSQL ignores Flush and Sync during COPY IN.
		default:
			return "", fail(pgerror.Newf(pgerror.ProtocolViolation, "unexpected message type 0x%02X during COPY from stdin", typ))
		}
	}
}

// copyWriter stores COPY FROM's batches on a goroutine of their own, so
// that the connection's goroutine decodes the next batch while one is
// written, and the client's next CopyData is read (not left to stall
// the client behind a full socket) while the server stores a batch. At
// most
// one batch is in flight, and batches reach CopySpec.Insert one call at a
// time in input order, so the backend sees the same calls as when COPY
// ran them inline; only their goroutine differs.
type copyWriter struct {
	c     *conn
	ctx   *stmtCtx
	spec  *backend.CopySpec
	done  chan copyBatch // the batch in flight, back with its result
	busy  bool           // a batch is in flight
	total int64          // rows stored by the batches waited for
	err   error          // the first Insert error; no batch starts after it
}

// copyBatch is one batch of decoded rows and the slab they were cut from
// (copyCodec.newRow); the writer hands both back for reuse. first is
// the input line of the first row, and the rows' lines follow it; text
// holds the rows' lines (text and csv), row i's ending at ends[i], for
// the CONTEXT of an error in a row (rowContext).
type copyBatch struct {
	rows  [][]types.Datum
	slab  []types.Datum
	first int
	text  []byte
	ends  []int
	n     int64 // rows Insert stored
	err   error
}

// rowContext gives an error of Insert that names its row
// (backend.CopyRowError) PostgreSQL's CONTEXT line for the row's line
// of input; other errors are returned as they are.
func (b *copyBatch) rowContext(err error, table string) error {
	var re *backend.CopyRowError
	if !errors.As(err, &re) || re.Row < 0 || re.Row >= len(b.rows) {
		return err
	}
	detail := ""
	if !re.NoText && re.Row < len(b.ends) {
		start := 0
		if re.Row > 0 {
			start = b.ends[re.Row-1]
		}
		detail = lineText(b.text[start:b.ends[re.Row]])
	}
	return pgerror.WithContext(re.Err, copyContext(table, b.first+re.Row, detail))
}

// start runs Insert on b on a new goroutine.
// REQUIRES: no batch in flight and no earlier error (wait returned nil).
func (w *copyWriter) start(b copyBatch) {
	w.busy = true
	run := func() {
		b.err = w.c.guard("CopySpec.Insert", func() (err error) { b.n, err = w.spec.Insert(w.ctx, b.rows); return err })
		if b.err == nil && w.spec.Progress != nil {
			w.spec.Progress(0, b.n)
		}
		w.done <- b // buffered: never blocks
	}
	if w.c.srv.cfg.CopyInline {
		run()
		return
	}
	go run()
}

// wait waits for the batch in flight, if any, and returns its buffers
// emptied for reuse, and the first Insert error of the COPY.
func (w *copyWriter) wait() (copyBatch, error) {
	if !w.busy {
		return copyBatch{}, w.err
	}
	b := <-w.done
	w.busy = false
	w.total += b.n
	if b.err != nil && w.err == nil {
		w.err = b.rowContext(b.err, w.spec.Table)
	}
	clear(b.rows)
	return copyBatch{rows: b.rows[:0], slab: b.slab[:0], text: b.text[:0], ends: b.ends[:0]}, w.err
}

func (c *conn) copyOut(ctx *stmtCtx, spec *backend.CopySpec, codec *copyCodec) (string, error) {
	if spec.Rows == nil {
		return "", pgerror.New(pgerror.Internal, "COPY TO STDOUT without a Rows function")
	}
	var res backend.Result
	err := c.guard("CopySpec.Rows", func() error {
		var err error
		res, err = spec.Rows(ctx)
		return err
	})
	if err == nil && res == nil {
		err = pgerror.New(pgerror.Internal, "backend returned no result")
	}
	if err != nil {
		return "", err
	}
	defer c.guard("Result.Close", res.Close)
	overall, cols := copyFormats(spec)
	c.send(&pgproto3.CopyOutResponse{OverallFormat: overall, ColumnFormatCodes: cols})
	var buf []byte
	if head := codec.header(); head != nil {
		c.send(&pgproto3.CopyData{Data: head})
	}
	var n int64
	err = c.guard("Result", func() error {
		for ; ; n++ {
			if n&63 == 63 && ctx.Err() != nil {
				return ctx.Err()
			}
			if !res.Next() {
				return res.Err()
			}
			var err error
			if buf, err = codec.appendRow(buf[:0], res.Row()); err != nil {
				return err
			}
			c.send(&pgproto3.CopyData{Data: buf})
			if spec.Progress != nil {
				spec.Progress(int64(len(buf)), 1)
			}
			if err := c.maybeFlush(); err != nil {
				return err
			}
		}
	})
	if err != nil {
		return "", err
	}
	if tr := codec.trailer(); tr != nil {
		c.send(&pgproto3.CopyData{Data: tr})
	}
	c.send(&pgproto3.CopyDone{})
	return "COPY " + strconv.FormatInt(n, 10), nil
}
