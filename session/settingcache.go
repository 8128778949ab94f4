package session

import "time"

// parsedSetting remembers the number the last value of one setting was
// parsed into. Every statement reads work_mem, max_query_memory and
// statement_timeout; parsing their text each time (trimming, suffix
// search, strconv) was about 2% of a prepared point select's CPU. The
// settings map keeps the same string until the setting is set again, so
// the comparison is usually of one pointer.
type parsedSetting struct {
	raw   string
	n     int64
	ok    bool
	valid bool
}

// parse returns parse(raw), from the last call when raw is the same.
func (p *parsedSetting) parse(raw string, parse func(string) (int64, bool)) (int64, bool) {
	if !p.valid || raw != p.raw {
		p.raw, p.valid = raw, true
		p.n, p.ok = parse(raw)
	}
	return p.n, p.ok
}

// parsedSettings are the session's parsed values of the settings every
// statement reads. REQUIRES: Session.mu held.
type parsedSettings struct {
	workMem, queryMem, statementTimeout parsedSetting
}

// settingNumber reads setting name through its cache p.
func (s *Session) settingNumber(p *parsedSetting, name string, parse func(string) (int64, bool)) (int64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return p.parse(s.settings[name], parse)
}

// StatementTimeout is statement_timeout as a duration (0: none); the wire
// server asks it before every statement. It is what Setting's
// "statement_timeout" says, without formatting and parsing text.
func (s *Session) StatementTimeout() time.Duration {
	ms, ok := s.settingNumber(&s.parsed.statementTimeout, "statement_timeout", parseDuration)
	if !ok || ms <= 0 {
		return 0
	}
	return time.Duration(ms) * time.Millisecond
}
