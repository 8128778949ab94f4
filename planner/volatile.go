package planner

// Volatile functions: which calls may answer differently on each call,
// and the select items that call them, computed after the sort.

import (
	"slices"

	"github.com/kvsql/kvsql/types"
)

// volatileFunc reports whether a function may answer differently on each
// call within one statement (PostgreSQL's VOLATILE), so a call must not be
// evaluated once for many rows.
func volatileFunc(name string) bool {
	if _, ok := RoutineName(name); ok {
		return true // a SQL function's body may write, or be volatile
	}
	switch name {
	case "random", "nextval", "setval", "set_config", "currval", "lastval", "gen_random_uuid", "clock_timestamp", "timeofday",
		"pg_cancel_backend", "pg_terminate_backend", "pg_sleep", "pg_sleep_for", "pg_sleep_until",
		"pg_advisory_lock", "pg_advisory_lock_shared", "pg_try_advisory_lock", "pg_try_advisory_lock_shared",
		"pg_advisory_xact_lock", "pg_advisory_xact_lock_shared", "pg_try_advisory_xact_lock", "pg_try_advisory_xact_lock_shared",
		"pg_advisory_unlock", "pg_advisory_unlock_shared", "pg_advisory_unlock_all",
		"txid_current", "pg_current_xact_id", "txid_current_if_assigned", "pg_current_xact_id_if_assigned", "pg_notify",
		"pg_trigger_depth", "inet_server_addr", "inet_client_addr", "inet_server_port", "inet_client_port":
		return true
	}
	return false
}

// readsVolatile reports whether e calls a volatile function outside its
// subqueries.
func readsVolatile(e Expr) bool {
	found := false
	walkExpr(e, func(x Expr) bool {
		if f, ok := x.(*Func); ok && volatileFunc(f.Name) {
			found = true
		}
		return !found
	})
	return found
}

// postponeVolatile moves the select items that call a volatile function
// (nextval, random(), ...) above the sort and the limit, as PostgreSQL
// does: SELECT nextval('s'), x FROM t ORDER BY x LIMIT 10 takes ten
// numbers, handed out in the sorted order. Such an item's column in proj
// becomes a NULL; the columns it reads ride along hidden; the returned
// map gives its expression over proj's row for the final projection. Not
// when ok is false (no sort, DISTINCT, locking), for an item the sort
// keys read or one with a subquery.
func postponeVolatile(proj *Project, items []selectItem, sortedItems []int, ok bool) map[int]Expr {
	if !ok {
		return nil
	}
	var late map[int]Expr
	for i, it := range items {
		if !readsVolatile(it.expr) || hasSubquery(it.expr) || slices.Contains(sortedItems, i) {
			continue
		}
		reads := map[int]bool{}
		colRefs(it.expr, reads)
		position := map[int]int{}
		for c := range reads {
			position[c] = len(proj.Exprs)
			ref := &ColRef{Index: c, T: proj.Input.Columns()[c].T, Name: proj.Input.Columns()[c].Name}
			proj.Exprs = append(proj.Exprs, ref)
			proj.Cols = append(proj.Cols, Column{Name: ref.Name, T: ref.T, Hidden: true})
		}
		if late == nil {
			late = map[int]Expr{}
		}
		late[i] = remap(it.expr, position)
		proj.Exprs[i] = &Const{Value: types.Null, T: it.expr.Type()}
	}
	return late
}
