package types

import (
	"testing"
	"time"
)

// FuzzDateTimeText: date, time and timestamp input never panics, and a
// timestamp that parses prints as text that parses back to it.
func FuzzDateTimeText(f *testing.F) {
	for _, s := range []string{"2020-03-05 14:07:08.5+02", "March 5, 2020 2:07 pm", "0044-03-15 BC", "epoch", "-infinity",
		"20200305T140708", "3/5/20", "2020-03-05 14:07 Europe/Paris", "allballs", "24:00", "12:00 am z"} {
		f.Add(s)
	}
	paris, _ := LoadZone("Europe/Paris")
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = ParseDate(s)
		_, _ = ParseTime(s)
		_, _ = ParseIntervalQualified(s, 3, 6, 2)
		us, err := ParseTimestampIn(s, paris, true)
		if err != nil || us == TimestampInfinity || us == TimestampNegInfinity {
			return
		}
		text := string(AppendTimestamp(nil, us, time.UTC))
		back, err := ParseTimestampIn(text, paris, true)
		if err != nil || back != us {
			t.Fatalf("%q -> %d prints %q -> %d, %v", s, us, text, back, err)
		}
	})
}
