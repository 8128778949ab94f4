package encoding

import (
	"errors"

	"github.com/kvsql/kvsql/pgerror"
)

// ErrCorrupt is wrapped by every error a decoder returns for bytes that are
// not a valid encoding: truncated values, unknown tags, non-canonical forms.
// Such errors also carry SQLSTATE XX001 (pgerror.DataCorrupted), so the wire
// server reports them as PostgreSQL reports a damaged page. Test with
// errors.Is(err, ErrCorrupt).
var ErrCorrupt = errors.New("data corrupted")

// corruptf returns an XX001 error wrapping ErrCorrupt. It is only called on
// the failure path, so its allocations do not matter.
func corruptf(format string, args ...any) error {
	return pgerror.Newf(pgerror.DataCorrupted, "encoding: "+format+": %w", append(args, ErrCorrupt)...)
}
