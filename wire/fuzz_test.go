package wire

import (
	"testing"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
	"github.com/kvsql/kvsql/wire/backend"
)

func codeOfErr(err error) pgerror.Code {
	if err == nil {
		return ""
	}
	return pgerror.CodeOf(err)
}

// FuzzStartup feeds arbitrary startup packet bodies to the decoder.
func FuzzStartup(f *testing.F) {
	f.Add([]byte{0, 3, 0, 0, 'u', 's', 'e', 'r', 0, 'a', 0, 0})
	f.Add([]byte{4, 210, 22, 47})
	f.Add([]byte{4, 210, 22, 46, 0, 0, 0, 1, 0, 0, 0, 2})
	f.Fuzz(func(t *testing.T, body []byte) {
		decodeStartup(body)
	})
}

// FuzzFrontend feeds arbitrary typed messages to the decoder and COPY data
// to the three COPY codecs.
func FuzzFrontend(f *testing.F) {
	f.Add(byte('B'), []byte("\x00s\x00\x00\x01\x00\x01\x00\x01\x00\x00\x00\x011\x00\x00"))
	f.Add(byte('d'), []byte("1\ta\\tb\t1.5\n\\.\n"))
	f.Add(byte('d'), []byte("PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x01x"))
	f.Fuzz(func(t *testing.T, typ byte, body []byte) {
		decodeFrontend(typ, body)
		for _, format := range []string{"text", "csv", "binary"} {
			k, _ := newCopyCodec(&backend.CopySpec{Format: format, Columns: colsC})
			emit := func([]types.Datum, []byte) error { return nil }
			if k.feed(body, 1<<16, emit) == nil {
				k.finish(emit)
			}
		}
		decodeNumericBinary(body)
	})
}
