package catalog

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxNameLen is the longest name in bytes PostgreSQL keeps
// (NAMEDATALEN-1): a longer identifier is truncated, and the names it
// makes up for constraints and indexes are cut to fit.
const MaxNameLen = 63

// ObjectName is the name PostgreSQL makes up for an object from its
// parts (makeObjectName): name1, name2 (may be empty) and label joined
// by underscores, the longer of name1 and name2 cut a byte at a time
// until the whole fits in MaxNameLen bytes, and never inside a UTF-8
// character. ObjectName("fktable2", "a_very_..._characters", "fkey") is
// fktable2_a_very_very_long_column_name_to_exceed_63_charac_fkey.
func ObjectName(name1, name2, label string) string {
	overhead := 0
	if name2 != "" {
		overhead++
	}
	if label != "" {
		overhead += len(label) + 1
	}
	n1, n2 := len(name1), len(name2)
	for avail := MaxNameLen - overhead; n1+n2 > avail; {
		if n1 > n2 {
			n1--
		} else {
			n2--
		}
	}
	var b strings.Builder
	b.WriteString(clipUTF8(name1, n1))
	if name2 != "" {
		b.WriteByte('_')
		b.WriteString(clipUTF8(name2, n2))
	}
	if label != "" {
		b.WriteByte('_')
		b.WriteString(label)
	}
	return b.String()
}

// ChooseName is ObjectName(name1, name2, label), or while taken reports
// that name in use, the same with label1, label2, ... (PostgreSQL's
// ChooseRelationName and ChooseConstraintName): the second unnamed
// foreign key over the same columns is t_a_fkey1.
func ChooseName(name1, name2, label string, taken func(string) bool) string {
	name := ObjectName(name1, name2, label)
	for pass := 1; taken != nil && taken(name); pass++ {
		name = ObjectName(name1, name2, label+strconv.Itoa(pass))
	}
	return name
}

// NameAddition joins column names with underscores for ObjectName's
// name2, stopping once it is MaxNameLen bytes or longer (PostgreSQL's
// ChooseForeignKeyConstraintNameAddition and ChooseIndexNameAddition).
func NameAddition(cols []string) string {
	var b strings.Builder
	for _, c := range cols {
		if b.Len() > 0 {
			b.WriteByte('_')
		}
		b.WriteString(clipUTF8(c, MaxNameLen))
		if b.Len() >= MaxNameLen {
			break
		}
	}
	return b.String()
}

// clipUTF8 is s cut to at most n bytes, at a character boundary.
func clipUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
