package eval

import (
	"context"
	"fmt"
	"net/netip"
	"strings"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// AdvisoryKey names an advisory lock: one bigint, or two integers (Pair),
// which are separate key spaces as in PostgreSQL.
type AdvisoryKey struct {
	A, B int64
	Pair bool
}

// Advisory is what the advisory lock functions need from the session.
type Advisory interface {
	// Lock takes key, shared or exclusive, held until the session ends
	// or unlocks it, or with xact until the transaction ends. With try
	// it answers false at once rather than wait; otherwise it waits
	// until ctx ends (a cancel, statement_timeout).
	Lock(ctx context.Context, key AdvisoryKey, shared, xact, try bool) (bool, error)
	// Unlock releases one session-level hold of key; false, with
	// PostgreSQL's warning, when the session holds none.
	Unlock(key AdvisoryKey, shared bool) bool
	// UnlockAll releases every session-level hold.
	UnlockAll()
}

// advisoryFunc evaluates the advisory lock functions over non-NULL
// arguments: pg_[try_]advisory_[xact_]lock[_shared], returning void (as
// empty text) or, trying, a boolean; pg_advisory_unlock[_shared] and
// pg_advisory_unlock_all.
func advisoryFunc(env *Env, name string, args []types.Datum) (types.Datum, error) {
	if env.Advisory == nil {
		return types.Null, pgerror.Newf(pgerror.FeatureNotSupported, "%s cannot be called here", name)
	}
	if name == "pg_advisory_unlock_all" {
		env.Advisory.UnlockAll()
		return types.NewText(""), nil
	}
	key := AdvisoryKey{A: args[0].I}
	if len(args) == 2 {
		key = AdvisoryKey{A: args[0].I, B: args[1].I, Pair: true}
	}
	shared := strings.HasSuffix(name, "_shared")
	if strings.HasPrefix(name, "pg_advisory_unlock") {
		return types.NewBool(env.Advisory.Unlock(key, shared)), nil
	}
	try := strings.HasPrefix(name, "pg_try_")
	ctx := env.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	ok, err := env.Advisory.Lock(ctx, key, shared, strings.Contains(name, "_xact_"), try)
	if err != nil {
		return types.Null, err
	}
	if try {
		return types.NewBool(ok), nil
	}
	return types.NewText(""), nil
}

// serverFunc evaluates pg_postmaster_start_time and the transaction id
// functions (txid_current and pg_current_xact_id, with their
// _if_assigned forms, NULL when the transaction has none yet).
func serverFunc(env *Env, name string) (types.Datum, error) {
	if env.Server == nil {
		return types.Null, pgerror.Newf(pgerror.FeatureNotSupported, "%s cannot be called here", name)
	}
	switch name {
	case "pg_postmaster_start_time", "pg_conf_load_time":
		return types.NewTimestamp(env.Server.StartTime().UnixMicro()), nil
	case "pg_trigger_depth":
		return types.NewInt(int64(env.Server.TriggerDepth())), nil
	case "pg_notification_queue_usage":
		return types.NewFloat(0), nil // delivered at commit: no queue fills
	case "inet_server_addr", "inet_server_port", "inet_client_addr", "inet_client_port":
		server, client := env.Server.ConnAddrs()
		addr := server
		if strings.HasPrefix(name, "inet_client") {
			addr = client
		}
		ap, err := netip.ParseAddrPort(fmt.Sprint(addr))
		if addr == nil || err != nil {
			return types.Null, nil // in process, or a Unix socket: NULL, as PostgreSQL's
		}
		if strings.HasSuffix(name, "_port") {
			return types.NewInt(int64(ap.Port())), nil
		}
		a := ap.Addr().Unmap()
		return types.NewInet(types.InetValue{Addr: a, Bits: a.BitLen()}), nil
	}
	id, ok := env.Server.XactID(!strings.HasSuffix(name, "_if_assigned"))
	if !ok {
		return types.Null, nil
	}
	return types.NewInt(id), nil
}

// notifyFunc evaluates pg_notify(channel, payload), which is not strict:
// a NULL payload is an empty one, a NULL channel an empty name (22023).
func notifyFunc(env *Env, e *planner.Func, row []types.Datum) (types.Datum, error) {
	if env.Server == nil {
		return types.Null, pgerror.New(pgerror.FeatureNotSupported, "pg_notify cannot be called here")
	}
	var text [2]string
	for i := range text {
		d, err := Eval(env, e.Args[i], row)
		if err != nil {
			return types.Null, err
		}
		if !d.IsNull() {
			text[i] = d.S
		}
	}
	return types.NewText(""), env.Server.Notify(text[0], text[1])
}
