package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"runtime/trace"
	"strings"
	"syscall"
	"time"

	"github.com/kvsql/kvsql"
	"github.com/kvsql/kvsql/kv"
	"github.com/kvsql/kvsql/wire"
)

// runServe implements "kvsql serve": open the store, serve the wire
// protocol until SIGINT or SIGTERM, then shut down cleanly.
func runServe(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	listen := fs.String("listen", wire.DefaultAddr, "address to listen on")
	data := fs.String("data", "./kvsql-data", "data directory (Pebble)")
	memory := fs.Bool("memory", false, "keep the store in memory (nothing survives a restart)")
	store := fs.String("store", "", "the store: pebble:DIR, memory: or etcd://HOST:PORT,HOST:PORT,...[/NAMESPACE] (instead of --data/--memory; docs/distributed.md)")
	syncMode := fs.String("sync", "on", "on: a COMMIT returns once the WAL is synced; off: trade durability for speed")
	tlsCert := fs.String("tls-cert", "", "TLS certificate file (PEM)")
	tlsKey := fs.String("tls-key", "", "TLS key file (PEM)")
	users := fs.String("users", "", "comma-separated user:password pairs (also $KVSQL_USERS); none means trust (loopback only)")
	usersFile := fs.String("users-file", "", "file of user:password lines (# comments), instead of putting passwords on the command line")
	requireTLS := fs.Bool("require-tls", false, "refuse connections without TLS (28000); needs --tls-cert and --tls-key")
	authTimeout := fs.Duration("auth-timeout", 10*time.Second, "time a client has from connecting to finishing authentication")
	auth := fs.String("auth", "", "password authentication: password, md5 or scram-sha-256 (default scram-sha-256 when --users is set)")
	maxConns := fs.Int("max-connections", 100, "maximum concurrent connections")
	maxMsg := fs.Int("max-message-size", 0, "maximum client message size in bytes (0 = default)")
	workMem := fs.String("work-mem", "64MB", "default per-operator memory budget before spilling")
	ballast := fs.String("disk-ballast", "", "keep an emergency ballast file of this size (e.g. 256MB) in the data directory: deleted to open on a full disk (docs/operations.md)")
	maxQueryMem := fs.String("max-query-memory", "", "memory one statement may hold before it fails with 53200 (default a quarter of the machine's memory)")
	maxValueSize := fs.String("max-value-size", "256MB", "largest value a statement may build or receive (54000 past it)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole run to `FILE` (for benchmarks)")
	traceFile := fs.String("trace", "", "write a runtime execution trace of the whole run to `FILE` (scheduler latency: go tool trace -pprof=sched FILE)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if *syncMode != "on" && *syncMode != "off" {
		return fmt.Errorf("serve: --sync must be on or off, not %q", *syncMode)
	}
	wm, ok := parseBytes(*workMem)
	if !ok {
		return fmt.Errorf("serve: bad --work-mem %q", *workMem)
	}
	var qm int64
	if *maxQueryMem != "" {
		if qm, ok = parseBytes(*maxQueryMem); !ok {
			return fmt.Errorf("serve: bad --max-query-memory %q", *maxQueryMem)
		}
	}
	mvs, ok := parseBytes(*maxValueSize)
	if !ok {
		return fmt.Errorf("serve: bad --max-value-size %q", *maxValueSize)
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	cfg := wire.Config{Addr: *listen, Logger: logger, MaxConnections: *maxConns, MaxMessageSize: *maxMsg, AuthMethod: *auth, RequireTLS: *requireTLS, StartupTimeout: *authTimeout}
	u, err := loadUsers(*users, *usersFile, os.Getenv("KVSQL_USERS"))
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	cfg.Users = u
	if *requireTLS && (*tlsCert == "" || *tlsKey == "") {
		return errors.New("serve: --require-tls needs --tls-cert and --tls-key")
	}
	if *tlsCert != "" || *tlsKey != "" {
		cert, err := tls.LoadX509KeyPair(*tlsCert, *tlsKey)
		if err != nil {
			return fmt.Errorf("serve: %w", err)
		}
		cfg.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer func() {
			pprof.StopCPUProfile()
			f.Close()
		}()
	}
	if *traceFile != "" {
		f, err := os.Create(*traceFile)
		if err != nil {
			return err
		}
		if err := trace.Start(f); err != nil {
			f.Close()
			return err
		}
		defer func() {
			trace.Stop()
			f.Close()
		}()
	}
	var ballastSize int64
	if *ballast != "" {
		if ballastSize, ok = parseBytes(*ballast); !ok {
			return fmt.Errorf("serve: bad --disk-ballast %q", *ballast)
		}
	}
	opts := kvsql.Options{Dir: *data, Memory: *memory, NoSync: *syncMode == "off", WorkMem: wm, Ballast: ballastSize, MaxQueryMem: qm, MaxValueSize: mvs}
	where := *data
	if *memory {
		where = "memory"
	}
	if *store != "" {
		if where, err = applyStore(&opts, *store); err != nil {
			return fmt.Errorf("serve: %w", err)
		}
		*data = opts.Dir
	}
	db, err := kvsql.Open(opts)
	if err != nil {
		return err
	}
	defer db.Close()
	if d := db.Damage(); d != nil {
		logger.Warn("the store is damaged: serving READ-ONLY (reads of undamaged tables work, writes get 25006); stop the server and run `kvsql check` (docs/operations.md)",
			"file", d.File, "damage", d.Err, "record", filepath.Join(*data, kv.DamageFile))
	}
	if d := db.DiskFull(); d != nil {
		logger.Warn("the disk is full: serving READ-ONLY (reads work, writes get 53100); free space on the disk, then restart the server (docs/operations.md)",
			"data", d.Dir, "free_bytes", d.Avail, "needed_bytes", d.Need)
	}
	srv, err := wire.NewServer(cfg, db)
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	logger.Info("kvsql serving", "addr", l.Addr().String(), "data", where, "sync", *syncMode)

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(l) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	logger.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		logger.Warn("shutdown", "err", err)
	}
	return nil
}

