package eval

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/kvsql/kvsql/pgerror"
)

// likeByRegexp is the reference: LIKE translated to an anchored regular
// expression (backslash escape, no dangling escape).
func likeByRegexp(s, pattern string, fold bool) bool {
	var b strings.Builder
	b.WriteString(`(?s)^`)
	if fold {
		b.WriteString(`(?i)`)
	}
	rs := []rune(pattern)
	for i := 0; i < len(rs); i++ {
		switch r := rs[i]; r {
		case '\\':
			i++
			b.WriteString(regexp.QuoteMeta(string(rs[i])))
		case '%':
			b.WriteString(`.*`)
		case '_':
			b.WriteString(`.`)
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString(`$`)
	return regexp.MustCompile(b.String()).MatchString(s)
}

func checkLikeAgainstRegexp(t *testing.T, s, pattern string, fold bool) {
	t.Helper()
	got, err := Like(s, pattern, `\`, fold)
	if strings.HasSuffix(strings.ReplaceAll(pattern, `\\`, ""), `\`) {
		if err != nil && !pgerror.HasCode(err, pgerror.InvalidEscapeSequence) {
			t.Fatalf("Like(%q, %q) error %v, want 22025 or none", s, pattern, err)
		}
		return // dangling escape: no reference
	}
	if err != nil {
		t.Fatalf("Like(%q, %q): %v", s, pattern, err)
	}
	if want := likeByRegexp(s, pattern, fold); got != want {
		t.Fatalf("Like(%q, %q, fold=%v) = %v, regexp says %v", s, pattern, fold, got, want)
	}
}

// TestLikeRandom compares the LIKE matcher with a regexp translation on
// random short strings and patterns over a small alphabet, where
// backtracking cases are dense.
func TestLikeRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(testSeed(t), 1))
	const textAlpha, patAlpha = "abAé", `ab%_\é`
	pick := func(alpha string, n int) string {
		rs := []rune(alpha)
		var b strings.Builder
		for range n {
			b.WriteRune(rs[r.IntN(len(rs))])
		}
		return b.String()
	}
	for range 20000 {
		checkLikeAgainstRegexp(t, pick(textAlpha, r.IntN(8)), pick(patAlpha, r.IntN(6)), r.IntN(2) == 0)
	}
}

func TestLikeEscape(t *testing.T) {
	if ok, err := Like("a_c", "a!_c", "!", false); !ok || err != nil {
		t.Errorf("Like with ESCAPE '!' = %v, %v", ok, err)
	}
	if ok, err := Like(`a\c`, `a\c`, "", false); !ok || err != nil {
		t.Errorf("Like with ESCAPE '' = %v, %v", ok, err)
	}
	if _, err := Like("a", "a", "xy", false); !pgerror.HasCode(err, "22019") {
		t.Errorf("two-character escape: error %v, want 22019", err)
	}
}

func FuzzLike(f *testing.F) {
	f.Add("abc", "a%c", false)
	f.Add("mississippi", "%iss%ppi", true)
	f.Add("héllo", "h_llo", false)
	f.Fuzz(func(t *testing.T, s, pattern string, fold bool) {
		if len(s) > 64 || len(pattern) > 16 || !validUTF8(s) || !validUTF8(pattern) {
			return
		}
		checkLikeAgainstRegexp(t, s, pattern, fold)
	})
}

func validUTF8(s string) bool { return strings.ToValidUTF8(s, "") == s }
