package tikv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	tikverr "github.com/tikv/client-go/v2/error"
	"github.com/tikv/client-go/v2/oracle"
	"github.com/tikv/client-go/v2/txnkv/transaction"

	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
)

// ownerTTL is how long a claim lasts without renewal: how long a store
// stays claimed after its server died without closing the engine. The
// holder renews it every ownerTTL/3. Time is PD's (the physical part of
// a TSO timestamp), so the servers' clocks do not matter.
const ownerTTL = 10 * time.Second

var _ kv.Claimer = (*Engine)(nil)

// ownerKey is the key naming the engine that claimed the store: just past
// every key of the prefix (the prefix incremented, then "owner"), so no
// kvsql key can be it. A store with that prefix (DefaultPrefix's is
// "kvsql\x01") would own it: such prefixes are not for other stores.
func (e *Engine) ownerKey() []byte { return append(append([]byte(nil), e.end...), "owner"...) }

// owner is a parsed owner value: "ID EXPIRY_MS WHO".
type owner struct {
	id     string
	expiry int64 // PD physical milliseconds
	who    string
}

func parseOwner(v []byte) owner {
	f := strings.SplitN(string(v), " ", 3)
	o := owner{id: f[0]}
	if len(f) > 1 {
		o.expiry, _ = strconv.ParseInt(f[1], 10, 64)
	}
	if len(f) > 2 {
		o.who = f[2]
	}
	return o
}

// Claim implements kv.Claimer: it makes this engine the store's only
// writer by writing the owner key (its id and an expiry in PD's time) in
// a transaction, renewed in the background until Close. A store claimed
// by another engine whose claim has not expired is refused with 55006.
//
// Every commit then reads the owner key and writes it back in its own
// transaction, so it fails (not retried) if another engine holds the
// claim, and a claim committed concurrently conflicts with it: a claim
// that lapsed (its server cut off from PD for longer than ownerTTL) and
// was taken by another server cannot let both write.
func (e *Engine) Claim() error {
	e.owner.Lock()
	defer e.owner.Unlock()
	return e.claimLocked()
}

// REQUIRES: owner held.
func (e *Engine) claimLocked() error {
	if e.closed.Load() {
		return kv.ErrClosed
	}
	if e.owner.lost != nil {
		return e.owner.lost
	}
	if e.owner.stop != nil {
		return nil
	}
	if err := e.writeClaim(false); err != nil {
		return err
	}
	stop, done := make(chan struct{}), make(chan struct{})
	e.owner.stop, e.owner.done = stop, done
	go e.renew(stop, done)
	return nil
}

// writeClaim writes this engine's claim, with a fresh expiry, unless
// another engine's claim holds. A write conflict (two claims at once) is
// retried: the loser then reads the winner's claim. A renewal writes only
// over this engine's own claim: one found gone or another engine's (even
// expired) means the claim was lost (errClaimLost), for good: the other
// server may have written, and this one's commit log and catalog would
// not know it.
func (e *Engine) writeClaim(renewal bool) error {
	ctx := context.Background()
	host, _ := os.Hostname()
	for attempt := 0; ; attempt++ {
		txn, err := e.store.Begin()
		if err != nil {
			return fmt.Errorf("tikv: claiming the store: %w", err)
		}
		now := oracle.ExtractPhysical(txn.StartTS())
		v, err := txn.Get(ctx, e.ownerKey())
		if err != nil && !tikverr.IsErrNotFound(err) {
			_ = txn.Rollback()
			return fmt.Errorf("tikv: claiming the store: %w", err)
		}
		if renewal && (err != nil || parseOwner(v).id != e.id) {
			_ = txn.Rollback()
			return errClaimLost
		}
		if err == nil {
			if o := parseOwner(v); o.id != e.id && o.expiry > now {
				_ = txn.Rollback()
				return pgerror.Newf(pgerror.ObjectInUse,
					"tikv: the store with prefix %q is in use by another kvsql server (%s): one kvsql server per store; stop that one first (a killed server's claim lapses %v after it died), or give this server a prefix of its own",
					e.prefix, o.who, ownerTTL)
			}
		}
		val := fmt.Sprintf("%s %d host %s pid %d since %s", e.id, now+ownerTTL.Milliseconds(), host, os.Getpid(), time.Now().UTC().Format(time.RFC3339))
		if err := txn.Set(e.ownerKey(), []byte(val)); err != nil {
			_ = txn.Rollback()
			return fmt.Errorf("tikv: claiming the store: %w", err)
		}
		err = txn.Commit(ctx)
		if err == nil {
			return nil
		}
		_ = txn.Rollback()
		if !retryable(err) || attempt >= e.retries {
			return fmt.Errorf("tikv: claiming the store: %w", err)
		}
		time.Sleep(conflictBackoff(attempt))
	}
}

