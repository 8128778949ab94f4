package session

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
)

// A full disk, as the client sees it (kv/diskfull.go has the engine's
// side). Every write that cannot be made for lack of space fails with
// 53100 disk_full and PostgreSQL's wording, "could not extend file ...:
// No space left on device" with the hint "Check free disk space.":
//
//   - on a store opened on a full disk (read-only, kv.DiskFullError):
//     every write (DML, DDL, COPY FROM, COMMIT of a writing transaction,
//     nextval); reads work;
//   - on a running server, every write that would leave less free space
//     than the engine's reserve: nothing is written, and writes work
//     again once space is freed;
//   - on a running server whose write-ahead log write failed with
//     ENOSPC all the same (the reserve was eaten by something else):
//     that commit and every later one (DB.failed), until the server is
//     restarted; reads work.

// The hints of the 53100 errors: after a write was refused, and when
// only a restart helps.
const (
	diskFullHint        = "Check free disk space. Reads still work; writes work again once space is freed (see docs/operations.md, \"A full disk\")."
	diskFullRestartHint = "Check free disk space. Reads still work; writes are refused until space is freed and the server is restarted (see docs/operations.md, \"A full disk\")."
)

// refusedForSpace reports whether err is a write the engine refused for
// lack of space before writing anything (the store stays usable).
func refusedForSpace(err error) bool {
	var df *kv.DiskFullError
	return errors.As(err, &df) && !df.AtOpen
}

// DiskFull returns why the store opened read-only for lack of space, or
// nil.
func (db *DB) DiskFull() *kv.DiskFullError { return kv.DiskFullOf(db.eng) }

// diskFullErr is the 53100 a write gets on a store opened read-only on a
// full disk, or nil.
func (db *DB) diskFullErr() error {
	if d := db.DiskFull(); d != nil {
		return diskFullError("", d)
	}
	return nil
}

// ioError gives an engine I/O error its SQLSTATE: 53100 for a full disk
// (naming the file that could not grow), else 58030.
func ioError(err error) error {
	if err == nil || !kv.IsDiskFull(err) {
		return pgerror.Wrap(err, pgerror.IOError)
	}
	var file string
	if pe := (*os.PathError)(nil); errors.As(err, &pe) {
		file = pe.Path
	}
	return diskFullError(file, err)
}

// diskFullError is PostgreSQL's disk_full error for file, the file of
// the store that could not grow; "" when the engine refused the write
// before trying it (the message then names the data directory).
func diskFullError(file string, cause error) error {
	msg := fmt.Sprintf("could not extend file %q: No space left on device", filepath.Base(file))
	var df *kv.DiskFullError
	if file == "" && errors.As(cause, &df) {
		msg = fmt.Sprintf("could not extend file in data directory %q: No space left on device", filepath.Base(df.Dir))
	} else if file == "" {
		msg = "could not extend file: No space left on device"
	}
	e := pgerror.Newf(pgerror.DiskFull, "%s%w", msg, errMessageOnly{cause})
	e.Hint = diskFullRestartHint
	if refusedForSpace(cause) {
		e.Hint = diskFullHint
	}
	return e
}

// errMessageOnly makes an error the cause of a pgerror.Newf without
// adding its text to the message.
type errMessageOnly struct{ err error }

func (errMessageOnly) Error() string   { return "" }
func (e errMessageOnly) Unwrap() error { return e.err }
