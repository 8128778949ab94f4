package wire

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/kvsql/kvsql/types"
	"github.com/kvsql/kvsql/wire/backend"
)

// binaryCopyStream returns a binary COPY stream of n rows shaped like the
// bulk-load bench's (int4 id, int4 k, float8 v, text pad), cut into
// CopyData-sized messages of about 64 KiB as pgx sends them.
func binaryCopyStream(n int) [][]byte {
	var msgs [][]byte
	b := append(append([]byte(nil), binarySignature...), 0, 0, 0, 0, 0, 0, 0, 0)
	for i := range n {
		b = binary.BigEndian.AppendUint16(b, 4)
		b = binary.BigEndian.AppendUint32(b, 4)
		b = binary.BigEndian.AppendUint32(b, uint32(i))
		b = binary.BigEndian.AppendUint32(b, 4)
		b = binary.BigEndian.AppendUint32(b, uint32(i%1000))
		b = binary.BigEndian.AppendUint32(b, 8)
		b = binary.BigEndian.AppendUint64(b, uint64(i)*3)
		pad := fmt.Sprintf("some padding text for row %d", i)
		b = binary.BigEndian.AppendUint32(b, uint32(len(pad)))
		b = append(b, pad...)
		if len(b) >= 64<<10 {
			msgs, b = append(msgs, b), nil
		}
	}
	b = append(b, 0xff, 0xff)
	return append(msgs, b)
}

// BenchmarkCopyDecodeBinary decodes 100,000 binary COPY rows into
// batches of backend.CopyBatchRows as copyIn does (the batch handed on
// and recycled).
func BenchmarkCopyDecodeBinary(b *testing.B) {
	const n = 100_000
	msgs := binaryCopyStream(n)
	cols := []backend.Column{{Name: "id", Type: types.T{Family: types.Int4}}, {Name: "k", Type: types.T{Family: types.Int4}},
		{Name: "v", Type: types.T{Family: types.Float8}}, {Name: "pad", Type: types.T{Family: types.Text}}}
	b.ReportAllocs()
	for b.Loop() {
		k, err := newCopyCodec(&backend.CopySpec{Format: "binary", Columns: cols})
		if err != nil {
			b.Fatal(err)
		}
		rows := 0
		batch := make([][]types.Datum, 0, backend.CopyBatchRows)
		flush := func() {
			rows += len(batch)
			clear(batch)
			batch = batch[:0]
			k.recycle()
		}
		emit := func(r []types.Datum, _ []byte) error {
			batch = append(batch, r)
			if len(batch) >= backend.CopyBatchRows {
				flush()
			}
			return nil
		}
		for _, m := range msgs {
			if err := k.feed(m, 1<<30, emit); err != nil {
				b.Fatal(err)
			}
		}
		if err := k.finish(emit); err != nil {
			b.Fatal(err)
		}
		flush()
		if rows != n {
			b.Fatalf("%d rows, want %d", rows, n)
		}
	}
}
