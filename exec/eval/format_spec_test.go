package eval

import "testing"

// TestParseFormatSpec checks format()'s specifier reader on every part
// a specifier may have, and where it stops.
func TestParseFormatSpec(t *testing.T) {
	for _, c := range []struct {
		f    string
		want formatSpec
	}{
		{"s", formatSpec{widthArg: -1, end: 0}},
		{"10s", formatSpec{widthArg: -1, width: 10, end: 2}},
		{"-10s", formatSpec{widthArg: -1, width: 10, left: true, end: 3}},
		{"2$s", formatSpec{arg: 2, widthArg: -1, end: 2}},
		{"1$--7I", formatSpec{arg: 1, widthArg: -1, width: 7, left: true, end: 5}},
		{"*s", formatSpec{widthArg: 0, end: 1}},
		{"3$*2$L", formatSpec{arg: 3, widthArg: 2, end: 5}},
		{"-*1$s", formatSpec{widthArg: 1, left: true, end: 4}},
	} {
		got, err := parseFormatSpec(c.f, 0)
		if err != nil || got != c.want {
			t.Errorf("%q: got %+v, %v; want %+v", c.f, got, err, c.want)
		}
	}
	for _, f := range []string{"1", "0$s", "*0$s", "*1s", "99999999999s", "1$", "-", "*"} {
		if _, err := parseFormatSpec(f, 0); err == nil {
			t.Errorf("%q: no error", f)
		}
	}
}
