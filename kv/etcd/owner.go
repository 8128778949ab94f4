package etcd

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/pgerror"
)

// ownerTTL is the life, in seconds, of the owner key's lease: how long a
// store stays claimed after its server died without closing the engine
// (SIGKILL, a lost machine). While the cluster has no leader no lease
// expires, and a newly elected leader renews them all.
const ownerTTL = 10

var _ kv.Claimer = (*Engine)(nil)

// Claim implements kv.Claimer: it makes this engine the namespace's only
// writer by creating the owner key (NAMESPACE/owner) under a lease that
// the engine keeps alive until Close. A namespace already claimed by a
// live engine is refused with 55006, naming its holder.
//
// The claim is what keeps a second kvsql server off a store: kvsql's
// serializability is validated inside one server's process, and its
// catalog is cached there (docs/distributed.md). The commit fence is the
// safety net behind it: were a claim to lapse (its server cut off from
// the cluster for longer than the lease) and another engine claim and
// write, the first one's commits fail on the fence.
func (e *Engine) Claim() error {
	e.owner.Lock()
	defer e.owner.Unlock()
	return e.claimLocked()
}

// claimForCommit is Claim for a commit: a failure is a commit error that
// leaves the engine usable.
func (e *Engine) claimForCommit() error {
	e.owner.Lock()
	defer e.owner.Unlock()
	if e.owner.lease != 0 {
		return nil
	}
	if err := e.claimLocked(); err != nil {
		return fmt.Errorf("%w%w", err, notCommitted{})
	}
	return nil
}

// REQUIRES: owner held.
func (e *Engine) claimLocked() error {
	if e.closed.Load() {
		return kv.ErrClosed
	}
	if e.owner.lease != 0 {
		return nil
	}
	ctx, cancel := e.ctx()
	defer cancel()
	grant, err := e.cli.Grant(ctx, ownerTTL)
	if err != nil {
		return unavailable("claim the store", err)
	}
	host, _ := os.Hostname()
	who := fmt.Sprintf("%s host %s pid %d since %s", e.id, host, os.Getpid(), time.Now().UTC().Format(time.RFC3339))
	resp, err := e.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(e.ownerKey), "=", 0)).
		Then(clientv3.OpPut(e.ownerKey, who, clientv3.WithLease(grant.ID))).
		Else(clientv3.OpGet(e.ownerKey)).Commit()
	if err != nil {
		e.revoke(grant.ID)
		return unavailable("claim the store", err)
	}
	lease := grant.ID
	if !resp.Succeeded {
		e.revoke(grant.ID)
		kvs := resp.Responses[0].GetResponseRange().GetKvs()
		if len(kvs) == 0 {
			return e.claimLocked() // the holder's lease ended just now
		}
		holder := string(kvs[0].Value)
		if !strings.HasPrefix(holder, e.id+" ") {
			return pgerror.Newf(pgerror.ObjectInUse,
				"etcd: namespace %q of this cluster is in use by another kvsql server (%s): one kvsql server per store; stop that one first (a killed server's claim lapses %d seconds after it died), or give this server a namespace of its own (etcd://HOST:PORT,.../NAMESPACE)",
				e.ns, strings.TrimSpace(strings.TrimPrefix(holder, strings.SplitN(holder, " ", 2)[0])), ownerTTL)
		}
		// Our own earlier claim, whose answer was lost: keep its lease.
		lease = clientv3.LeaseID(kvs[0].Lease)
	}
	kctx, kcancel := context.WithCancel(context.Background())
	alive, err := e.cli.KeepAlive(kctx, lease)
	if err != nil {
		kcancel()
		return unavailable("claim the store", err)
	}
	e.owner.lease, e.owner.stop = lease, kcancel
	go func() {
		for range alive { // drained until the lease ends or Close stops it
		}
		e.owner.Lock()
		if e.owner.lease == lease {
			// The lease ended (the cluster expired it): the next commit
			// claims the namespace again, or learns who took it.
			e.owner.lease, e.owner.stop = 0, nil
		}
		e.owner.Unlock()
		kcancel()
	}()
	return nil
}

// release gives the claim up (Close): the next server need not wait for
// the lease to expire.
func (e *Engine) release() {
	e.owner.Lock()
	lease, stop := e.owner.lease, e.owner.stop
	e.owner.lease, e.owner.stop = 0, nil
	e.owner.Unlock()
	if lease == 0 {
		return
	}
	stop()
	e.revoke(lease)
}

// revoke ends a lease, best effort: one that is not revoked expires.
func (e *Engine) revoke(lease clientv3.LeaseID) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, _ = e.cli.Revoke(ctx, lease)
}
