package eval

import (
	"context"
	"github.com/cockroachdb/apd/v3"
	"net"
	"time"

	"github.com/kvsql/kvsql/pgerror"
	"github.com/kvsql/kvsql/planner"
	"github.com/kvsql/kvsql/types"
)

// Env is what evaluation needs besides the row. One Env serves one
// statement execution; it is not safe for concurrent use because it carries
// the caches of compiled LIKE and regular-expression patterns. Copying an
// Env (for example to push a row onto Outer for a subquery) shares those
// caches, which is intended.
type Env struct {
	Ctx context.Context
	// Params holds the statement's parameters: $1 is Params[0].
	Params []types.Datum
	// Outer holds the rows of enclosing queries, innermost LAST:
	// ColRef{Outer: 1} reads Outer[len(Outer)-1].
	Outer [][]types.Datum
	// Subquery evaluates sq for the current row. Package exec sets it
	// (eval cannot run plans); Eval fails with an internal error for a
	// *planner.Subquery node when it is nil.
	Subquery func(env *Env, sq *planner.Subquery, row []types.Datum) (types.Datum, error)
	// Now is the statement timestamp returned by now(), current_timestamp
	// and current_date.
	Now time.Time
	// StmtNow is the statement's start (statement_timestamp()); zero
	// means Now.
	StmtNow time.Time
	// Loc is the session's time zone (the timezone setting): timestamptz
	// values are shown and taken apart in it. nil means UTC.
	Loc *time.Location
	// IntervalStyle is the IntervalStyle setting: how a cast to text
	// shows an interval.
	IntervalStyle types.IntervalStyle
	// FloatDigits is the extra_float_digits setting as Style's
	// FloatDigits: how a cast to text shows a float.
	FloatDigits int
	// Database, User and BackendPID answer current_database(),
	// current_user/session_user and pg_backend_pid(); empty names read as
	// "kvsql".
	Database, User string
	BackendPID     int32
	// SessionUser answers session_user ("" reads as User); RoleName
	// names a role's OID for pg_get_userbyid (nil: OID 10 is User).
	SessionUser string
	RoleName    func(oid int64) string
	// Privilege answers has_table_privilege, has_schema_privilege,
	// has_sequence_privilege and pg_has_role from their arguments (nil:
	// true).
	Privilege func(fn string, args []types.Datum) (bool, error)
	// Seq runs nextval, currval, setval and lastval and reads a
	// sequence's state; nil makes them fail (0A000).
	Seq Sequences
	// Backends runs pg_cancel_backend and pg_terminate_backend; nil
	// makes them fail (0A000).
	Backends Backends
	// MaxValueSize caps the bytes of one value a function or operator
	// builds (repeat, lpad, ||, concat, string_agg, json building, ...):
	// past it the expression fails with 54000 before or right after the
	// value is built. <= 0 means DefaultMaxValueSize.
	MaxValueSize int64
	// Settings reads and changes the session's run-time parameters for
	// current_setting and set_config; nil makes them fail (0A000).
	Settings Settings
	// Routines runs user-defined SQL functions; nil makes their calls
	// fail (0A000).
	Routines Routines
	// Advisory takes and releases advisory locks (pg_advisory_lock and
	// the like); nil makes them fail (0A000).
	Advisory Advisory
	// Server answers pg_postmaster_start_time and the transaction id
	// functions; nil makes them fail (0A000).
	Server Server

	cache *patternCache
}

// Backends is what pg_cancel_backend and pg_terminate_backend need from
// the server: its sessions by process ID.
type Backends interface {
	// Cancel cancels the running statement of session pid; false when no
	// session has that pid.
	Cancel(pid int32) bool
	// Terminate ends session pid's connection; false when no session has
	// that pid, or it was still there after timeout (0: do not wait).
	Terminate(pid int32, timeout time.Duration) bool
}

// Server is what the functions about the server and the transaction
// need from the session.
type Server interface {
	// StartTime is when the store was opened (pg_postmaster_start_time).
	StartTime() time.Time
	// XactID is the transaction's id (txid_current), given it now if
	// assign; ok is false when it has none and !assign
	// (txid_current_if_assigned).
	XactID(assign bool) (id int64, ok bool)
	// Notify sends a notification (pg_notify): at the transaction's
	// commit, or at once outside a transaction block.
	Notify(channel, payload string) error
	// TriggerDepth is how many triggers are running (pg_trigger_depth).
	TriggerDepth() int
	// ConnAddrs are the connection's server and client ends
	// (inet_server_addr, inet_client_port); nil in process.
	ConnAddrs() (server, client net.Addr)
}