// renew rewrites the claim every ownerTTL/3 until stop is closed or the
// claim is lost. A failed renewal is tried again at the next tick; if
// another engine took the claim meanwhile, this engine's commits fail on
// it (checkOwner) and it never claims again.
func (e *Engine) renew(stop, done chan struct{}) {
	defer close(done)
	t := time.NewTicker(ownerTTL / 3)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			if err := e.writeClaim(true); errors.Is(err, errClaimLost) {
				e.owner.Lock()
				e.owner.lost = err
				e.owner.Unlock()
				return
			}
		}
	}
}

// claimForCommit claims the store before a commit if it is not claimed
// yet (kvsql check --repair, tests): a failure leaves nothing written.
func (e *Engine) claimForCommit() error {
	e.owner.Lock()
	defer e.owner.Unlock()
	if err := e.claimLocked(); err != nil {
		return fmt.Errorf("%w%w", err, notCommitted{})
	}
	return nil
}

// checkOwner makes txn conditional on this engine's claim: it reads the
// owner key at txn's start timestamp, refuses if another engine holds it,
// and writes it back unchanged so that a concurrent claim conflicts with
// txn at commit.
func (e *Engine) checkOwner(ctx context.Context, txn *transaction.KVTxn) error {
	v, err := txn.Get(ctx, e.ownerKey())
	if err != nil && !tikverr.IsErrNotFound(err) {
		return err
	}
	if o := parseOwner(v); err != nil || o.id != e.id {
		who := "none"
		if err == nil {
			who = o.who
		}
		lost := fmt.Errorf("%w%w", pgerror.Newf(pgerror.ObjectInUse,
			"tikv: this server's claim on the store lapsed and another kvsql server took it (%s): the transaction was not committed, and this server commits nothing more until restarted; one kvsql server per store", who), notCommitted{})
		e.owner.Lock()
		if e.owner.lost == nil {
			e.owner.lost = lost
		}
		e.owner.Unlock()
		return lost
	}
	return txn.Set(e.ownerKey(), v)
}

// release stops renewing the claim and removes it (Close), so the next
// server need not wait for it to expire.
func (e *Engine) release() {
	e.owner.Lock()
	stop, done := e.owner.stop, e.owner.done
	e.owner.stop, e.owner.done = nil, nil
	e.owner.Unlock()
	if stop == nil {
		return
	}
	close(stop)
	<-done
	ctx := context.Background()
	txn, err := e.store.Begin()
	if err != nil {
		return
	}
	if v, err := txn.Get(ctx, e.ownerKey()); err == nil && parseOwner(v).id == e.id {
		if txn.Delete(e.ownerKey()) == nil && txn.Commit(ctx) == nil {
			return
		}
	}
	_ = txn.Rollback()
}

// newID returns a random engine id for owner values.
func newID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// errClaimLost is the error of commits after this engine's claim was
// found taken by another engine.
var errClaimLost = fmt.Errorf("%w%w", pgerror.New(pgerror.ObjectInUse,
	"tikv: this server's claim on the store lapsed and another kvsql server took it: it commits nothing more until restarted; one kvsql server per store"), notCommitted{})

// notCommitted makes errors.Is(err, kv.ErrNotCommitted) true.
type notCommitted struct{}

func (notCommitted) Error() string        { return "" }
func (notCommitted) Is(target error) bool { return target == kv.ErrNotCommitted }

// errNotOwner reports whether err is checkOwner's refusal.
func errNotOwner(err error) bool {
	var pe *pgerror.Error
	return errors.As(err, &pe) && pe.Code == pgerror.ObjectInUse
}
