package backend

import (
	"context"

	"github.com/kvsql/kvsql/types"
)

// Backend creates sessions; it is implemented by the kvsql engine.
//
// The server calls a Backend (and the Sessions, Statements and Results it
// returns) from one goroutine per connection: a Session is never used by
// two goroutines at once, but different Sessions run concurrently.
// A panic in any of these methods is recovered by the server, logged with
// its stack, and reported to that client only as an XX000 error.
type Backend interface {
	// NewSession is called once per connection after startup and
	// authentication succeeded; params are the startup parameters (user,
	// database, application_name, ...). An error (e.g. 3D000 unknown
	// database) is sent to the client as a FATAL ErrorResponse and the
	// connection is closed.
	NewSession(ctx context.Context, params map[string]string) (Session, error)
}

// Session is one client connection's state inside the engine: its
// settings and its transaction.
type Session interface {
	// Prepare parses and plans the statements in sql. A simple Query
	// message may hold several statements or none (the server then sends
	// EmptyQueryResponse); for a Parse message the server rejects more than
	// one with 42601. paramOIDs are the parameter types the client gave
	// (0 = infer); it is nil for simple queries and non-nil (perhaps
	// empty) for a Parse message.
	Prepare(ctx context.Context, sql string, paramOIDs []uint32) ([]Statement, error)
	// TxnStatus is 'I' idle, 'T' in a transaction block, 'E' in a failed
	// transaction block; the server sends it in ReadyForQuery.
	TxnStatus() byte
	// ChangedSettings returns the settings changed since the last call
	// (e.g. after SET application_name / TimeZone / DateStyle); the server
	// sends them as ParameterStatus messages before ReadyForQuery.
	ChangedSettings() map[string]string
	// Setting returns a session setting by name, "" when unknown. The
	// server reads statement_timeout (milliseconds, "0" or "" = none)
	// before each statement it executes.
	Setting(name string) string
	// Fail is called after the server has sent err to the client as the
	// outcome of a statement or of an extended-protocol message (Parse,
	// Bind, Describe, Execute: errors of parsing, planning, execution,
	// encoding a row, cancellation, a statement timeout). Inside a
	// transaction block the session must then enter the failed state
	// ('E'), as PostgreSQL does whatever layer the error came from.
	Fail(err error)
	// Close releases the session; an open transaction is rolled back. It is
	// called exactly once, when the connection ends.
	Close() error
}

// ImplicitTransactions is implemented by a Session that runs the
// statements of one Query message together, as PostgreSQL does (an
// implicit transaction block): the server calls BeginQuery before a
// Query message that holds several statements and EndQuery after it,
// with failed set when a statement failed (the rest were not run).
// EndQuery commits or rolls back what the block did; its error is the
// Query's.
type ImplicitTransactions interface {
	BeginQuery()
	EndQuery(failed bool) error
}

// Notification is one NOTIFY delivered to a listening session: the
// notifying backend's PID, the channel and the payload.
type Notification struct {
	PID     uint32
	Channel string
	Payload string
}

// Listener is implemented by a Session that supports LISTEN. The server
// sends the session's notifications (NotificationResponse) before each
// ReadyForQuery and, while the connection idles outside a transaction
// block, as they arrive.
type Listener interface {
	// Notifications returns the notifications not yet sent, and forgets
	// them.
	Notifications() []Notification
	// Listening reports whether the session listens on any channel.
	Listening() bool
	// SetWaker registers wake, which the session calls, from any
	// goroutine, when a notification arrives for it.
	SetWaker(wake func())
}

// Deallocator is implemented by a Session whose DEALLOCATE ALL (and
// DISCARD ALL) drops the connection's protocol-level prepared statements
// too, as PostgreSQL's does: before each ReadyForQuery the server asks
// whether one ran since it last asked.
type Deallocator interface {
	DeallocatedAll() bool
}

// Statement is one prepared statement. The server keeps it for as long as
// the client keeps the prepared statement (or portal) open and may execute
// it many times.
type Statement interface {
	// ParamOIDs are the parameter types after inference; the length is
	// the number of $n placeholders.
	ParamOIDs() []uint32
	// Columns describes the result columns; nil when the statement returns
	// no rows. It must be valid before Execute (Describe uses it).
	Columns() []Column
	// Execute runs the statement. params hold one Datum per parameter,
	// already decoded by the server to the parameter's type (a text-format
	// parameter whose OID is unknown/0 arrives as types.NewText with the
	// raw text). The server cancels ctx on CancelRequest and when
	// statement_timeout expires; the cause is then a 57014 *pgerror.Error.
	Execute(ctx context.Context, params []types.Datum) (Result, error)
	// Copy is non-nil for COPY ... FROM STDIN / TO STDOUT; the server then
	// runs the copy sub-protocol itself instead of calling Execute.
	Copy() *CopySpec
}

// Column describes one result column in RowDescription.
type Column struct {
	Name     string
	Type     types.T
	TableOID uint32 // 0 when the column is not a plain table column
	Attr     int16  // the column's attribute number in TableOID, or 0
}

