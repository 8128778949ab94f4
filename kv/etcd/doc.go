// Package etcd is a kv.Engine on an etcd cluster
// (go.etcd.io/etcd/client/v3): the store survives the loss of a minority
// of the cluster's members. Importing it registers the "etcd" store
// scheme: kv.OpenStore("etcd://HOST:PORT,HOST:PORT,...[/NAMESPACE]").
//
// There are only a few types: Engine (the client, the claim and the
// commit fence), batch (writes reduced to one etcd Txn by planOf),
// snapshot (a revision), iter (pages of a key range at a revision, both
// directions) and readCache (answers at the newest revision read).
//
// # Data flow
//
// A kv key K is the etcd key NAMESPACE/k/K. Reads happen at a revision:
// the engine's newest commit for Engine reads, the snapshot's otherwise;
// a revision never changes, so answers at the newest one are cached.
// A commit is one Txn conditional on the fence key (NAMESPACE/fence)
// being where this engine's previous commit left it, and it moves the
// fence: so a second writer is detected, and a commit whose answer was
// lost is settled before the next one (the fence holds its value, or a
// fence-only Txn makes sure it never applies); one that turns out applied
// is reported to the next commit's caller as kv.ErrLateCommit. Merge
// reads the stored value under the same fence and writes the
// concatenation. The SQL layer claims the namespace (Claim: the owner key
// NAMESPACE/owner under a lease kept alive until Close), so a second
// kvsql server on it is refused with 55006.
//
// docs/distributed.md maps every kv operation onto etcd and gives the
// guarantees, the limits and measured figures.
//
// # Caveats
//
//   - One writer per namespace: kvsql's serializability is validated in
//     the server's process. The claim keeps a second server out; behind
//     it, the fence: a foreign commit fences this engine off, whose
//     commits then fail until it is reopened.
//   - A transaction is one Txn: it must fit the cluster's --max-txn-ops
//     and --max-request-bytes (54000 otherwise); raise both for SQL.
//   - Compact compacts whole revisions (the key range is ignored) and
//     keeps those open snapshots read; etcd's file shrinks on defrag only.
//   - On etcd 3.4 a backward page (Last, SeekLT, Prev) makes the server
//     sort the whole rest of the range below the key before it applies
//     the page limit.
package etcd
