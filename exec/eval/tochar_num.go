package eval

import (
	"strings"
	"unicode/utf8"

	"github.com/kvsql/kvsql/pgerror"
)

// to_char for numbers, as PostgreSQL 15 does it (formatting.c). The work
// has three steps:
//
//  1. parseNumTemplate reads the template into nodes (patterns and
//     literal text) and a numDesc: how many digit positions stand before
//     and after the decimal point, and which sign, fill and special
//     patterns are present.
//  2. The value is turned into a digit string for that description
//     (tochar_numvalue.go): the absolute value rounded to the template's
//     fraction digits, a '#' mask when the integer part does not fit, a
//     Roman numeral, or a whole scientific-notation result.
//  3. numPrinter walks the nodes and lays the digit string out, placing
//     the sign, blanks, zeros, separators and literal text.
//
// PostgreSQL's behaviour is reproduced quirks and all: a digit position
// past the end of a shortened digit string ends the output (formatting.c
// writes a NUL there), "SG" in a Roman-numeral template ends it too, and
// patterns such as B, C and SP are accepted and print nothing.

// numKey is one number template pattern (formatting.c's NUM_poz).
type numKey uint8

const (
	numLiteral numKey = iota // text copied to the output
	numComma                 // ,
	numPoint                 // .
	numZero                  // 0
	numNine                  // 9
	numB                     // B: accepted, prints nothing
	numC                     // C: accepted, prints nothing
	numD                     // D: the locale's decimal point
	numEEEE                  // EEEE: scientific notation
	numFM                    // FM: fill mode
	numG                     // G: the locale's group separator
	numL                     // L: the locale's currency symbol
	numMI                    // MI: minus sign where written
	numPL                    // PL: plus sign where written
	numPR                    // PR: negative value in angle brackets
	numRN                    // RN: upper-case Roman numeral
	numRNLower               // rn: lower-case Roman numeral
	numSG                    // SG: plus or minus sign where written
	numSP                    // SP: accepted, prints nothing
	numS                     // S: sign anchored to the number
	numTH                    // TH: upper-case ordinal suffix
	numTHLower               // th: lower-case ordinal suffix
	numV                     // V: shift digits left (multiply by 10^n)
)

// numKeywords are the patterns in formatting.c's search order: at a
// given position the first entry that the template starts with wins, so
// "SG" is tried before "S". Upper and lower case spellings are both
// patterns, except that mixed case ("Fm") is not.
var numKeywords = []struct {
	text string
	key  numKey
}{
	{",", numComma}, {".", numPoint}, {"0", numZero}, {"9", numNine},
	{"B", numB}, {"C", numC}, {"D", numD}, {"EEEE", numEEEE}, {"FM", numFM},
	{"G", numG}, {"L", numL}, {"MI", numMI}, {"PL", numPL}, {"PR", numPR},
	{"RN", numRN}, {"SG", numSG}, {"SP", numSP}, {"S", numS}, {"TH", numTH},
	{"V", numV},
	{"b", numB}, {"c", numC}, {"d", numD}, {"eeee", numEEEE}, {"fm", numFM},
	{"g", numG}, {"l", numL}, {"mi", numMI}, {"pl", numPL}, {"pr", numPR},
	{"rn", numRNLower}, {"sg", numSG}, {"sp", numSP}, {"s", numS},
	{"th", numTHLower}, {"v", numV},
}

// numNode is one element of a parsed template: a pattern, or literal
// text (one character) when key is numLiteral.
type numNode struct {
	key numKey
	lit string
}

// numFlag records which kinds of pattern a template uses.
type numFlag uint16

const (
	numFlagDecimal numFlag = 1 << iota // a decimal point (. or D)
	numFlagZero                        // a 0 before the decimal point
	numFlagBlank                       // B before any digit
	numFlagFill                        // FM
	numFlagLSign                       // S
	numFlagBracket                     // PR
	numFlagMinus                       // MI or SG
	numFlagPlus                        // PL or SG
	numFlagRoman                       // RN or rn
	numFlagMulti                       // V
	numFlagEEEE                        // EEEE
)

