package types

import (
	"strings"
	"sync"
	"time"
	// The IANA database inside the binary, so zone names work on hosts
	// without /usr/share/zoneinfo (about 450 KB).
	_ "time/tzdata"
)

var zoneCache sync.Map // lower-case name -> *time.Location

// LoadZone finds a time zone by IANA name in any case ("Europe/Paris",
// "europe/paris", "UTC"), as PostgreSQL's timezone setting does.
func LoadZone(name string) (*time.Location, error) {
	key := strings.ToLower(name)
	if l, ok := zoneCache.Load(key); ok {
		return l.(*time.Location), nil
	}
	switch key {
	case "utc", "gmt", "z", "zulu", "ut", "etc/utc", "universal":
		return time.UTC, nil
	}
	loc, err := time.LoadLocation(canonicalZoneName(name))
	if err != nil {
		return nil, ErrDateTimeSyntax
	}
	zoneCache.Store(key, loc)
	return loc, nil
}

// canonicalZoneName capitalises a lower-case IANA name the way the
// database spells most of them ("america/new_york" ->
// "America/New_York"); names already mixed-case pass through.
func canonicalZoneName(name string) string {
	if name != strings.ToLower(name) {
		return name
	}
	b := []byte(name)
	up := true
	for i, c := range b {
		if up && c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
		up = c == '/' || c == '_' || c == '-'
	}
	return string(b)
}

// ZoneByName resolves a time zone as PostgreSQL's timezone setting and
// AT TIME ZONE do: an IANA name in any case, UTC/GMT/Z, or an ISO-style
// offset "+02", "-05:30" (east of Greenwich positive). ok is false for
// anything else.
func ZoneByName(name string) (*time.Location, bool) {
	n := strings.TrimSpace(name)
	if n == "" {
		return nil, false
	}
	if n[0] == '+' || n[0] == '-' {
		off, ok := parseOffset(n[1:])
		if !ok {
			return nil, false
		}
		if n[0] == '-' {
			off = -off
		}
		return time.FixedZone(FormatOffsetName(off), off), true
	}
	if loc, err := LoadZone(n); err == nil {
		return loc, true
	}
	// POSIX "STD[+-]hh[:mm]": hours west of Greenwich positive.
	i := 0
	for i < len(n) && (n[i] >= 'a' && n[i] <= 'z' || n[i] >= 'A' && n[i] <= 'Z') {
		i++
	}
	if i >= 3 && i < len(n) {
		rest, sign := n[i:], -1
		switch rest[0] {
		case '+':
			rest = rest[1:]
		case '-':
			rest, sign = rest[1:], 1
		}
		if off, ok := parseOffset(rest); ok {
			return time.FixedZone(n[:i], sign*off), true
		}
	}
	return nil, false
}

// FormatOffsetName is how PostgreSQL shows a fixed offset's zone
// abbreviation: "+02", "-05:30".
func FormatOffsetName(off int) string { return string(appendOffset(nil, off)) }
