package etcd

import (
	"context"
	"errors"
	"fmt"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
)

// unavailable is the error of a request the cluster did not serve: 08006,
// as PostgreSQL reports a lost connection to its storage.
func unavailable(what string, err error) error {
	return &pgerror.Error{Code: pgerror.ConnectionFailure,
		Message: fmt.Sprintf("etcd: %s: the cluster is unavailable: %v", what, err)}
}

// readError is the error of a failed read.
func readError(err error) error {
	if isCompacted(err) {
		return pgerror.Newf(pgerror.SnapshotTooOld, "etcd: the snapshot's revision was compacted away: %v", err)
	}
	return unavailable("read", err)
}

func isCompacted(err error) bool { return errors.Is(err, rpctypes.ErrCompacted) }

// commitOutcome says what a failed commit request means.
type commitOutcome int

const (
	// refused: the cluster answered and did not apply the request.
	refused commitOutcome = iota
	// unknown: the request may have been applied (timeout, lost
	// connection after sending).
	unknown
)

// commitError classifies a failed commit Txn and builds the error Commit
// returns. Every error it builds wraps kv.ErrNotCommitted: the engine stays
// usable (an unknown outcome is settled by the next commit).
func commitError(err error) (commitOutcome, error) {
	wrap := func(code pgerror.Code, format string, args ...any) error {
		return fmt.Errorf("%w%w", &pgerror.Error{Code: code, Message: fmt.Sprintf(format, args...)}, notCommitted{})
	}
	switch {
	case errors.Is(err, rpctypes.ErrTooManyOps):
		return refused, wrap(pgerror.ProgramLimitExceeded,
			"etcd: the transaction writes more keys than the cluster accepts in one Txn (etcd --max-txn-ops, 128 by default): raise --max-txn-ops on every member, or write in smaller transactions")
	case errors.Is(err, rpctypes.ErrRequestTooLarge) || status.Code(err) == codes.ResourceExhausted:
		return refused, wrap(pgerror.ProgramLimitExceeded,
			"etcd: the transaction is larger than the cluster accepts in one request (etcd --max-request-bytes, 1.5 MiB by default): raise --max-request-bytes on every member, or write in smaller transactions (%v)", err)
	case errors.Is(err, rpctypes.ErrNoSpace):
		return refused, wrap(pgerror.DiskFull,
			"etcd: the cluster's backend is full (etcd --quota-backend-bytes): compact and defragment it, or raise the quota, then disarm the NOSPACE alarm (etcdctl alarm disarm)")
	case errors.Is(err, rpctypes.ErrNoLeader) || errors.Is(err, rpctypes.ErrGRPCNoLeader):
		return refused, wrap(pgerror.ConnectionFailure,
			"etcd: the cluster has no leader (a majority of its members is down): the transaction was not committed")
	case errors.Is(err, rpctypes.ErrDuplicateKey):
		return refused, fmt.Errorf("etcd: commit refused: %w%w", err, notCommitted{})
	}
	if s, ok := status.FromError(err); ok && s.Code() == codes.Unavailable && !errors.Is(err, context.DeadlineExceeded) {
		// No member reachable, or a connection lost: gRPC does not say
		// whether the request left, so the outcome is unknown (the fence
		// settles it).
		return unknown, wrap(pgerror.ConnectionFailure,
			"etcd: the cluster is unreachable; whether the transaction committed is not known yet: %v", err)
	}
	return unknown, wrap(pgerror.ConnectionFailure,
		"etcd: the cluster did not answer; whether the transaction committed is not known: %v", err)
}

// notCommitted makes errors.Is(err, kv.ErrNotCommitted) true.
type notCommitted struct{}

func (notCommitted) Error() string        { return "" }
func (notCommitted) Is(target error) bool { return target == kv.ErrNotCommitted }