// Where an S pattern puts the sign (formatting.c's NUM_LSIGN_*).
const (
	lsignNone = 0
	lsignPre  = -1 // before the first digit
	lsignPost = 1  // after the last digit
)

// numDesc describes a number template (formatting.c's NUMDesc).
type numDesc struct {
	pre, post   int // digit positions before and after the decimal point
	lsign       int // lsignNone, lsignPre or lsignPost
	flags       numFlag
	preLsignNum int // digit positions before S, when S precedes the point
	multi       int // 9s after V: the power of ten to multiply by
	zeroStart   int // 1-based position of the first leading 0
	zeroEnd     int // position of the last 0
}

func (d *numDesc) has(f numFlag) bool { return d.flags&f != 0 }

// numSyntaxError is a template mistake (42601), as PostgreSQL words it.
func numSyntaxError(msg string) error {
	return pgerror.New(pgerror.SyntaxError, msg)
}

// parseNumTemplate reads a number template into its nodes and
// description, refusing pattern combinations as PostgreSQL does, in the
// order it meets them.
func parseNumTemplate(format string) ([]numNode, numDesc, error) {
	var nodes []numNode
	var d numDesc
	for i := 0; i < len(format); {
		if key, n := matchNumKeyword(format[i:]); n > 0 {
			if err := d.add(key); err != nil {
				return nil, d, err
			}
			nodes = append(nodes, numNode{key: key})
			i += n
			continue
		}
		if format[i] == '"' {
			// Quoted text: every character is literal, a backslash
			// quotes the one after it, and a missing closing quote
			// ends the text at the template's end.
			i++
			for i < len(format) && format[i] != '"' {
				if format[i] == '\\' && i+1 < len(format) {
					i++
				}
				n := templateCharLen(format[i:])
				nodes = append(nodes, numNode{lit: format[i : i+n]})
				i += n
			}
			i++
			continue
		}
		// Outside quotes a backslash only escapes a double quote.
		if format[i] == '\\' && i+1 < len(format) && format[i+1] == '"' {
			i++
		}
		n := templateCharLen(format[i:])
		nodes = append(nodes, numNode{lit: format[i : i+n]})
		i += n
	}
	return nodes, d, nil
}

// matchNumKeyword returns the pattern s starts with and its length, or
// a zero length when s starts with literal text.
func matchNumKeyword(s string) (numKey, int) {
	if c := s[0]; c <= ' ' || c >= '~' {
		return numLiteral, 0
	}
	for _, k := range numKeywords {
		if strings.HasPrefix(s, k.text) {
			return k.key, len(k.text)
		}
	}
	return numLiteral, 0
}

// templateCharLen is the length of the character s starts with: a whole UTF-8
// sequence, or one byte of anything else.
func templateCharLen(s string) int {
	if _, n := utf8.DecodeRuneInString(s); n > 1 {
		return n
	}
	return 1
}

