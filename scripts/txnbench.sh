#!/usr/bin/env bash
# txnbench.sh: pgbench TPC-B-like custom script against kvsql and
# PostgreSQL 15 in the same run, both with fsync on (kvsql --sync=on,
# PostgreSQL fsync=on, synchronous_commit=on), at 1 and 8 clients.
# Reports TPS of each, the ratio, and the serialization retries pgbench
# counted (--max-tries).
#
# Usage: scripts/txnbench.sh [seconds per run, default 10] [scale, default 1]
# Needs: go, psql, pgbench, /usr/lib/postgresql/15/bin, root (runs
# PostgreSQL as the postgres user).
set -euo pipefail
DUR=${1:-10}
SCALE=${2:-1}
ROOT=${KVSQL_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
WORK=$(mktemp -d /tmp/txnbench.XXXXXX)
chmod 755 "$WORK"
mkdir "$WORK/pg" && chown postgres "$WORK/pg" && chmod 700 "$WORK/pg"
KPORT=55433
PPORT=55434
PGBIN=/usr/lib/postgresql/15/bin
cleanup() {
	[[ -n "${KPID:-}" ]] && kill "$KPID" 2>/dev/null || true
	runuser -u postgres -- "$PGBIN/pg_ctl" -D "$WORK/pg" -m immediate stop >/dev/null 2>&1 || true
	rm -rf "$WORK"
}
trap cleanup EXIT

(cd "$ROOT" && go build -o "$WORK/kvsql" ./cmd/kvsql)
"$WORK/kvsql" serve --listen 127.0.0.1:$KPORT --data "$WORK/kvdata" --sync=on >"$WORK/kvsql.log" 2>&1 &
KPID=$!

runuser -u postgres -- "$PGBIN/initdb" -D "$WORK/pg" >/dev/null
runuser -u postgres -- "$PGBIN/pg_ctl" -D "$WORK/pg" -l "$WORK/pg/log.txt" \
	-o "-p $PPORT -k $WORK/pg -c fsync=on -c synchronous_commit=on -c listen_addresses=127.0.0.1" start >/dev/null

for i in $(seq 50); do
	psql -h 127.0.0.1 -p $KPORT -U bench -d kvsql -qc 'SELECT 1' >/dev/null 2>&1 &&
		psql -h 127.0.0.1 -p $PPORT -U postgres -d postgres -qc 'SELECT 1' >/dev/null 2>&1 && break
	sleep 0.2
done

SCHEMA="CREATE TABLE pgbench_branches (bid INT PRIMARY KEY, bbalance INT NOT NULL, filler TEXT);
CREATE TABLE pgbench_tellers (tid INT PRIMARY KEY, bid INT NOT NULL, tbalance INT NOT NULL, filler TEXT);
CREATE TABLE pgbench_accounts (aid INT PRIMARY KEY, bid INT NOT NULL, abalance INT NOT NULL, filler TEXT);
CREATE TABLE pgbench_history (hid SERIAL PRIMARY KEY, tid INT, bid INT, aid INT, delta INT, mtime TIMESTAMP, filler TEXT);"

load() { # psql args...
	echo "$SCHEMA" | psql "$@" -q -v ON_ERROR_STOP=1 >/dev/null
	seq 1 "$SCALE" | awk '{print $1"\t0\t"}' | psql "$@" -qc '\copy pgbench_branches (bid, bbalance, filler) from stdin' >/dev/null
	seq 1 $((10 * SCALE)) | awk '{print $1"\t"int(($1-1)/10)+1"\t0\t"}' |
		psql "$@" -qc '\copy pgbench_tellers (tid, bid, tbalance, filler) from stdin' >/dev/null
	seq 1 $((100000 * SCALE)) | awk '{print $1"\t"int(($1-1)/100000)+1"\t0\t"}' |
		psql "$@" -qc '\copy pgbench_accounts (aid, bid, abalance, filler) from stdin' >/dev/null
}
load -h 127.0.0.1 -p $KPORT -U bench -d kvsql
load -h 127.0.0.1 -p $PPORT -U postgres -d postgres

cat >"$WORK/tpcb.sql" <<EOF
\set aid random(1, 100000 * $SCALE)
\set bid random(1, 1 * $SCALE)
\set tid random(1, 10 * $SCALE)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
EOF

run() { # label clients psql-args...
	local label=$1 c=$2
	shift 2
	local out
	out=$(pgbench -n -f "$WORK/tpcb.sql" -c "$c" -j "$(( c < 2 ? 1 : 2 ))" -T "$DUR" --max-tries=100 "$@" 2>&1) || {
		echo "$out" >&2
		return 1
	}
	local tps retried failed
	tps=$(echo "$out" | awk '/^tps = /{print $3}')
	retried=$(echo "$out" | awk '/number of transactions retried:/{print $5}')
	failed=$(echo "$out" | awk '/number of failed transactions:/{print $5}')
	echo "$label $c $tps ${retried:-0} ${failed:-0}"
}

printf '%-26s %7s %10s %9s %7s\n' system clients tps retried failed
declare -A TPS
for c in 1 8; do
	read -r l n t r f < <(run kvsql "$c" -h 127.0.0.1 -p $KPORT -U bench kvsql)
	printf '%-26s %7s %10s %9s %7s\n' "kvsql (serializable)" "$n" "$t" "$r" "$f"
	TPS[k$c]=$t
	read -r l n t r f < <(run pg "$c" -h 127.0.0.1 -p $PPORT -U postgres postgres)
	printf '%-26s %7s %10s %9s %7s\n' "postgres (read committed)" "$n" "$t" "$r" "$f"
	TPS[p$c]=$t
	read -r l n t r f < <(PGOPTIONS='-c default_transaction_isolation=serializable' run pgs "$c" -h 127.0.0.1 -p $PPORT -U postgres postgres)
	printf '%-26s %7s %10s %9s %7s\n' "postgres (serializable)" "$n" "$t" "$r" "$f"
	TPS[s$c]=$t
done
for c in 1 8; do
	awk -v k="${TPS[k$c]}" -v p="${TPS[p$c]}" -v s="${TPS[s$c]}" -v c="$c" \
		'BEGIN{printf "clients %d: kvsql/postgres = %.2f (read committed), %.2f (serializable)\n", c, k/p, k/s}'
done