// loadUsers merges the users given as --users, in the --users-file file
// and in $KVSQL_USERS. Every user needs a non-empty password (an empty one
// would let in anyone who knows the name) and may be given only once.
func loadUsers(flagUsers, file, env string) (map[string]string, error) {
	users := map[string]string{}
	add := func(where, pair string) error {
		u, p, ok := strings.Cut(pair, ":")
		switch {
		case !ok || u == "":
			return fmt.Errorf("%s: want user:password pairs", where)
		case p == "":
			return fmt.Errorf("%s: user %q has an empty password", where, u)
		case users[u] != "":
			return fmt.Errorf("%s: user %q is given twice", where, u)
		}
		users[u] = p
		return nil
	}
	for _, src := range []struct{ where, list string }{{"--users", flagUsers}, {"KVSQL_USERS", env}} {
		if src.list == "" {
			continue
		}
		for _, pair := range strings.Split(src.list, ",") {
			if err := add(src.where, pair); err != nil {
				return nil, err
			}
		}
	}
	if file != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("--users-file: %w", err)
		}
		for i, line := range strings.Split(string(data), "\n") {
			line = strings.TrimSpace(line)
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			if err := add(fmt.Sprintf("%s:%d", file, i+1), line); err != nil {
				return nil, err
			}
		}
	}
	if len(users) == 0 {
		return nil, nil
	}
	return users, nil
}

func parseBytes(s string) (int64, bool) {
	mult := int64(1)
	for _, u := range []struct {
		s string
		m int64
	}{{"kB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}} {
		if strings.HasSuffix(s, u.s) {
			s, mult = strings.TrimSuffix(s, u.s), u.m
			break
		}
	}
	var n int64
	if _, err := fmt.Sscan(s, &n); err != nil || n <= 0 {
		return 0, false
	}
	return n * mult, true
}

// applyStore sets opts from a --store spec and returns where the data is,
// for the log. Pebble and memory keep their own options (cache, ballast,
// damage records); any other scheme is opened by kv.OpenStore.
func applyStore(opts *kvsql.Options, spec string) (string, error) {
	switch {
	case strings.HasPrefix(spec, "pebble:"):
		opts.Dir, opts.Memory = strings.TrimPrefix(spec, "pebble:"), false
		if opts.Dir == "" {
			return "", fmt.Errorf("--store %q names no directory (pebble:DIR)", spec)
		}
		return opts.Dir, nil
	case spec == "memory:":
		opts.Memory = true
		return "memory", nil
	}
	eng, err := kv.OpenStore(spec)
	if err != nil {
		return "", err
	}
	opts.Engine = eng
	return spec, nil
}