// add records pattern key in the description (formatting.c's
// NUMDesc_prepare), or says why the template is invalid.
func (d *numDesc) add(key numKey) error {
	if d.has(numFlagEEEE) && key != numEEEE {
		return numSyntaxError(`"EEEE" must be the last pattern used`)
	}
	switch key {
	case numNine:
		if d.has(numFlagBracket) {
			return numSyntaxError(`"9" must be ahead of "PR"`)
		}
		switch {
		case d.has(numFlagMulti):
			d.multi++
		case d.has(numFlagDecimal):
			d.post++
		default:
			d.pre++
		}
	case numZero:
		if d.has(numFlagBracket) {
			return numSyntaxError(`"0" must be ahead of "PR"`)
		}
		if !d.has(numFlagZero) && !d.has(numFlagDecimal) {
			d.flags |= numFlagZero
			d.zeroStart = d.pre + 1
		}
		if d.has(numFlagDecimal) {
			d.post++
		} else {
			d.pre++
		}
		d.zeroEnd = d.pre + d.post
	case numB:
		if d.pre == 0 && d.post == 0 && !d.has(numFlagZero) {
			d.flags |= numFlagBlank
		}
	case numD, numPoint:
		if d.has(numFlagDecimal) {
			return numSyntaxError("multiple decimal points")
		}
		if d.has(numFlagMulti) {
			return numSyntaxError(`cannot use "V" and decimal point together`)
		}
		d.flags |= numFlagDecimal
	case numFM:
		d.flags |= numFlagFill
	case numS:
		if d.has(numFlagLSign) {
			return numSyntaxError(`cannot use "S" twice`)
		}
		if d.has(numFlagPlus) || d.has(numFlagMinus) || d.has(numFlagBracket) {
			return numSyntaxError(`cannot use "S" and "PL"/"MI"/"SG"/"PR" together`)
		}
		if !d.has(numFlagDecimal) {
			d.lsign = lsignPre
			d.preLsignNum = d.pre
			d.flags |= numFlagLSign
		} else if d.lsign == lsignNone {
			d.lsign = lsignPost
			d.flags |= numFlagLSign
		}
	case numMI:
		if d.has(numFlagLSign) {
			return numSyntaxError(`cannot use "S" and "MI" together`)
		}
		d.flags |= numFlagMinus
	case numPL:
		if d.has(numFlagLSign) {
			return numSyntaxError(`cannot use "S" and "PL" together`)
		}
		d.flags |= numFlagPlus
	case numSG:
		if d.has(numFlagLSign) {
			return numSyntaxError(`cannot use "S" and "SG" together`)
		}
		d.flags |= numFlagMinus | numFlagPlus
	case numPR:
		if d.has(numFlagLSign) || d.has(numFlagPlus) || d.has(numFlagMinus) {
			return numSyntaxError(`cannot use "PR" and "S"/"PL"/"MI"/"SG" together`)
		}
		d.flags |= numFlagBracket
	case numRN, numRNLower:
		d.flags |= numFlagRoman
	case numV:
		if d.has(numFlagDecimal) {
			return numSyntaxError(`cannot use "V" and decimal point together`)
		}
		d.flags |= numFlagMulti
	case numEEEE:
		if d.has(numFlagEEEE) {
			return numSyntaxError(`cannot use "EEEE" twice`)
		}
		if d.has(numFlagBlank | numFlagFill | numFlagLSign | numFlagBracket |
			numFlagMinus | numFlagPlus | numFlagRoman | numFlagMulti) {
			return &pgerror.Error{
				Code:    pgerror.SyntaxError,
				Message: `"EEEE" is incompatible with other formats`,
				Detail:  `"EEEE" may only be used together with digit and decimal point patterns.`,
			}
		}
		d.flags |= numFlagEEEE
	}
	return nil
}

// numPrinter lays a digit string out by a template (formatting.c's
// NUM_processor and NUM_numpart_to_char, to_char direction only).
type numPrinter struct {
	d      numDesc
	number string // the digits, with a '.' if there is a fraction
	np     int    // the next byte of number to print
	out    []byte
	sign   byte // '+', '-', or 0 for a Roman numeral

	signWrote    bool // the sign is out, or none is wanted
	numIn        bool // the last digit position printed a digit or zero
	numCount     int  // digit positions, adjusted for where the sign goes
	numCurr      int  // digit positions (and points) seen so far
	outPreSpaces int  // digit positions left of the number's first digit
	lastRelevant int  // in fill mode, the last fraction byte to keep; -1 for none
}

// at is the byte of number at i, or 0 past its end (C's terminating NUL).
func (p *numPrinter) at(i int) byte {
	if i < len(p.number) {
		return p.number[i]
	}
	return 0
}

