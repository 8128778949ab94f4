package session

import (
	"strings"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/wire/backend"
)

// discard runs DISCARD what. SEQUENCES forgets currval and lastval;
// PLANS has nothing to do (kvsql remakes a cached plan whenever the
// catalog it was made for changes, so a discarded plan would be made
// again the same). TEMP, and ALL which includes it, would drop the
// session's temporary tables, which kvsql does not tell apart from
// ordinary ones: refused.
func (s *Session) discard(what string) (backend.Result, error) {
	tag := "DISCARD " + strings.ToUpper(what)
	switch what {
	case "sequences":
		clear(s.currvals)
		s.lastSeq = 0
	case "plans":
	default:
		if what == "all" && s.cur != nil {
			return nil, pgerror.New(pgerror.ActiveSQLTransaction, "DISCARD ALL cannot run inside a transaction block")
		}
		return nil, pgerror.Newf(pgerror.FeatureNotSupported, "%s is not supported: kvsql does not keep temporary tables apart from the others", tag)
	}
	return &staticResult{tag: tag}, nil
}
