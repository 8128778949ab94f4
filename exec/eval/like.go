package eval

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// SQLSTATEs package pgerror does not name yet.
const (
	codeInvalidEscapeCharacter pgerror.Code = "22019"
	codeInvalidRegex           pgerror.Code = "2201B"
)

// maxCachedRegexps bounds an Env's regular-expression cache; when it is
// full the cache starts over.
const maxCachedRegexps = 256

// patternCache holds an Env's compiled patterns. LIKE matchers are keyed
// by node, so a LIKE against a constant pattern compiles once per
// statement however many rows it sees; a pattern that changes from row to
// row (a column) recompiles only when it differs from the previous row's.
// It also holds the sorted items of long constant IN lists (in.go).
type patternCache struct {
	like map[*planner.Like]*likeEntry
	re   map[regexKey]*regexp.Regexp
	in   map[*planner.In]*inSet
}

type regexKey struct {
	pattern string
	fold    bool
}

type likeEntry struct {
	pattern, escape string
	m               likeMatcher
}

// InitCaches makes env's caches (compiled patterns, sorted IN lists) now,
// so that copies of env made afterwards share them.
func (env *Env) InitCaches() { env.patterns() }

// Rebind sets env to fresh for a new execution of the same plan, keeping
// the caches env made (InitCaches) but emptied: a LIKE or IN list whose
// pattern is a parameter must not see the previous execution's entries,
// and reusing the maps spares their allocation.
func (env *Env) Rebind(fresh Env) {
	c := env.cache
	*env = fresh
	if c != nil {
		clear(c.like)
		clear(c.re)
		clear(c.in)
	}
	env.cache = c
	env.InitCaches()
}

func (env *Env) patterns() *patternCache {
	if env.cache == nil {
		env.cache = &patternCache{}
	}
	return env.cache
}