// render lays p.number out by nodes and returns the text.
func (p *numPrinter) render(nodes []numNode) (string, error) {
	d := &p.d
	if d.zeroStart > 0 {
		d.zeroStart-- // now 0-based
	}
	if d.has(numFlagEEEE) {
		return p.number, nil // the value's conversion made the whole text
	}
	if d.has(numFlagRoman) {
		// A Roman numeral ignores digits, signs and the decimal point.
		d.lsign, d.preLsignNum, d.post, d.pre = lsignNone, 0, 0, 0
		d.flags = d.flags&numFlagFill | numFlagRoman
	}
	fill := d.has(numFlagFill)
	if d.has(numFlagPlus) || d.has(numFlagMinus) {
		// MI, PL and SG print the sign themselves; PL alone still wants
		// a blank where a minus would go.
		p.signWrote = !(d.has(numFlagPlus) && !d.has(numFlagMinus))
	} else {
		if p.sign != '-' && fill {
			d.flags &^= numFlagBracket
		}
		p.signWrote = p.sign == '+' && fill && !d.has(numFlagLSign)
		if d.lsign == lsignPre && d.pre == d.preLsignNum {
			d.lsign = lsignPost // S after all the integer digits
		}
	}
	p.numCount = d.post + d.pre - 1
	p.lastRelevant = -1
	if fill && d.has(numFlagDecimal) {
		p.lastRelevant = lastRelevantDecimal(p.number)
		// 0 positions in the fraction keep their digits.
		if p.lastRelevant >= 0 && d.zeroEnd > p.outPreSpaces {
			lastZero := min(len(p.number)-1, d.zeroEnd-p.outPreSpaces)
			if p.lastRelevant < lastZero {
				p.lastRelevant = lastZero
			}
		}
	}
	if !p.signWrote && p.outPreSpaces == 0 {
		p.numCount++
	}

	for _, n := range nodes {
		switch n.key {
		case numLiteral:
			p.out = append(p.out, n.lit...)
		case numNine, numZero, numPoint, numD:
			p.digit(n.key)
		case numComma, numG:
			switch {
			case p.numIn:
				p.out = append(p.out, ',')
			case !fill:
				p.out = append(p.out, ' ')
			}
		case numL:
			p.out = append(p.out, ' ') // the C locale has no currency symbol
		case numRN, numRNLower:
			s := p.number[min(p.np, len(p.number)):]
			if n.key == numRNLower {
				s = strings.ToLower(s)
			}
			if !fill && len(s) < 15 {
				s = strings.Repeat(" ", 15-len(s)) + s
			}
			p.out = append(p.out, s...)
		case numTH, numTHLower:
			if d.has(numFlagRoman) || p.at(0) == '#' || p.sign == '-' || d.has(numFlagDecimal) {
				continue
			}
			suffix, err := ordinalSuffix(p.number)
			if err != nil {
				return "", err
			}
			if n.key == numTH {
				suffix = strings.ToUpper(suffix)
			}
			p.out = append(p.out, suffix...)
		case numMI, numPL: // the sign it names where written, else a blank
			mark := byte('-')
			if n.key == numPL {
				mark = '+'
			}
			switch {
			case p.sign == mark:
				p.out = append(p.out, mark)
			case !fill:
				p.out = append(p.out, ' ')
			}
		case numSG:
			p.out = append(p.out, p.sign)
		}
	}
	out := p.out
	// A NUL ends PostgreSQL's result text.
	for i, c := range out {
		if c == 0 {
			out = out[:i]
			break
		}
	}
	return string(out), nil
}

// predecimalSpace reports whether the number's integer part is a lone
// zero that prints as a blank ("0.1" by "9.9" is " .1").
func (p *numPrinter) predecimalSpace() bool {
	return !p.d.has(numFlagZero) && p.np == 0 && p.at(0) == '0' && p.d.post != 0
}

// lastIsPoint reports whether fill mode keeps nothing after the point.
func (p *numPrinter) lastIsPoint() bool {
	return p.lastRelevant >= 0 && p.number[p.lastRelevant] == '.'
}

