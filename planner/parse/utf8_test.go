package parse

import (
	"errors"
	"testing"

	"github.com/kvsql/kvsql/pgerror"
)

// TestEscapeStringUTF8 checks that E” escapes cannot spell text that is
// not UTF-8 (or a NUL): PostgreSQL answers 22021.
func TestEscapeStringUTF8(t *testing.T) {
	for in, bytes := range map[string]string{
		`SELECT E'a\xff'`:     "0xff",
		`SELECT E'\0'`:        "0x00",
		`SELECT E'\303'`:      "0xc3",
		`SELECT E'\xe2\x28x'`: "0xe2 0x28 0x78",
	} {
		_, err := Parse(in)
		var pe *pgerror.Error
		want := `invalid byte sequence for encoding "UTF8": ` + bytes
		if !errors.As(err, &pe) || pe.Code != pgerror.CharacterNotInRepertoire || pe.Message != want {
			t.Errorf("%s: got %v, want 22021 %q", in, err, want)
		}
	}
	for _, ok := range []string{`SELECT E'caf\303\251'`, `SELECT E'\xc3\xa9'`, `SELECT E'\u00e9'`} {
		if _, err := Parse(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}
