package session

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/kvsql/kvsql/exec/eval"
	"github.com/kvsql/kvsql/planner"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner/parse"
	"github.com/kvsql/kvsql/types"
	"github.com/kvsql/kvsql/wire/backend"
)

// defaultSettings are a new session's settings (PostgreSQL's names).
func defaultSettings() map[string]string {
	return map[string]string{
		"application_name":                    "",
		"client_encoding":                     "UTF8",
		"server_encoding":                     "UTF8",
		"datestyle":                           "ISO, MDY",
		"timezone":                            "UTC",
		"intervalstyle":                       "postgres",
		"integer_datetimes":                   "on",
		"standard_conforming_strings":         "on",
		"statement_timeout":                   "0",
		"lock_timeout":                        "0",
		"idle_in_transaction_session_timeout": "0",
		"deadlock_timeout":                    "1s",
		"work_mem":                            "64MB",
		maxQueryMemSetting:                    "",
		"search_path":                         `"$user", public`,
		"transaction_isolation":               "read committed",
		"default_transaction_isolation":       "read committed",
		"default_transaction_read_only":       "off",
		"transaction_read_only":               "off",
		"default_transaction_deferrable":      "off",
		"transaction_deferrable":              "off",
		"server_version":                      "15.0 (kvsql)",
		"server_version_num":                  "150000",
		"max_identifier_length":               "63",
		"extra_float_digits":                  "1",
		"lc_messages":                         "C",
		"lc_collate":                          "C",
		"lc_ctype":                            "C",
		"is_superuser":                        "on",
		"bytea_output":                        "hex",
	}
}

// defaultSettings are a new session's settings on this store: work_mem
// is the server's --work-mem (Options.WorkMem) when one was given.
func (db *DB) defaultSettings() map[string]string {
	m := defaultSettings()
	if db.opts.WorkMem > 0 {
		m["work_mem"] = formatMemory(db.opts.WorkMem)
	}
	m[maxQueryMemSetting] = formatMemory(db.maxQueryMem())
	return m
}

// formatMemory renders bytes as PostgreSQL shows a memory setting: in
// the largest of GB, MB and kB that divides it exactly.
func formatMemory(n int64) string {
	for _, u := range []struct {
		s string
		m int64
	}{{"GB", 1 << 30}, {"MB", 1 << 20}, {"kB", 1 << 10}} {
		if n%u.m == 0 {
			return strconv.FormatInt(n/u.m, 10) + u.s
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}

// reported are the settings PostgreSQL reports with ParameterStatus when
// they change.
var reported = map[string]string{
	"application_name": "application_name", "client_encoding": "client_encoding",
	"datestyle": "DateStyle", "timezone": "TimeZone", "intervalstyle": "IntervalStyle",
	"standard_conforming_strings": "standard_conforming_strings", "is_superuser": "is_superuser",
}

// Setting implements backend.Session.
func (s *Session) Setting(name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := s.settings[strings.ToLower(name)]
	if strings.ToLower(name) == "statement_timeout" {
		if ms, ok := parseDuration(v); ok {
			return strconv.FormatInt(ms, 10)
		}
		return "0"
	}
	return v
}

// ChangedSettings implements backend.Session.
func (s *Session) ChangedSettings() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.changed) == 0 {
		return nil
	}
	out := s.changed
	s.changed = map[string]string{}
	return out
}

