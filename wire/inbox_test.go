package wire

import (
	"bytes"
	"fmt"
	"math/rand"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
)

// sameDecode checks that the inbox decodes typ/body as decodeFrontend
// (pgproto3's decoders) does: the same message, or an error from both.
func sameDecode(t *testing.T, in *inbox, typ byte, body []byte) {
	t.Helper()
	want, wantErr := decodeFrontend(typ, bytes.Clone(body))
	got, gotErr := in.decode(typ, body)
	if (wantErr == nil) != (gotErr == nil) {
		t.Fatalf("%c %q: inbox error %v, pgproto3 error %v", typ, body, gotErr, wantErr)
	}
	if wantErr != nil {
		if gotErr.Error() != wantErr.Error() {
			t.Fatalf("%c %q: inbox error %q, pgproto3 error %q", typ, body, gotErr, wantErr)
		}
		return
	}
	if g, w := describeMsg(got), describeMsg(want); g != w {
		t.Fatalf("%c %q:\ninbox    %s\npgproto3 %s", typ, body, g, w)
	}
}

// describeMsg prints a decoded message with its slices' nil-ness, which
// the server's format rules read.
func describeMsg(m pgproto3.FrontendMessage) string {
	if b, ok := m.(*pgproto3.Bind); ok {
		return fmt.Sprintf("Bind portal=%q stmt=%q pformats=%v(nil=%t) params=%q(nil=%t) rformats=%v(nil=%t)",
			b.DestinationPortal, b.PreparedStatement, b.ParameterFormatCodes, b.ParameterFormatCodes == nil,
			b.Parameters, b.Parameters == nil, b.ResultFormatCodes, b.ResultFormatCodes == nil)
	}
	return fmt.Sprintf("%T %+v", m, m)
}

// TestInboxMatchesPgproto3 decodes random well-formed and damaged
// Bind, Describe, Execute and Sync messages with both decoders, through
// one inbox so that its reuse between messages is exercised too.
func TestInboxMatchesPgproto3(t *testing.T) {
	seed := rand.Int63()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewSource(seed))
	names := []string{"", "P0_1", "P0_2", "a portal"}
	var in inbox
	for range 5000 {
		var msg pgproto3.FrontendMessage
		switch rng.Intn(4) {
		case 0:
			b := &pgproto3.Bind{DestinationPortal: names[rng.Intn(len(names))], PreparedStatement: names[rng.Intn(len(names))]}
			for range rng.Intn(3) {
				b.ParameterFormatCodes = append(b.ParameterFormatCodes, int16(rng.Intn(3)))
			}
			for range rng.Intn(4) {
				var p []byte
				if rng.Intn(4) > 0 {
					p = []byte(fmt.Sprint(rng.Intn(1000)))[:rng.Intn(3)]
				}
				b.Parameters = append(b.Parameters, p)
			}
			for range rng.Intn(3) {
				b.ResultFormatCodes = append(b.ResultFormatCodes, int16(rng.Intn(3)))
			}
			msg = b
		case 1:
			msg = &pgproto3.Describe{ObjectType: "SPX"[rng.Intn(3)], Name: names[rng.Intn(len(names))]}
		case 2:
			msg = &pgproto3.Execute{Portal: names[rng.Intn(len(names))], MaxRows: uint32(rng.Intn(3))}
		default:
			msg = &pgproto3.Sync{}
		}
		frame, err := msg.Encode(nil)
		if err != nil {
			t.Fatal(err)
		}
		typ, body := frame[0], frame[5:]
		switch rng.Intn(4) {
		case 0: // cut short
			body = body[:rng.Intn(len(body)+1)]
		case 1: // one byte changed
			if len(body) > 0 {
				body[rng.Intn(len(body))] = byte(rng.Intn(256))
			}
		}
		sameDecode(t, &in, typ, body)
	}
}

// FuzzInbox compares the inbox with pgproto3's decoders on arbitrary
// bodies.
func FuzzInbox(f *testing.F) {
	f.Add(byte('B'), []byte("\x00s\x00\x00\x01\x00\x01\x00\x01\x00\x00\x00\x011\x00\x00"))
	f.Add(byte('B'), []byte("\x00s\x00\x00\x00\x00\x02\xff\xff\xff\xff\x00\x00\x00\x00\x00\x01\x00\x01"))
	f.Add(byte('D'), []byte("Ps\x00"))
	f.Add(byte('E'), []byte("\x00\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, typ byte, body []byte) {
		var in inbox
		sameDecode(t, &in, typ, body)
		sameDecode(t, &in, typ, body) // again, reusing what the first left
	})
}
