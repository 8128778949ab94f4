#!/usr/bin/env bash
# Starts a 3-member etcd cluster on loopback for trying kvsql on etcd:
#   scripts/etcd-cluster.sh DIR [BASEPORT]   (default base 2379)
# Members m0..m2 listen for clients on BASE, BASE+2, BASE+4 and for peers
# on BASE+1, BASE+3, BASE+5; data and logs go to DIR. The limits are raised
# as docs/distributed.md explains (--max-txn-ops, --max-request-bytes,
# --quota-backend-bytes). Stop the cluster with: kill $(cat DIR/*.pid)
set -euo pipefail
dir=${1:?usage: etcd-cluster.sh DIR [BASEPORT]}
base=${2:-2379}
mkdir -p "$dir"
initial=""
for i in 0 1 2; do
  initial+="${initial:+,}m$i=http://127.0.0.1:$((base + 2 * i + 1))"
done
for i in 0 1 2; do
  c=http://127.0.0.1:$((base + 2 * i)); p=http://127.0.0.1:$((base + 2 * i + 1))
  etcd --name "m$i" --data-dir "$dir/m$i" \
    --listen-client-urls "$c" --advertise-client-urls "$c" \
    --listen-peer-urls "$p" --initial-advertise-peer-urls "$p" \
    --initial-cluster "$initial" --initial-cluster-state new --initial-cluster-token kvsql \
    --max-txn-ops 1000000 --max-request-bytes $((64 << 20)) --quota-backend-bytes $((8 << 30)) \
    --logger zap --log-level warn >"$dir/m$i.log" 2>&1 &
  echo $! >"$dir/m$i.pid"
done
echo "etcd://127.0.0.1:$base,127.0.0.1:$((base + 2)),127.0.0.1:$((base + 4))"