// DefaultMaxValueSize is the value cap when Env.MaxValueSize is not set.
// PostgreSQL's is 1 GB; kvsql holds a value as a Go string that is copied
// on its way to the client (row encoding, write buffer), so a quarter of
// that keeps the memory of one value near PostgreSQL's bound.
const DefaultMaxValueSize = 256 << 20

func (env *Env) maxValueSize() int64 {
	if env.MaxValueSize > 0 {
		return env.MaxValueSize
	}
	return DefaultMaxValueSize
}

// Sequences is what the sequence functions need from the session: a
// sequence is named by ref, a text name or a regclass OID (bigint).
type Sequences interface {
	NextVal(ref types.Datum) (int64, error)
	CurrVal(ref types.Datum) (int64, error)
	SetVal(ref types.Datum, v int64, isCalled bool) (int64, error)
	LastVal() (int64, error)
	// State is the counter as SELECT * FROM seq shows it.
	State(ref types.Datum) (last, logCnt int64, isCalled bool, err error)
}

// Routines is what calls of user-defined SQL functions need from the
// session. id is the function's OID, args its argument values and
// argTypes their types (the declared ones, polymorphic ones resolved).
type Routines interface {
	// Call returns the value of a scalar call, converted to ret.
	Call(id uint64, argTypes []types.T, args []types.Datum, ret types.T) (types.Datum, error)
	// Rows returns the rows of a call in FROM, each converted to cols.
	Rows(id uint64, argTypes []types.T, args []types.Datum, cols []types.T) ([][]types.Datum, error)
}

// Settings is what current_setting and set_config need from the
// session. Set validates the value as SET does (errors carry SQLSTATEs)
// and returns the parameter's new value as SHOW prints it.
type Settings interface {
	Get(name string) (value string, ok bool)
	Set(name, value string, isLocal bool) (string, error)
}

// Value is Eval with a column of the current row read in place: small
// enough to inline, for the per-row loops of projections, grouping and
// aggregation, where most expressions are plain columns.
func Value(env *Env, e planner.Expr, row []types.Datum) (types.Datum, error) {
	if c, ok := e.(*planner.ColRef); ok && c.Outer == 0 && c.Index < len(row) {
		return row[c.Index], nil
	}
	return Eval(env, e, row)
}

// Eval computes e over row. It never panics on user input: every failure
// a query can cause is returned as a *pgerror.Error with its SQLSTATE. The
// returned Datum does not alias row except for text it copied by value
// (Datums are immutable, so sharing is safe).
func Eval(env *Env, e planner.Expr, row []types.Datum) (types.Datum, error) {
	switch e := e.(type) {
	case *planner.Const:
		return e.Value, nil
	case *planner.ColRef:
		return evalColRef(env, e, row)
	case *planner.Param:
		if e.N < 1 || e.N > len(env.Params) {
			return types.Null, pgerror.Newf(pgerror.UndefinedParameter, "there is no parameter $%d", e.N)
		}
		return env.Params[e.N-1], nil
	case *planner.BinOp:
		return evalBinOp(env, e, row)
	case *planner.UnaryOp:
		return evalUnary(env, e, row)
	case *planner.And:
		return evalAnd(env, e, row)
	case *planner.Or:
		return evalOr(env, e, row)
	case *planner.IsNull:
		x, err := Eval(env, e.X, row)
		if err != nil {
			return types.Null, err
		}
		if x.Kind == types.KindRecord {
			return recordIsNull(x, e.Not)
		}
		return types.NewBool(x.IsNull() != e.Not), nil
	case *planner.IsBool:
		x, err := Eval(env, e.X, row)
		if err != nil {
			return types.Null, err
		}
		is := x.Kind == types.KindBool && x.Bool() == e.Value
		return types.NewBool(is != e.Not), nil
	case *planner.In:
		return evalIn(env, e, row)
	case *planner.Like:
		return evalLike(env, e, row)
	case *planner.Case:
		return evalCase(env, e, row)
	case *planner.Cast:
		x, err := Eval(env, e.X, row)
		if err != nil {
			return types.Null, err
		}
		if env != nil && e.T.Kind() == types.KindText && env.styled(x, e.X.Type()) {
			// A value shown in the session's IntervalStyle or with its
			// extra_float_digits.
			v := castToText(types.NewText(string(AppendTextStyle(nil, x, e.X.Type(), env.style()))), types.T{Family: types.Text}, e.T)
			if e.Domain != nil {
				return v, CheckDomainValue(env, e.Domain, v)
			}
			return v, nil
		}
		if e.Domain != nil {
			return checkDomain(env, e.Domain, x, e.X.Type(), e.T)
		}
		return CastFromIn(x, e.X.Type(), e.T, env.loc())
	case *planner.Func:
		d, err := evalFunc(env, e, row)
		if err == nil && int64(len(d.S)) > env.maxValueSize() {
			return types.Null, tooLarge()
		}
		return d, err
	case *planner.Subquery:
		if env.Subquery == nil {
			return types.Null, pgerror.New(pgerror.Internal, "eval: subquery evaluation is not available (Env.Subquery is nil)")
		}
		return env.Subquery(env, e, row)
	case nil:
		return types.Null, pgerror.New(pgerror.Internal, "eval: nil expression")
	}
	return types.Null, pgerror.Newf(pgerror.Internal, "eval: unsupported expression node %T", e)
}