// Result is the row stream of one execution. The server calls Next/Row
// until Next returns false, then Err, Tag and Close. With a row limit
// (Execute with MaxRows) the server stops early and resumes the same Result
// on the next Execute of the portal. Close is always called exactly once,
// also when the stream is abandoned.
type Result interface {
	// Next advances to the next row; false at the end or on error.
	Next() bool
	// Row is the current row; the server encodes it before calling Next
	// again, so the slice may be reused by the Result.
	Row() []types.Datum
	// Err is the error that ended the stream, if any.
	Err() error
	// Close releases the result's resources.
	Close() error
	// Tag is the complete CommandComplete tag ("SELECT 5", "INSERT 0 3",
	// "CREATE TABLE", ...), valid once Next has returned false.
	Tag() string
}

// RowLender is implemented by a Result that can lend its rows: after
// LendRows, the bytes behind the strings of the Datums Row returns may be
// reused by the Result on the next call to Next (they alias its batches
// instead of being copied for each row). The server calls LendRows
// before the first Next of a portal it streams to the client, because it
// encodes each row before asking for the next and keeps nothing of it;
// a caller that keeps rows (collecting them in memory) must not.
type RowLender interface {
	LendRows()
}

// CopySpec describes a COPY ... FROM STDIN or COPY ... TO STDOUT statement.
//
// Atomicity: for COPY FROM the server calls Insert once per batch of up
// to CopyBatchRows rows, all inside the same Execute-less statement; a
// malformed row fails the COPY before its batch is passed to Insert. The
// engine makes the whole COPY atomic by running it in one transaction (an
// implicit one outside a transaction block); the server never assumes that
// earlier batches survive a later error.
type CopySpec struct {
	In        bool   // FROM STDIN (else TO STDOUT)
	Format    string // "text", "csv" or "binary"
	Delimiter string // one character; default tab (text) or comma (csv)
	Null      string // the NULL marker; default \N (text) or "" (csv)
	NullSet   bool   // Null was given: an empty Null is then the empty string
	Header    bool   // a header line (skipped on input, written on output)
	// HeaderMatch (In, with Header): the header line must name Columns
	// in order (22P04 otherwise).
	HeaderMatch bool
	// Quote and Escape are CSV's quote and escape characters: one byte
	// each; "" means '"' and the quote.
	Quote, Escape string
	// CSV only, one entry per column of Columns (nil: none):
	// ForceQuote quotes every non-NULL value on output; on input
	// ForceNotNull reads an unquoted NULL string as that string and
	// ForceNull reads a quoted one as NULL.
	ForceQuote, ForceNotNull, ForceNull []bool
	Columns                             []Column
	// Insert stores decoded rows (In) and returns how many it stored
	// (fewer than len(rows) when COPY FROM ... WHERE filters some out).
	// It is called with batches of up to CopyBatchRows rows; Insert must
	// not retain the rows' slices after it returns (the Datums it may
	// copy): the server reuses their memory for the next batch.
	Insert func(ctx context.Context, rows [][]types.Datum) (int64, error)
	// Rows produces the rows to send (!In). Result.Tag is ignored: the
	// server tags the command "COPY n".
	Rows func(ctx context.Context) (Result, error)
	// Table is the name of the table a COPY FROM writes, for the
	// CONTEXT of its errors ("COPY t, line 3").
	Table string
	// Finish, if set, is called once when a COPY FROM STDIN ends: with nil
	// after the last Insert succeeded (the engine commits), or with the
	// error that ended it (the engine rolls back). Its error, if any, is
	// the COPY's.
	Finish func(ctx context.Context, err error) error
	// Progress, if set, is told of the bytes of each CopyData message the
	// server reads (In) or sends, and of the rows Insert stored or the
	// server sent (pg_stat_progress_copy).
	Progress func(bytes, rows int64)
}

// CopyBatchRows is the most rows the server passes to one CopySpec.Insert.
const CopyBatchRows = 1000

// CopyRowError is what CopySpec.Insert returns when writing one row of
// its batch failed: Row is the row's position in the batch, and the
// server adds PostgreSQL's CONTEXT line for the row's line of input —
// with the line's text unless NoText (PostgreSQL shows it for the
// errors of a row being read, not for those of its buffered write,
// such as a unique violation).
type CopyRowError struct {
	Row    int
	NoText bool
	Err    error
}

func (e *CopyRowError) Error() string { return e.Err.Error() }

// Unwrap returns the row's error.
func (e *CopyRowError) Unwrap() error { return e.Err }

// Noticer is implemented by a Session that raises notices: warnings and
// notes for the client that are not errors (PostgreSQL's WARNING and
// NOTICE). The server takes them after each statement's rows (and each
// Execute step) and before ReadyForQuery, and sends each as a
// NoticeResponse.
type Noticer interface {
	// Notices returns the notices raised since the last call, oldest
	// first, and forgets them.
	Notices() []Notice
}

// Notice is one notice: Severity is "WARNING" or "NOTICE"; Err carries
// the SQLSTATE (01000 for a plain warning, 00000 for a notice), message,
// detail and hint, as a *pgerror.Error does.
type Notice struct {
	Severity string
	Err      error
}
