package wire

import (
	"bytes"
	"testing"

	"github.com/kvsql/kvsql/types"
)

// TestInetBinary checks inet_send's layout (family 2 or 3, bits, is-cidr,
// address length, address) and the round trip through inet_recv.
func TestInetBinary(t *testing.T) {
	for _, c := range []struct {
		text string
		fam  types.Family
		want []byte
	}{
		{"10.1.2.3/8", types.Inet, []byte{2, 8, 0, 4, 10, 1, 2, 3}},
		{"10.0.0.0/8", types.Cidr, []byte{2, 8, 1, 4, 10, 0, 0, 0}},
		{"::1", types.Inet, []byte{3, 128, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}},
	} {
		v, bad := types.ParseInet(c.text, c.fam == types.Cidr)
		if bad != 0 {
			t.Fatalf("%q: %d", c.text, bad)
		}
		d := types.NewInet(v)
		got, err := appendBinary(nil, types.T{Family: c.fam}, d)
		if err != nil || !bytes.Equal(got, c.want) {
			t.Errorf("%q: % x (%v), want % x", c.text, got, err, c.want)
		}
		back, err := decodeInetBinary(got, c.fam)
		if err != nil || back != d {
			t.Errorf("%q: decoded %v (%v)", c.text, back, err)
		}
	}
	for _, raw := range [][]byte{{}, {2, 8, 0, 4, 10}, {4, 8, 0, 4, 10, 0, 0, 0}, {2, 33, 0, 4, 10, 0, 0, 0}, {3, 8, 0, 4, 10, 0, 0, 0}} {
		if _, err := decodeInetBinary(raw, types.Inet); err == nil {
			t.Errorf("% x: accepted", raw)
		}
	}
	if _, err := decodeInetBinary([]byte{2, 8, 1, 4, 10, 1, 0, 0}, types.Cidr); err == nil {
		t.Error("cidr with host bits accepted")
	}
}

// FuzzInetBinary holds decodeInetBinary to never panicking, and a value
// it accepts to re-encode to the same bytes (but the is-cidr flag).
func FuzzInetBinary(f *testing.F) {
	f.Add([]byte{2, 8, 0, 4, 10, 1, 2, 3})
	f.Add([]byte{3, 128, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1})
	f.Fuzz(func(t *testing.T, raw []byte) {
		d, err := decodeInetBinary(raw, types.Inet)
		if err != nil {
			return
		}
		again, err := appendBinary(nil, types.T{Family: types.Inet}, d)
		if err != nil || !bytes.Equal(again[:2], raw[:2]) || !bytes.Equal(again[3:], raw[3:]) {
			t.Fatalf("% x re-encoded as % x (%v)", raw, again, err)
		}
	})
}