// EvalBool evaluates a predicate for WHERE, ON and HAVING: it reports true
// only for TRUE; NULL and FALSE are both false. A non-boolean value is a
// 42804 error.
func EvalBool(env *Env, e planner.Expr, row []types.Datum) (bool, error) {
	switch e := e.(type) {
	case *planner.BinOp:
		if v, ok := fastCompare(env, e, row); ok {
			return v, nil
		}
	case *planner.And:
		// TRUE only if every argument is TRUE. A filter's conjuncts are
		// PostgreSQL's qual list, which ExecQual stops at the first
		// FALSE or NULL: a row is rejected without evaluating the rest
		// (unlike AND inside an expression, evalLogic, which evaluates
		// past a NULL for its errors).
		for _, a := range e.Args {
			v, err := evalTruth(env, a, row, "AND")
			if err != nil || v != truthTrue {
				return false, err
			}
		}
		return true, nil
	}
	d, err := Eval(env, e, row)
	if err != nil {
		return false, err
	}
	switch d.Kind {
	case types.KindBool:
		return d.Bool(), nil
	case types.KindNull:
		return false, nil
	}
	return false, pgerror.Newf(pgerror.DatatypeMismatch, "argument of WHERE must be type boolean, not type %s", e.Type())
}

func evalColRef(env *Env, e *planner.ColRef, row []types.Datum) (types.Datum, error) {
	if e.Outer > 0 {
		i := len(env.Outer) - e.Outer
		if i < 0 {
			return types.Null, pgerror.Newf(pgerror.Internal, "eval: outer reference %s to level %d but only %d enclosing rows", e.Name, e.Outer, len(env.Outer))
		}
		row = env.Outer[i]
	}
	if e.Index < 0 || e.Index >= len(row) {
		return types.Null, pgerror.Newf(pgerror.Internal, "eval: column %s (index %d) outside a row of %d columns", e.Name, e.Index, len(row))
	}
	return row[e.Index], nil
}

// evalAnd is n-ary AND with three-valued logic: FALSE wins, then NULL.
// It stops at the first FALSE without evaluating the rest.
func evalAnd(env *Env, e *planner.And, row []types.Datum) (types.Datum, error) {
	return evalLogic(env, e.Args, row, false, "AND")
}

// evalOr is n-ary OR with three-valued logic: TRUE wins, then NULL.
func evalOr(env *Env, e *planner.Or, row []types.Datum) (types.Datum, error) {
	return evalLogic(env, e.Args, row, true, "OR")
}

