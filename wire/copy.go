package wire

import (
	"context"
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
	codec.loc = c.location()
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
	var total int64
	batch := make([][]types.Datum, 0, backend.CopyBatchRows)
	insert := func() error {
		if len(batch) == 0 {
			return nil
		}
		var n int64
		err := c.guard("CopySpec.Insert", func() (err error) { n, err = spec.Insert(ctx, batch); return err })
		if err != nil {
			return err
		}
		total += n
		if spec.Progress != nil {
			spec.Progress(0, n)
		}
		clear(batch)
		batch = batch[:0]
		codec.recycle()
		return nil
	}
	emit := func(row []types.Datum) error {
		batch = append(batch, row)
		if len(batch) >= backend.CopyBatchRows {
			return insert()
		}
		return nil
	}
	for {
		if err := ctx.Err(); err != nil {
			return "", context.Cause(ctx)
		}
		typ, body, err := c.receiveRaw()
		if err != nil {
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
				return "", err
			}
		case 'c':
			if err := codec.finish(emit); err != nil {
				return "", err
			}
			if err := insert(); err != nil {
				return "", err
			}
			return "COPY " + strconv.FormatInt(total, 10), nil
		case 'f':
			var m pgproto3.CopyFail
			m.Decode(body)
			return "", pgerror.Newf(pgerror.QueryCanceled, "COPY from stdin failed: %s", m.Message)
		case 'H', 'S':
			// PostgreSQL ignores Flush and Sync during COPY IN.
		default:
			return "", pgerror.Newf(pgerror.ProtocolViolation, "unexpected message type 0x%02X during COPY from stdin", typ)
		}
	}
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
