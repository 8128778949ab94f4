package eval

import (
	"context"
	"errors"
	"math"
	"time"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/types"
)

// CancelError is the error of a statement whose context ctx was
// cancelled: the cause it was cancelled with when that is a PostgreSQL
// error (a terminated backend), else 57014 for a statement timeout or a
// cancel request.
func CancelError(ctx context.Context) error {
	cause := context.Cause(ctx)
	var pe *pgerror.Error
	if errors.As(cause, &pe) {
		return cause
	}
	if errors.Is(cause, context.DeadlineExceeded) {
		return pgerror.Newf(pgerror.QueryCanceled, "canceling statement due to statement timeout")
	}
	return pgerror.New(pgerror.QueryCanceled, "canceling statement due to user request")
}

// sleepFunc evaluates pg_sleep (seconds), pg_sleep_for (an interval) and
// pg_sleep_until (a timestamptz) over a non-NULL argument: it waits, or
// stops with the statement (a cancel request, statement_timeout), and
// returns void, which kvsql gives as empty text.
func sleepFunc(env *Env, name string, arg types.Datum) (types.Datum, error) {
	var d time.Duration
	switch name {
	case "pg_sleep":
		secs := arg.F
		if arg.Kind == types.KindInt {
			secs = float64(arg.I)
		}
		d = secondsDuration(secs)
	case "pg_sleep_for":
		iv := arg.Interval()
		// A month is 30 days here; PostgreSQL adds it to the clock.
		secs := float64(iv.Months)*30*86400 + float64(iv.Days)*86400 + float64(iv.Micros)/1e6
		d = secondsDuration(secs)
	default: // pg_sleep_until
		d = time.Until(time.UnixMicro(arg.I))
		if arg.I == math.MaxInt64 { // 'infinity'
			d = math.MaxInt64
		}
	}
	if d <= 0 {
		return types.NewText(""), nil
	}
	ctx := env.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return types.NewText(""), nil
	case <-ctx.Done():
		return types.Null, CancelError(ctx)
	}
}

// secondsDuration converts seconds to a duration, NaN and negative ones
// to none and those past a duration's range to the longest.
func secondsDuration(secs float64) time.Duration {
	switch {
	case math.IsNaN(secs) || secs <= 0:
		return 0
	case secs >= float64(math.MaxInt64)/1e9:
		return math.MaxInt64
	}
	return time.Duration(secs * 1e9)
}