// digit prints one digit position or decimal point (key is 9, 0, . or
// D), with the sign first when this is where the number starts and the
// closing bracket or trailing S sign when it is where the number ends.
func (p *numPrinter) digit(key numKey) {
	d := &p.d
	if d.has(numFlagRoman) {
		return
	}
	fill := d.has(numFlagFill)
	zero := d.has(numFlagZero)
	p.numIn = false

	if !p.signWrote &&
		(p.numCurr >= p.outPreSpaces || (zero && d.zeroStart == p.numCurr)) &&
		(!p.predecimalSpace() || p.lastIsPoint()) {
		switch {
		case d.has(numFlagLSign):
			if d.lsign == lsignPre {
				p.out = append(p.out, p.localeSign())
				p.signWrote = true
			}
		case d.has(numFlagBracket):
			if p.sign == '+' {
				p.out = append(p.out, ' ')
			} else {
				p.out = append(p.out, '<')
			}
			p.signWrote = true
		case p.sign == '+':
			if !fill {
				p.out = append(p.out, ' ')
			}
			p.signWrote = true
		case p.sign == '-':
			p.out = append(p.out, '-')
			p.signWrote = true
		}
	}

	switch {
	case p.numCurr < p.outPreSpaces && (d.zeroStart > p.numCurr || !zero):
		if !fill {
			p.out = append(p.out, ' ')
		}
	case zero && p.numCurr < p.outPreSpaces && d.zeroStart <= p.numCurr:
		p.out = append(p.out, '0')
		p.numIn = true
	default:
		c := p.at(p.np)
		switch {
		case c == '.':
			// Fill mode keeps the point even when nothing follows it.
			p.out = append(p.out, '.')
		case p.lastRelevant >= 0 && p.np > p.lastRelevant && key != numZero:
			// a trailing fraction zero that fill mode drops
		case p.predecimalSpace():
			if !fill {
				p.out = append(p.out, ' ')
			} else if p.lastIsPoint() {
				p.out = append(p.out, '0')
			}
		default:
			p.out = append(p.out, c) // 0 past the end: PostgreSQL's NUL
			p.numIn = true
		}
		if c != 0 {
			p.np++
		}
	}

	end := p.numCount
	if p.outPreSpaces > 0 {
		end++
	}
	if d.has(numFlagDecimal) {
		end++
	}
	if p.lastRelevant >= 0 && p.lastRelevant == p.np {
		end = p.numCurr
	}
	if p.numCurr+1 == end {
		switch {
		case p.signWrote && d.has(numFlagBracket):
			if p.sign == '+' {
				p.out = append(p.out, ' ')
			} else {
				p.out = append(p.out, '>')
			}
		case d.has(numFlagLSign) && d.lsign == lsignPost:
			p.out = append(p.out, p.localeSign())
		}
	}
	p.numCurr++
}

// localeSign is the sign S prints: the C locale's '-' or '+'.
func (p *numPrinter) localeSign() byte {
	if p.sign == '-' {
		return '-'
	}
	return '+'
}

// lastRelevantDecimal is the index of the last non-zero fraction digit
// of a digit string, or of its point when the fraction is all zeros; -1
// when it has no point.
func lastRelevantDecimal(number string) int {
	point := strings.IndexByte(number, '.')
	if point < 0 {
		return -1
	}
	last := point
	for i := point + 1; i < len(number); i++ {
		if number[i] != '0' {
			last = i
		}
	}
	return last
}

// ordinalSuffix is the English ordinal suffix of the integer whose
// digits are number ("st", "nd", "rd" or "th"); the teens take "th".
func ordinalSuffix(number string) (string, error) {
	if number == "" || number[len(number)-1] < '0' || number[len(number)-1] > '9' {
		return "", pgerror.Newf(pgerror.InvalidTextRepresentation, "\"%s\" is not a number", number)
	}
	last := number[len(number)-1]
	if len(number) > 1 && number[len(number)-2] == '1' {
		return "th", nil
	}
	switch last {
	case '1':
		return "st", nil
	case '2':
		return "nd", nil
	case '3':
		return "rd", nil
	}
	return "th", nil
}
