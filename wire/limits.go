package wire

import (
	"fmt"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/kvsql/kvsql/pgerror"
)

// statementTimeout reads the session's statement_timeout: a number of
// milliseconds, or a number with a unit (ms, s, min, h) as SET accepts it;
// "0", "" or anything unreadable means no timeout.
//
// A session that answers StatementTimeout itself (the kvsql session, from
// its parsed settings) is asked that instead: no text per statement.
func (c *conn) statementTimeout() time.Duration {
	if st, ok := c.sess.(interface{ StatementTimeout() time.Duration }); ok {
		var d time.Duration
		c.guard("Session.StatementTimeout", func() error { d = st.StatementTimeout(); return nil })
		return d
	}
	var v string
	c.guard("Session.Setting", func() error {
		v = c.sess.Setting("statement_timeout")
		return nil
	})
	return parseTimeout(v)
}

// idleInTransactionTimeout is how long the client may keep a transaction
// open without sending anything (idle_in_transaction_session_timeout), or
// 0 when it is not in a transaction or there is no limit.
func (c *conn) idleInTransactionTimeout() time.Duration {
	var v string
	inTxn := false
	c.guard("Session.Setting", func() error {
		// Asked before every read: the setting only when it matters.
		if inTxn = c.sess.TxnStatus() != 'I'; inTxn {
			v = c.sess.Setting("idle_in_transaction_session_timeout")
		}
		return nil
	})
	if !inTxn {
		return 0
	}
	return parseTimeout(v)
}

func parseTimeout(v string) time.Duration {
	v = strings.TrimSpace(strings.Trim(strings.TrimSpace(v), "'"))
	if v == "" {
		return 0
	}
	if ms, err := strconv.ParseInt(v, 10, 64); err == nil {
		if ms <= 0 {
			return 0
		}
		return time.Duration(ms) * time.Millisecond
	}
	units := []struct {
		suffix string
		d      time.Duration
	}{{"ms", time.Millisecond}, {"min", time.Minute}, {"s", time.Second}, {"h", time.Hour}}
	for _, u := range units {
		if num, ok := strings.CutSuffix(v, u.suffix); ok {
			n, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
			if err != nil || n <= 0 {
				return 0
			}
			return time.Duration(n * float64(u.d))
		}
	}
	return 0
}

// guard runs a call into the Backend. A panic becomes an XX000 error for
// this client only and is logged with its stack; the server keeps running.
func (c *conn) guard(what string, fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("wire: panic in backend", "call", what, "panic", r, "stack", stack())
			err = pgerror.Newf(pgerror.Internal, "internal error in %s: %s", what, fmt.Sprint(r))
		}
	}()
	return fn()
}

func stack() string { return string(debug.Stack()) }
