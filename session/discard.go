package session

import (
	"context"
	"strings"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/wire/backend"
)

// discardAll is what DISCARD ALL runs, in PostgreSQL's documented order:
// a connection pooler (pgbouncer's server_reset_query) sends it to hand
// a connection on as if new.
var discardAll = []string{
	"CLOSE ALL",
	"SET SESSION AUTHORIZATION DEFAULT",
	"RESET ALL",
	"DEALLOCATE ALL",
	"UNLISTEN *",
	"SELECT pg_advisory_unlock_all()",
	"DISCARD PLANS",
	"DISCARD TEMP",
	"DISCARD SEQUENCES",
}

// discard runs DISCARD what. SEQUENCES forgets currval and lastval;
// PLANS has nothing to do (kvsql remakes a cached plan whenever the
// catalog it was made for changes, so a discarded plan would be made
// again the same); TEMP drops the session's temporary relations; ALL
// runs discardAll, outside a transaction block only.
func (s *Session) discard(ctx context.Context, what string) (backend.Result, error) {
	tag := "DISCARD " + strings.ToUpper(what)
	switch what {
	case "sequences":
		clear(s.currvals)
		s.lastSeq = 0
	case "plans":
	case "temp":
		if err := s.dropTempSchema(); err != nil { // temp.go
			return nil, err
		}
	case "all":
		if s.cur != nil {
			return nil, pgerror.New(pgerror.ActiveSQLTransaction, "DISCARD ALL cannot run inside a transaction block")
		}
		for _, sql := range discardAll {
			if _, err := s.exec(ctx, sql, nil); err != nil {
				return nil, err
			}
		}
	default:
		return nil, pgerror.Newf(pgerror.SyntaxError, "syntax error at or near %q", what)
	}
	return &staticResult{tag: tag}, nil
}
