// Package bench is kvsql's benchmark suite: it measures kvsql beside
// PostgreSQL 15 (through the wire protocol) and SQLite (in process) on the
// same machine, in one run, and writes the ratios and plots to
// docs/benchmarks.md. "kvsql bench" (cmd/kvsql/bench.go, in a kvsql built
// with -tags bench) is its front end.
//
// The few main types:
//
//   - Server: a throwaway database server on a loopback port.
//     StartPostgres runs initdb and pg_ctl into a temporary directory
//     (fsync on); StartKvsql runs "kvsql serve" (sync on). Stop stops and
//     deletes either.
//   - Embedded: an engine in this process, KvsqlEmbedded (kvsql.Open) or
//     SQLiteEmbedded (modernc.org/sqlite, WAL, synchronous=FULL). The
//     package does not import SQLite's driver: the program running the
//     suite registers it ("kvsql bench" does when built with -tags bench),
//     so the server binary, which imports this package for StartPostgres,
//     does not link SQLite.
//   - Workload: a name, a Setup that loads its data into a Target once
//     (workloads that share tables share a dataset), and a Run that
//     measures once and returns Measures (TPS, ops/s, rows/s, p50/p99/mean ms,
//     ms). Workloads are built at a Scales (Full, Quick, Scaled).
//   - Results: Run's output, one Row per workload and figure with the
//     median over rounds on each system; Row.Ratio is kvsql / reference.
//
// Data flow: Run starts PostgreSQL, kvsql serve, and the two embedded
// engines; for each workload it calls Setup on each system, then Run on
// kvsql, the reference, kvsql, the reference, ... for Config.Rounds
// rounds, so every ratio comes from interleaved runs of one invocation.
// Wire workloads drive the servers with pgbench (RunPgbench,
// ParsePgbench) or with pgx goroutines (Drive, which records every
// operation's latency and retries serialization failures). WriteReport
// renders Markdown and hand-drawn SVG (BarChartSVG, LineChartSVG).
//
// The workloads: pgbench point select (1 and 8 clients, simple and
// prepared) and TPC-B-like; YCSB read-heavy 95/5 and update-heavy 70/30
// with uniform and scrambled zipfian keys (Zipfian); the chat application
// of seeds/000 (ChatSchema and its use-case queries); bulk load by COPY and
// by multi-row INSERT; non-unique index lookups at 0.01%, 1% and 10%
// through a keyid index, an inverted index and a full scan; hash join,
// GROUP BY, ORDER BY with and without LIMIT; a scaling series of
// point-select and index-lookup latency; and in-process INSERT, point
// select, index lookup and GROUP BY against SQLite.
//
// # Caveats
//
//   - Both servers share the machine's cores with the load generator
//     (pgbench or pgx goroutines); on 2 cores, client CPU is a large part
//     of every point-select figure, the same for both systems.
//   - PostgreSQL has one kind of index; the "keyid" and "inverted" rows
//     both use a btree there, so only kvsql's figure differs between them.
//   - The servers run as child processes and are stopped on return, also
//     when ctx is cancelled (Ctrl-C); a SIGKILL of the bench process
//     leaves them running, and their temporary directories behind.
//   - Running as root, PostgreSQL runs as the "postgres" user (runuser);
//     the temporary directory must be reachable by that user.
//   - Latency figures are medians of per-round medians (or p99s); p99 at
//     the quick scale rests on few samples and is noisy.
//   - The in-process SQLite comparison runs one goroutine; SQLite has a
//     single writer, so a concurrent comparison would mostly measure that.
package bench
