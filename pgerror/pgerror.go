// Package pgerror is kvsql's error taxonomy: every error a user can cause
// carries a PostgreSQL SQLSTATE code, so the wire server reports it without
// guessing and tests check it with errors.As.
//
// Create errors with New or Newf and a Code; wrap them with %w as usual.
// CodeOf finds the code anywhere in a wrapped chain, and returns
// Internal (XX000) for an error that carries none.
package pgerror

import (
	"errors"
	"fmt"
)

// Code is a five-character SQLSTATE.
type Code string

// The codes kvsql raises. Names follow PostgreSQL's errcodes.txt.
const (
	SuccessfulCompletion       Code = "00000"
	Warning                    Code = "01000"
	FeatureNotSupported        Code = "0A000"
	InvalidTransactionState    Code = "25000"
	ActiveSQLTransaction       Code = "25001"
	NoActiveSQLTransaction     Code = "25P01"
	IdleInTransactionTimeout   Code = "25P03"
	DuplicateCursor            Code = "42P03"
	DuplicatePreparedStatement Code = "42P05"
	InvalidSQLStatementName    Code = "26000"
	InvalidCursorName          Code = "34000"
	InvalidCursorState         Code = "24000"
	InFailedSQLTransaction     Code = "25P02"
	ReadOnlySQLTransaction     Code = "25006"
	SerializationFailure       Code = "40001"
	DeadlockDetected           Code = "40P01"
	SyntaxError                Code = "42601"
	UndefinedTable             Code = "42P01"
	UndefinedColumn            Code = "42703"
	UndefinedFunction          Code = "42883"
	UndefinedObject            Code = "42704"
	WindowingError             Code = "42P20"
	AmbiguousColumn            Code = "42702"
	DuplicateTable             Code = "42P07"
	DuplicateObject            Code = "42710"
	DuplicateAlias             Code = "42712"
	DuplicateColumn            Code = "42701"
	DuplicateDatabase          Code = "42P04"
	InvalidTableDefinition     Code = "42P16"
	InvalidObjectDefinition    Code = "42P17"
	InvalidCatalogName         Code = "3D000"
	DatatypeMismatch           Code = "42804"
	GroupingError              Code = "42803"
	InvalidColumnReference     Code = "42P10"
	InvalidParameterValue      Code = "22023"
	CharacterNotInRepertoire   Code = "22021"
	UniqueViolation            Code = "23505"
	// ExclusionViolation is a row an exclusion constraint refuses.
	ExclusionViolation          Code = "23P01"
	NotNullViolation            Code = "23502"
	ForeignKeyViolation         Code = "23503"
	InvalidForeignKey           Code = "42830"
	CheckViolation              Code = "23514"
	InvalidTextRepresentation   Code = "22P02"
	InvalidBinaryRepresentation Code = "22P03"
	DivisionByZero              Code = "22012"
	NumericValueOutOfRange      Code = "22003"
	NullValueNotAllowed         Code = "22004"
	ArraySubscriptError         Code = "2202E"
	DataException               Code = "22000"
	InvalidPrecedingFollowing   Code = "22013"
	InvalidArgumentForNtile     Code = "22014"
	InvalidArgumentForNthValue  Code = "22016"
	StringDataRightTruncation   Code = "22001"
	InvalidDatetimeFormat       Code = "22007"
	InvalidEscapeSequence       Code = "22025"
	CardinalityViolation        Code = "21000"
	ProtocolViolation           Code = "08P01"
	ConnectionFailure           Code = "08006"
	TooManyConnections          Code = "53300"
	OutOfMemory                 Code = "53200"
	DiskFull                    Code = "53100"
	QueryCanceled               Code = "57014"
	LockNotAvailable            Code = "55P03"
	GeneratedAlways             Code = "428C9"
	AdminShutdown               Code = "57P01"
	InvalidPassword             Code = "28P01"
	InvalidAuthorizationSpec    Code = "28000"
	UndefinedParameter          Code = "42704"
	ObjectInUse                 Code = "55006"
	DependentObjectsStillExist  Code = "2BP01"
	WrongObjectType             Code = "42809"
	InvalidSchemaName           Code = "3F000"
	DuplicateSchema             Code = "42P06"
	InvalidSchemaDefinition     Code = "42P15"
	ReservedName                Code = "42939"
	// InsufficientPrivilege is "permission denied" and "must be owner";
	// InvalidGrantOperation a GRANT of a role to itself or in a cycle.
	InsufficientPrivilege Code = "42501"
	InvalidGrantOperation Code = "0LP01"
	ProgramLimitExceeded  Code = "54000"
	StatementTooComplex   Code = "54001"
	NameTooLong           Code = "42622"
	DataCorrupted         Code = "XX001"
	IOError               Code = "58030"
	SnapshotTooOld        Code = "72000"
	Internal              Code = "XX000"
	// ObjectNotInPrerequisiteState is currval/lastval before nextval.
	ObjectNotInPrerequisiteState Code = "55000"
	// SequenceGeneratorLimitExceeded is nextval past a sequence's bound.
	SequenceGeneratorLimitExceeded Code = "2200H"
	// InvalidFunctionDefinition, DuplicateFunction and AmbiguousFunction
	// are CREATE FUNCTION's and a call's errors about routines.
	InvalidFunctionDefinition Code = "42P13"
	DuplicateFunction         Code = "42723"
	AmbiguousFunction         Code = "42725"
	// StatementCompletionUnknown: the storage stopped answering during a
	// COMMIT, so whether it committed is not known (CockroachDB reports
	// its "result is ambiguous" with the same code).
	StatementCompletionUnknown Code = "40003"
	// WithCheckOptionViolation is a row written through a view that its
	// CHECK OPTION refuses.
	WithCheckOptionViolation Code = "44000"
)