func (s *Session) set(st *parse.SetStmt) (backend.Result, error) {
	name := strings.ToLower(st.Name)
	if name == "constraints" {
		return s.setConstraints(st.Value)
	}
	if name == "role" || name == "session_authorization" {
		return s.setRole(st) // role.go
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if st.Reset {
		def := s.db.defaultSettings()
		if name == "all" {
			for k, v := range def {
				if k == "is_superuser" {
					continue // follows the role, which RESET ALL leaves
				}
				s.changeSettingLocked(k, settingVal{text: v}, false)
			}
			return &staticResult{tag: "RESET"}, nil
		}
		s.changeSettingLocked(name, settingVal{text: def[name]}, false)
		return &staticResult{tag: "RESET"}, nil
	}
	if name == "transaction" {
		if err := s.setTransactionLocked(st); err != nil {
			return nil, err
		}
		return &staticResult{tag: "SET"}, nil
	}
	value := strings.Join(st.Value, ", ")
	if strings.EqualFold(value, "default") {
		value = s.db.defaultSettings()[name]
	}
	switch name {
	case "default_transaction_deferrable", "transaction_deferrable":
		on, ok := parseBool(value)
		if !ok {
			return nil, pgerror.Newf(pgerror.InvalidParameterValue, "parameter %q requires a Boolean value", name)
		}
		value = onOff(on)
		if name == "transaction_deferrable" {
			if s.cur != nil {
				s.cur.deferrable = on
			}
			return &staticResult{tag: "SET"}, nil
		}
	case "default_transaction_read_only", "transaction_read_only":
		on, ok := parseBool(value)
		if !ok {
			return nil, pgerror.Newf(pgerror.InvalidParameterValue, "parameter %q requires a Boolean value", name)
		}
		value = "off"
		if on {
			value = "on"
		}
		if name == "transaction_read_only" {
			if s.cur != nil {
				if err := s.cur.checkReadWrite(on); err != nil {
					return nil, err
				}
				s.cur.readOnly = on
			}
			return &staticResult{tag: "SET"}, nil
		}
	case "statement_timeout", "lock_timeout", "idle_in_transaction_session_timeout":
		if _, ok := parseDuration(value); !ok {
			return nil, pgerror.Newf(pgerror.InvalidParameterValue, "invalid value for parameter %q: %q", name, value)
		}
	case "work_mem", maxQueryMemSetting:
		if _, ok := parseMemory(value); !ok && (name == "work_mem" || value != "") {
			return nil, pgerror.Newf(pgerror.InvalidParameterValue, "invalid value for parameter \"work_mem\": %q", value)
		}
	case "transaction_isolation", "default_transaction_isolation":
		value = strings.ToLower(strings.Trim(value, "'"))
		if !validIsolation(value) {
			return nil, pgerror.Newf(pgerror.InvalidParameterValue, "invalid value for parameter %q: %q", name, value)
		}
		if name == "transaction_isolation" {
			if err := s.setIsolationLocked(value); err != nil {
				return nil, err
			}
			return &staticResult{tag: "SET"}, nil
		}
	case "client_encoding":
		if u := strings.ToUpper(strings.ReplaceAll(value, "-", "")); u != "UTF8" && u != "UNICODE" {
			return nil, pgerror.Newf(pgerror.FeatureNotSupported, "encoding %q is not supported: kvsql speaks UTF8", value)
		}
		value = "UTF8"
	case "bytea_output":
		switch v := strings.ToLower(strings.Trim(value, "'")); v {
		case "hex":
			value = v
		case "escape":
			return nil, pgerror.New(pgerror.FeatureNotSupported, "bytea_output \"escape\" is not supported: kvsql sends bytea in the hex format (encode(x, 'escape') gives the escape form)")
		default:
			return nil, pgerror.Newf(pgerror.InvalidParameterValue, "invalid value for parameter \"bytea_output\": \"%s\"", v)
		}
	case "intervalstyle":
		v := strings.ToLower(strings.Trim(value, "'"))
		if _, ok := types.ParseIntervalStyle(v); !ok {
			return nil, pgerror.Newf(pgerror.InvalidParameterValue, "invalid value for parameter \"IntervalStyle\": \"%s\"", v)
		}
		value = v // setLocked keeps s.intervalStyle
	case "extra_float_digits":
		n, err := parseIntSetting("extra_float_digits", value, -15, 3)
		if err != nil {
			return nil, err
		}
		value = strconv.Itoa(n) // setLocked keeps s.floatDigits
	case "timezone":
		loc, show, ok := parseTimeZoneSetting(value)
		if !ok {
			return nil, pgerror.Newf(pgerror.InvalidParameterValue, "invalid value for parameter \"TimeZone\": \"%s\"", strings.Trim(value, "'"))
		}
		s.changeSettingLocked(name, settingVal{text: show, loc: loc}, st.Local) // settings_txn.go
		return &staticResult{tag: "SET"}, nil
	}
	s.changeSettingLocked(name, settingVal{text: value}, st.Local) // settings_txn.go
	return &staticResult{tag: "SET"}, nil
}

// REQUIRES: s.mu held.
func (s *Session) setLocked(name, value string) {
	s.settings[name] = value
	s.settingsGen.Add(1)
	if name == "intervalstyle" {
		style, _ := types.ParseIntervalStyle(value)
		s.intervalStyle.Store(uint32(style))
	}
	if name == "extra_float_digits" {
		n, _ := strconv.Atoi(value)
		s.floatDigits.Store(int32(eval.FloatDigitsFor(n)))
	}
	if r, ok := reported[name]; ok {
		s.changed[r] = value
	}
}

func (s *Session) show(st *parse.ShowStmt) (backend.Result, error) {
	name := strings.ToLower(st.Name)
	s.mu.Lock()
	defer s.mu.Unlock()
	if name == "all" {
		return nil, pgerror.New(pgerror.FeatureNotSupported, "SHOW ALL is not supported")
	}
	v, ok := s.settingLocked(name)
	if !ok {
		return nil, pgerror.Newf(pgerror.UndefinedObject, "unrecognized configuration parameter %q", st.Name)
	}
	return &staticResult{tag: "SHOW", rows: [][]types.Datum{{types.NewText(v)}}}, nil
}

// settingLocked is the value of setting name (lower case) as SHOW and
// current_setting report it: the transaction_* settings describe the
// open transaction, or the next one.
// REQUIRES: s.mu held.
func (s *Session) settingLocked(name string) (string, bool) {
	v, ok := s.settings[name]
	switch name {
	case "transaction_isolation":
		v = s.settings["default_transaction_isolation"]
		if s.cur != nil {
			v = s.cur.isolation()
		}
	case "transaction_read_only":
		v = s.settings["default_transaction_read_only"]
		if s.cur != nil {
			v = onOff(s.cur.readOnly)
		}
	case "transaction_deferrable":
		v = s.settings["default_transaction_deferrable"]
		if s.cur != nil {
			v = onOff(s.cur.deferrable)
		}
	}
	return v, ok
}

func showName(n string) string {
	n = strings.ToLower(n)
	if r, ok := reported[n]; ok {
		return r // SHOW's column is the parameter's own name: TimeZone, DateStyle
	}
	return n
}

// parseDuration reads a statement_timeout value into milliseconds.
func parseDuration(v string) (int64, bool) {
	v = strings.TrimSpace(strings.Trim(v, "'"))
	unit := int64(1)
	for _, u := range []struct {
		s string
		m int64
	}{{"ms", 1}, {"s", 1000}, {"min", 60000}, {"h", 3600000}} {
		if strings.HasSuffix(v, u.s) {
			v, unit = strings.TrimSpace(strings.TrimSuffix(v, u.s)), u.m
			break
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	return n * unit, true
}

// parseMemory reads a work_mem value ("64MB", "4096" kB) into bytes.
func parseMemory(v string) (int64, bool) {
	v = strings.TrimSpace(strings.Trim(v, "'"))
	unit := int64(1024)
	for _, u := range []struct {
		s string
		m int64
	}{{"kB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}, {"B", 1}} {
		if strings.HasSuffix(v, u.s) {
			v, unit = strings.TrimSpace(strings.TrimSuffix(v, u.s)), u.m
			break
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 64 && unit == 1024 || n <= 0 {
		return 0, false
	}
	return n * unit, true
}

// lockOptions are the session's lock settings for a statement.
func (s *Session) lockOptions() lockOptions {
	s.mu.Lock()
	defer s.mu.Unlock()
	ms, _ := parseDuration(s.settings["lock_timeout"])
	return lockOptions{timeout: time.Duration(ms) * time.Millisecond}
}

// Location is the session's time zone (the timezone setting), in which
// timestamptz values are shown and zone-less timestamptz text is read.
// IntervalStyle is the session's IntervalStyle: how intervals are shown
// as text (the wire's text format and casts to text).
func (s *Session) IntervalStyle() types.IntervalStyle {
	return types.IntervalStyle(s.intervalStyle.Load())
}

// FloatDigits is the extra_float_digits setting as eval.Style's
// FloatDigits: how many digits floats are shown with (the wire's text
// format and casts to text).
func (s *Session) FloatDigits() int { return int(s.floatDigits.Load()) }

// parseIntSetting reads the value of the integer setting name as
// PostgreSQL's parse_int does (a fraction rounds), within [lo, hi].
func parseIntSetting(name, value string, lo, hi int) (int, error) {
	v := strings.TrimSpace(strings.Trim(value, "'"))
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, pgerror.Newf(pgerror.InvalidParameterValue, "invalid value for parameter \"%s\": \"%s\"", name, v)
	}
	if f = math.RoundToEven(f); f < float64(lo) || f > float64(hi) {
		return 0, pgerror.Newf(pgerror.InvalidParameterValue, "%s is outside the valid range for parameter \"%s\" (%d .. %d)", strconv.FormatFloat(f, 'f', -1, 64), name, lo, hi)
	}
	return int(f), nil
}

func (s *Session) Location() *time.Location {
	if l := s.loc.Load(); l != nil {
		return l
	}
	return time.UTC
}

// parseTimeZoneSetting reads a timezone value as PostgreSQL's SET TIME
// ZONE does: an IANA name in any case, UTC, LOCAL/DEFAULT (UTC here), a
// number of hours east ("2", "-5.5", SET TIME ZONE 2), an ISO offset
// ("+02", "-05:30"), or POSIX "UTC+3" (west positive). It returns the
// zone and the value SHOW prints.
func parseTimeZoneSetting(value string) (*time.Location, string, bool) {
	v := strings.TrimSpace(strings.Trim(value, "'"))
	switch strings.ToLower(v) {
	case "local", "default", "utc":
		return time.UTC, "UTC", true
	}
	if f, err := strconv.ParseFloat(v, 64); err == nil && !strings.ContainsAny(v, ":") {
		if math.Abs(f) > 15 {
			return nil, "", false
		}
		off := int(math.Round(f * 3600))
		name := types.FormatOffsetName(off)
		return time.FixedZone(name, off), "<" + name + ">" + types.FormatOffsetName(-off), true
	}
	if loc, ok := types.ZoneByName(v); ok {
		show := v
		if _, err := types.LoadZone(v); err == nil && loc != time.UTC {
			show = loc.String() // the database's spelling: europe/paris is Europe/Paris
		}
		if v[0] == '+' || v[0] == '-' {
			_, off := time.Now().In(loc).Zone()
			show = "<" + types.FormatOffsetName(off) + ">" + types.FormatOffsetName(-off)
		}
		return loc, show, true
	}
	return nil, "", false
}

// settingOps gives current_setting and set_config the session's
// parameters (eval.Settings).
type settingOps struct{ s *Session }

func (o settingOps) Get(name string) (string, bool) {
	o.s.mu.Lock()
	defer o.s.mu.Unlock()
	return o.s.settingLocked(strings.ToLower(name))
}

// Set is SET name = value (SET LOCAL when isLocal), as set_config runs
// it: the value is one string, validated as SET validates it.
func (o settingOps) Set(name, value string, isLocal bool) (string, error) {
	if _, err := o.s.set(&parse.SetStmt{Name: name, Value: []string{value}, Local: isLocal}); err != nil {
		return "", err
	}
	v, _ := o.Get(name)
	return v, nil
}

// searchPath is the session's search_path, parsed; CREATE SCHEMA's
// elements run with the new schema in front (pathOverride).
//
// The result is shared: callers must not change its elements (appending
// is safe, it copies).
func (s *Session) searchPath() []string {
	if s.pathOverride != nil {
		return s.resolveSearchPath()
	}
	s.memoSearchPath()
	return s.path.names
}

// searchPathKey is the search path as one comparable string, for a plan
// to record what its names were resolved under.
func (s *Session) searchPathKey() string {
	if s.pathOverride != nil {
		return strings.Join(s.resolveSearchPath(), "\x00")
	}
	s.memoSearchPath()
	return s.path.key
}

// memoSearchPath brings s.path up to date with the settings. The path
// depends only on search_path, the user and the session's temporary
// schema; the user and the schema are fixed for the session, and every
// settings change moves settingsGen (setLocked).
func (s *Session) memoSearchPath() {
	gen := s.settingsGen.Load()
	if s.path.ok && s.path.gen == gen {
		return
	}
	names := s.resolveSearchPath()
	s.path.ok, s.path.gen = true, gen
	s.path.names = names[:len(names):len(names)]
	s.path.key = strings.Join(names, "\x00")
}

// resolveSearchPath computes the search path from the settings.
func (s *Session) resolveSearchPath() []string {
	// Never nil: an empty search_path is a path with no schema, not
	// planner's default. The session's temporary schema comes first
	// unless the path names pg_temp elsewhere, as in PostgreSQL.
	path := append(append([]string{}, s.pathOverride...), planner.SearchPath(s.Setting("search_path"), s.user)...)
	temp := s.tempSchema()
	for i, name := range path {
		if name == "pg_temp" {
			path[i] = temp
			return path
		}
	}
	return append([]string{temp}, path...)
}
