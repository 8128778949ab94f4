package catalog

import (
	"strings"
	"testing"
)

func TestObjectName(t *testing.T) {
	long := "very_very_long_column_name_to_exceed_63_characters"
	for _, c := range []struct{ name1, name2, label, want string }{
		{"t", "a", "fkey", "t_a_fkey"},
		{"t", "", "pkey", "t_pkey"},
		{"fktable2", "a_" + long, "fkey", "fktable2_a_very_very_long_column_name_to_exceed_63_charact_fkey"},
		{"fktable2", "a_" + long, "fkey1", "fktable2_a_very_very_long_column_name_to_exceed_63_charac_fkey1"},
		{"fktable2", long, "fkey", "fktable2_very_very_long_column_name_to_exceed_63_character_fkey"},
		// The longer part is cut first, then both in turn.
		{strings.Repeat("t", 40), strings.Repeat("c", 40), "key", strings.Repeat("t", 29) + "_" + strings.Repeat("c", 29) + "_key"},
		// Never inside a UTF-8 character: é is two bytes.
		{strings.Repeat("é", 40), "", "pkey", strings.Repeat("é", 29) + "_pkey"},
	} {
		got := ObjectName(c.name1, c.name2, c.label)
		if got != c.want {
			t.Errorf("ObjectName(%q, %q, %q) = %q, want %q", c.name1, c.name2, c.label, got, c.want)
		}
		if len(got) > MaxNameLen {
			t.Errorf("ObjectName(%q, %q, %q) is %d bytes", c.name1, c.name2, c.label, len(got))
		}
	}
}

func TestChooseName(t *testing.T) {
	taken := map[string]bool{"t_a_fkey": true, "t_a_fkey1": true}
	if got := ChooseName("t", "a", "fkey", func(n string) bool { return taken[n] }); got != "t_a_fkey2" {
		t.Errorf("ChooseName = %q, want t_a_fkey2", got)
	}
	if got := ChooseName("t", "b", "fkey", func(n string) bool { return taken[n] }); got != "t_b_fkey" {
		t.Errorf("ChooseName = %q, want t_b_fkey", got)
	}
	if got := NameAddition([]string{"a", "b"}); got != "a_b" {
		t.Errorf("NameAddition = %q, want a_b", got)
	}
}