// evalLogic evaluates args until one is the deciding value (FALSE for
// AND, TRUE for OR); without one the result is NULL if any argument was
// NULL, else the other value.
func evalLogic(env *Env, args []planner.Expr, row []types.Datum, decisive bool, op string) (types.Datum, error) {
	sawNull := false
	for _, a := range args {
		d, err := Eval(env, a, row)
		if err != nil {
			return types.Null, err
		}
		switch d.Kind {
		case types.KindNull:
			sawNull = true
		case types.KindBool:
			if d.Bool() == decisive {
				return d, nil
			}
		default:
			return types.Null, notBoolean(op, a)
		}
	}
	if sawNull {
		return types.Null, nil
	}
	return types.NewBool(!decisive), nil
}

func notBoolean(op string, a planner.Expr) error {
	return pgerror.Newf(pgerror.DatatypeMismatch, "argument of %s must be type boolean, not type %s", op, a.Type())
}

// evalIn is x [NOT] IN (list) with SQL's NULL rules.
func evalIn(env *Env, e *planner.In, row []types.Datum) (types.Datum, error) {
	x, err := Eval(env, e.X, row)
	if err != nil || x.IsNull() {
		return types.Null, err
	}
	if len(e.List) >= minInSet {
		if set := env.inSetFor(e); set.ok {
			if d, ok := set.probe(x, e.Not); ok {
				return d, nil
			}
		}
	}
	sawNull := false
	for _, item := range e.List {
		d, err := Eval(env, item, row)
		if err != nil {
			return types.Null, err
		}
		if d.IsNull() {
			sawNull = true
			continue
		}
		c, err := compareSQL(x, d)
		if err != nil {
			return types.Null, err
		}
		if c == 0 {
			return types.NewBool(!e.Not), nil
		}
	}
	if sawNull {
		return types.Null, nil
	}
	return types.NewBool(e.Not), nil
}

// evalCase evaluates the arms in order and only the chosen result.
func evalCase(env *Env, e *planner.Case, row []types.Datum) (types.Datum, error) {
	var operand types.Datum
	if e.Operand != nil {
		var err error
		if operand, err = Eval(env, e.Operand, row); err != nil {
			return types.Null, err
		}
	}
	for _, w := range e.Whens {
		c, err := Eval(env, w.Cond, row)
		if err != nil {
			return types.Null, err
		}
		var hit bool
		if e.Operand != nil {
			if !operand.IsNull() && !c.IsNull() {
				cmp, err := compareSQL(operand, c)
				if err != nil {
					return types.Null, err
				}
				hit = cmp == 0
			}
		} else {
			hit = c.Kind == types.KindBool && c.Bool()
		}
		if hit {
			return evalTo(env, w.Val, row, e.T)
		}
	}
	if e.Else == nil {
		return types.Null, nil
	}
	return evalTo(env, e.Else, row, e.T)
}

// evalTo evaluates x and, when it is an int and t is a float family,
// promotes it (the planner may leave int and float arms side by side).
func evalTo(env *Env, x planner.Expr, row []types.Datum, t types.T) (types.Datum, error) {
	d, err := Eval(env, x, row)
	if err != nil {
		return d, err
	}
	return promote(d, t), nil
}

// promote converts a number to t's number kind where the planner leaves
// arms of mixed number types side by side: an int to a float or a
// numeric, a numeric to a float.
func promote(d types.Datum, t types.T) types.Datum {
	switch {
	case d.Kind == types.KindInt && t.Kind() == types.KindFloat:
		return types.NewFloat(float64(d.I))
	case d.Kind == types.KindDecimal && t.Kind() == types.KindFloat:
		return types.NewFloat(decimalFloat(d))
	case d.Kind == types.KindInt && t.Family == types.Numeric:
		var x apd.Decimal
		x.SetInt64(d.I)
		return types.NewDecimal(&x)
	}
	return d
}

// recordIsNull is row IS NULL (not false) or IS NOT NULL (not true) as
// the SQL standard has it: true when every field is NULL, or every field
// is not NULL; ROW(1, NULL) is neither.
func recordIsNull(x types.Datum, not bool) (types.Datum, error) {
	fields, err := types.RecordFields(nil, x)
	if err != nil {
		return types.Null, pgerror.New(pgerror.Internal, "corrupt record")
	}
	for _, f := range fields {
		if f.IsNull() == not {
			return types.NewBool(false), nil
		}
	}
	return types.NewBool(true), nil
}