// Error is an error with a SQLSTATE. Detail and Hint are optional and are
// sent to clients in the matching ErrorResponse fields. Position is a
// 1-based character offset into the query text, or 0.
type Error struct {
	Code     Code
	Message  string
	Detail   string
	Hint     string
	Position int
	// The object the error is about, sent in the ErrorResponse fields of
	// the same names where PostgreSQL sends them (drivers expose them:
	// pgconn.PgError.ConstraintName, psycopg2's e.diag.constraint_name,
	// node-postgres's e.constraint). Empty when not applicable.
	Schema, Table, Column, Constraint, DataType string
	// Where is the context the error arose in, one line per level,
	// innermost first (PostgreSQL's CONTEXT, ErrorResponse field W):
	// "COPY t, line 3, column a: \"x\"".
	Where string
	cause error
}

// WithContext returns err with line added as its outermost context
// (Where): a copy of err's *Error, whose code, message and fields it
// keeps, or a new internal error (XX000) wrapping an error without a
// code. err itself is not changed.
func WithContext(err error, line string) error {
	if err == nil {
		return nil
	}
	var pe *Error
	if !errors.As(err, &pe) {
		return &Error{Code: Internal, Message: err.Error(), Where: line, cause: err}
	}
	c := *pe
	if pe.Message != err.Error() {
		// An outer wrapper's text is the message the client sees.
		c.Message = err.Error()
	}
	if c.Where != "" {
		line = c.Where + "\n" + line
	}
	c.Where = line
	c.cause = err
	return &c
}

// OnTable records the schema and table err is about (kvsql's tables are
// in schema public) and returns e.
func (e *Error) OnTable(table string) *Error {
	e.Schema, e.Table = "public", table
	return e
}

func (e *Error) Error() string { return e.Message }

// Unwrap returns the error this one was made from, if any.
func (e *Error) Unwrap() error { return e.cause }

// New returns an error with code and message.
func New(code Code, msg string) *Error { return &Error{Code: code, Message: msg} }

// Newf returns an error with code and a formatted message. A %w verb in
// format wraps its argument as the cause.
func Newf(code Code, format string, args ...any) *Error {
	err := fmt.Errorf(format, args...)
	return &Error{Code: code, Message: err.Error(), cause: errors.Unwrap(err)}
}

// Wrap gives err a code, keeping err as the cause. If err already carries a
// code, that code wins and err is returned unchanged.
func Wrap(err error, code Code) error {
	if err == nil {
		return nil
	}
	var pe *Error
	if errors.As(err, &pe) {
		return err
	}
	return &Error{Code: code, Message: err.Error(), cause: err}
}

// CodeOf returns the SQLSTATE carried by err or anything it wraps, or
// Internal if none does.
func CodeOf(err error) Code {
	var pe *Error
	if errors.As(err, &pe) {
		return pe.Code
	}
	return Internal
}

// HasCode reports whether err carries code.
func HasCode(err error, code Code) bool { return err != nil && CodeOf(err) == code }
