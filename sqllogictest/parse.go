package sqllogictest

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// ParseError reports a malformed .test file.
type ParseError struct {
	File string
	Line int
	Msg  string
}

// Error formats the error as file:line: message.
func (e *ParseError) Error() string {
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// maxLineBytes bounds one line of a .test file; the corpus's longest lines
// are a few kilobytes.
const maxLineBytes = 16 << 20

// hashLine matches an expected result given as a hash.
var hashLine = regexp.MustCompile(`^([0-9]+) values hashing to ([0-9a-f]{32})$`)

// ParseFile reads and parses the .test file at path.
func ParseFile(path string) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(f, path)
}

// Parse reads a whole .test file from r and returns its records in file
// order. name is used only in error messages. Comment lines and blank
// lines (including lines of white space only) between records are dropped;
// skipif/onlyif lines become the Conditions of the record that follows
// them. A malformed record is a *ParseError naming its line.
func Parse(r io.Reader, name string) ([]Record, error) {
	lines, err := readLines(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	p := parser{name: name, lines: lines}
	return p.parse()
}

func readLines(r io.Reader) ([]string, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLineBytes)
	var lines []string
	for sc.Scan() {
		lines = append(lines, strings.TrimSuffix(sc.Text(), "\r"))
	}
	return lines, sc.Err()
}

type parser struct {
	name  string
	lines []string
	pos   int // index of the next unread line
}

func isBlank(line string) bool { return strings.TrimSpace(line) == "" }

func (p *parser) errorf(line int, format string, args ...any) error {
	return &ParseError{File: p.name, Line: line, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) parse() ([]Record, error) {
	var (
		records []Record
		conds   []Condition
		start   int // line of the first pending condition, 0 if none
	)
	for p.pos < len(p.lines) {
		lineNo := p.pos + 1
		line := p.lines[p.pos]
		p.pos++
		if isBlank(line) || strings.HasPrefix(line, "#") {
			continue
		}
		tok := strings.Fields(line)
		rec := Record{Line: lineNo}
		switch tok[0] {
		case "skipif", "onlyif":
			if len(tok) < 2 {
				return nil, p.errorf(lineNo, "%s needs an engine name", tok[0])
			}
			if start == 0 {
				start = lineNo
			}
			conds = append(conds, Condition{Skip: tok[0] == "skipif", Engine: tok[1]})
			continue
		case "statement":
			if err := p.statement(&rec, tok, line); err != nil {
				return nil, err
			}
		case "query":
			if err := p.query(&rec, tok); err != nil {
				return nil, err
			}
		case "hash-threshold":
			if len(tok) != 2 {
				return nil, p.errorf(lineNo, "hash-threshold needs one number")
			}
			n, err := strconv.Atoi(tok[1])
			if err != nil || n < 0 {
				return nil, p.errorf(lineNo, "bad hash-threshold %q", tok[1])
			}
			rec.Kind, rec.Threshold = KindHashThreshold, n
		case "halt":
			rec.Kind = KindHalt
		default:
			return nil, p.errorf(lineNo, "unknown record type %q", tok[0])
		}
		if start != 0 {
			rec.Line, rec.Conditions = start, conds
			conds, start = nil, 0
		}
		records = append(records, rec)
	}
	if start != 0 {
		return nil, p.errorf(start, "skipif/onlyif without a record after it")
	}
	return records, nil
}

// body reads lines up to (not including) the next blank line or, when
// stopAtDashes is set, the next "----" line, which it consumes. It reports
// whether it stopped at "----".
func (p *parser) body(stopAtDashes bool) (lines []string, dashes bool) {
	for p.pos < len(p.lines) {
		line := p.lines[p.pos]
		if isBlank(line) {
			return lines, false
		}
		p.pos++
		if stopAtDashes && line == "----" {
			return lines, true
		}
		lines = append(lines, line)
	}
	return lines, false
}

func (p *parser) statement(rec *Record, tok []string, line string) error {
	rec.Kind = KindStatement
	if len(tok) < 2 {
		return p.errorf(rec.Line, "statement needs ok or error")
	}
	switch tok[1] {
	case "ok":
	case "error":
		rec.ExpectError = true
		_, after, _ := strings.Cut(line, "error")
		rec.ErrorText = strings.TrimSpace(after)
	default:
		return p.errorf(rec.Line, "statement %q: want ok or error", tok[1])
	}
	sql, _ := p.body(false)
	if len(sql) == 0 {
		return p.errorf(rec.Line, "statement without SQL")
	}
	rec.SQL = strings.Join(sql, "\n")
	return nil
}

func (p *parser) query(rec *Record, tok []string) error {
	rec.Kind = KindQuery
	if len(tok) < 2 {
		return p.errorf(rec.Line, "query needs a type string")
	}
	rec.Types = tok[1]
	for _, c := range rec.Types {
		if c != 'I' && c != 'R' && c != 'T' {
			return p.errorf(rec.Line, "query type %q: want only I, R and T", rec.Types)
		}
	}
	if len(tok) >= 3 {
		switch tok[2] {
		case "nosort":
			rec.Sort = NoSort
		case "rowsort":
			rec.Sort = RowSort
		case "valuesort":
			rec.Sort = ValueSort
		default:
			return p.errorf(rec.Line, "unknown sort mode %q", tok[2])
		}
	}
	if len(tok) >= 4 {
		rec.Label = tok[3]
	}
	if len(tok) > 4 {
		return p.errorf(rec.Line, "query: unexpected %q after the label", tok[4])
	}
	sql, dashes := p.body(true)
	if len(sql) == 0 {
		return p.errorf(rec.Line, "query without SQL")
	}
	rec.SQL = strings.Join(sql, "\n")
	if !dashes {
		return nil
	}
	want, _ := p.body(false)
	if len(want) == 1 {
		if m := hashLine.FindStringSubmatch(want[0]); m != nil {
			n, err := strconv.Atoi(m[1])
			if err != nil {
				return p.errorf(rec.Line, "bad value count in %q", want[0])
			}
			rec.IsHash, rec.HashCount, rec.ExpectedHash = true, n, m[2]
			return nil
		}
	}
	rec.Expected = want
	return nil
}
