package wire

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
)

// TestFormatRulesMatchResolved checks checkFormats and formatOf, which
// Bind uses for parameters without making a slice, against the rules
// written out plainly (PostgreSQL's exec_bind_message): no codes is all
// text, one code applies to every item, otherwise one code per item; a
// code other than 0 or 1 fails once it applies to an item. Every list of
// up to three codes drawn from -1, 0, 1 and 2 is tried with 0 to 3 items.
func TestFormatRulesMatchResolved(t *testing.T) {
	want := func(codes []int16, n int) ([]int16, error) {
		if len(codes) > 1 && len(codes) != n {
			return nil, fmt.Errorf("count")
		}
		out := make([]int16, n)
		for i := range out {
			switch len(codes) {
			case 0:
				out[i] = 0
			case 1:
				out[i] = codes[0]
			default:
				out[i] = codes[i]
			}
			if out[i] != 0 && out[i] != 1 {
				return nil, fmt.Errorf("code")
			}
		}
		return out, nil
	}
	values := []int16{-1, 0, 1, 2}
	var lists [][]int16
	lists = append(lists, nil)
	for _, a := range values {
		lists = append(lists, []int16{a})
		for _, b := range values {
			lists = append(lists, []int16{a, b})
			for _, c := range values {
				lists = append(lists, []int16{a, b, c})
			}
		}
	}
	ps := &prepared{}
	for _, codes := range lists {
		for n := 0; n <= 3; n++ {
			w, werr := want(codes, n)
			err := checkFormats(codes, n, "parameter")
			if (err == nil) != (werr == nil) {
				t.Fatalf("codes %v, %d items: error %v, want %v", codes, n, err, werr)
			}
			got, rerr := ps.resultFormats(codes, n)
			if (rerr == nil) != (werr == nil) {
				t.Fatalf("codes %v, %d items: resultFormats error %v, want %v", codes, n, rerr, werr)
			}
			if err != nil {
				continue
			}
			for i := 0; i < n; i++ {
				if f := formatOf(codes, i); f != w[i] || got[i] != w[i] {
					t.Fatalf("codes %v, %d items: item %d format %d / %d, want %d", codes, n, i, f, got[i], w[i])
				}
			}
			if len(got) != n {
				t.Fatalf("codes %v, %d items: %d result formats", codes, n, len(got))
			}
		}
	}
}

// TestSendCommandCompleteMatchesPgproto3 checks that the hand-encoded
// CommandComplete and ReadyForQuery are byte for byte pgproto3's.
func TestSendCommandCompleteMatchesPgproto3(t *testing.T) {
	for _, tag := range []string{"", "SELECT 1", "SELECT 1234567890", "INSERT 0 5", "UPDATE 0", "CREATE TABLE"} {
		want, err := (&pgproto3.CommandComplete{CommandTag: []byte(tag)}).Encode([]byte("x"))
		if err != nil {
			t.Fatal(err)
		}
		c := &conn{wbuf: []byte("x")}
		c.sendCommandComplete(tag)
		if !bytes.Equal(c.wbuf, want) {
			t.Errorf("%q: %x, want %x", tag, c.wbuf, want)
		}
	}
	for _, status := range []byte{'I', 'T', 'E'} {
		want, err := (&pgproto3.ReadyForQuery{TxStatus: status}).Encode([]byte("x"))
		if err != nil {
			t.Fatal(err)
		}
		if got := appendReadyForQuery([]byte("x"), status); !bytes.Equal(got, want) {
			t.Errorf("%c: %x, want %x", status, got, want)
		}
	}
}