// evalLike evaluates x [NOT] [I]LIKE pattern [ESCAPE e].
func evalLike(env *Env, e *planner.Like, row []types.Datum) (types.Datum, error) {
	x, err := Eval(env, e.X, row)
	if err != nil || x.IsNull() {
		return types.Null, err
	}
	p, err := Eval(env, e.Pattern, row)
	if err != nil || p.IsNull() {
		return types.Null, err
	}
	escape := `\`
	if e.Escape != nil {
		esc, err := Eval(env, e.Escape, row)
		if err != nil || esc.IsNull() {
			return types.Null, err
		}
		escape = esc.S
	}
	c := env.patterns()
	ent := c.like[e]
	if ent == nil || ent.pattern != p.S || ent.escape != escape {
		m, err := compileLike(p.S, escape, e.CaseInsensitive)
		if err != nil {
			return types.Null, err
		}
		if c.like == nil {
			c.like = make(map[*planner.Like]*likeEntry)
		}
		ent = &likeEntry{pattern: p.S, escape: escape, m: m}
		c.like[e] = ent
	}
	ok, err := ent.m.match(x.S)
	return types.NewBool(ok != e.Not), err
}

// Like reports whether s matches the LIKE pattern with the given escape
// string ("" for none, at most one character); fold makes it ILIKE. It
// compiles the pattern on every call: evaluation of planner.Like nodes
// caches instead.
func Like(s, pattern, escape string, fold bool) (bool, error) {
	m, err := compileLike(pattern, escape, fold)
	if err != nil {
		return false, err
	}
	return m.match(s)
}

type likeTokKind uint8

const (
	tokLit  likeTokKind = iota // a literal run of characters
	tokOne                     // _ : any one character
	tokMany                    // % : any run of characters
)

type likeTok struct {
	kind likeTokKind
	lit  string
}

// likeMatcher is a compiled LIKE pattern: literals, _ and % (adjacent %
// merged). For ILIKE the literals are lower-cased and the input is folded
// character by character while matching, so matching never allocates.
type likeMatcher struct {
	toks []likeTok
	fold bool
	// danglingEscape: the pattern ends with the escape character. Like
	// PostgreSQL, that is an error only when matching reaches it with
	// input left over ('abc' LIKE 'abc\' is false, 'abcd' LIKE 'abc\'
	// fails).
	danglingEscape bool
}

func compileLike(pattern, escape string, fold bool) (likeMatcher, error) {
	var esc rune = -1
	switch utf8.RuneCountInString(escape) {
	case 0:
	case 1:
		esc, _ = utf8.DecodeRuneInString(escape)
	default:
		return likeMatcher{}, pgerror.New(codeInvalidEscapeCharacter, "invalid escape string")
	}
	m := likeMatcher{fold: fold}
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			s := lit.String()
			if fold {
				s = strings.ToLower(s)
			}
			m.toks = append(m.toks, likeTok{kind: tokLit, lit: s})
			lit.Reset()
		}
	}
	for i := 0; i < len(pattern); {
		r, n := utf8.DecodeRuneInString(pattern[i:])
		i += n
		switch {
		case r == esc:
			if i >= len(pattern) {
				m.danglingEscape = true
				continue
			}
			r, n = utf8.DecodeRuneInString(pattern[i:])
			i += n
			lit.WriteRune(r)
		case r == '%':
			flush()
			if len(m.toks) == 0 || m.toks[len(m.toks)-1].kind != tokMany {
				m.toks = append(m.toks, likeTok{kind: tokMany})
			}
		case r == '_':
			flush()
			m.toks = append(m.toks, likeTok{kind: tokOne})
		default:
			lit.WriteRune(r)
		}
	}
	flush()
	return m, nil
}

// match runs the classic wildcard algorithm: advance greedily and, on a
// mismatch, backtrack to the most recent % and let it swallow one more
// character. Each backtrack moves that position forward, so the loop ends
// after at most len(s) * len(toks) steps.
func (m *likeMatcher) match(s string) (bool, error) {
	toks := m.toks
	ti, si := 0, 0
	starTi, starSi := -1, 0
	for {
		if ti < len(toks) {
			t := &toks[ti]
			switch t.kind {
			case tokMany:
				starTi, starSi = ti, si
				ti++
				continue
			case tokOne:
				if si < len(s) {
					_, n := utf8.DecodeRuneInString(s[si:])
					si += n
					ti++
					continue
				}
			case tokLit:
				if n, ok := m.hasPrefix(s[si:], t.lit); ok {
					si += n
					ti++
					continue
				}
			}
		} else if m.danglingEscape {
			if si == len(s) {
				return false, nil
			}
			return false, pgerror.New(pgerror.InvalidEscapeSequence, "LIKE pattern must not end with escape character")
		} else if si == len(s) {
			return true, nil
		}
		if starTi < 0 || starSi >= len(s) {
			return false, nil
		}
		_, n := utf8.DecodeRuneInString(s[starSi:])
		starSi += n
		si, ti = starSi, starTi+1
	}
}

// hasPrefix reports whether s starts with lit (folding s's case for ILIKE)
// and how many bytes of s matched.
func (m *likeMatcher) hasPrefix(s, lit string) (int, bool) {
	if !m.fold {
		return len(lit), strings.HasPrefix(s, lit)
	}
	si := 0
	for _, lr := range lit {
		if si >= len(s) {
			return 0, false
		}
		r, n := utf8.DecodeRuneInString(s[si:])
		if unicode.ToLower(r) != lr {
			return 0, false
		}
		si += n
	}
	return si, true
}

// evalRegexOp applies ~ (match), ~* (case-insensitive), !~ and !~* with
// Go's RE2 syntax, which agrees with PostgreSQL's for common patterns.
func evalRegexOp(env *Env, op string, l, r types.Datum) (types.Datum, error) {
	if l.Kind != types.KindText || r.Kind != types.KindText {
		return types.Null, pgerror.Newf(pgerror.UndefinedFunction, "operator does not exist: %s %s %s", l.Kind, op, r.Kind)
	}
	fold := op == "~*" || op == "!~*"
	re, err := env.regexp(r.S, fold)
	if err != nil {
		return types.Null, err
	}
	return types.NewBool(re.MatchString(l.S) != (op[0] == '!')), nil
}

// regexp returns the compiled pattern from the Env's cache.
func (env *Env) regexp(pattern string, fold bool) (*regexp.Regexp, error) {
	c := env.patterns()
	k := regexKey{pattern, fold}
	if re, ok := c.re[k]; ok {
		return re, nil
	}
	src := pattern
	if fold {
		src = "(?i)" + src
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, pgerror.Newf(codeInvalidRegex, "invalid regular expression: %v", err)
	}
	if c.re == nil || len(c.re) >= maxCachedRegexps {
		c.re = make(map[regexKey]*regexp.Regexp)
	}
	c.re[k] = re
	return re, nil
}
