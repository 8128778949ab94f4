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
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/kvsql/kvsql"
	"github.com/kvsql/kvsql/wire"
)

// runServe implements "kvsql serve": open the store, serve the wire
// protocol until SIGINT or SIGTERM, then shut down cleanly.
func runServe(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	listen := fs.String("listen", wire.DefaultAddr, "address to listen on")
	data := fs.String("data", "./kvsql-data", "data directory (Pebble)")
	memory := fs.Bool("memory", false, "keep the store in memory (nothing survives a restart)")
	syncMode := fs.String("sync", "on", "on: a COMMIT returns once the WAL is synced; off: trade durability for speed")
	tlsCert := fs.String("tls-cert", "", "TLS certificate file (PEM)")
	tlsKey := fs.String("tls-key", "", "TLS key file (PEM)")
	users := fs.String("users", "", "comma-separated user:password pairs; empty means trust (loopback only)")
	auth := fs.String("auth", "", "password authentication: password, md5 or scram-sha-256 (default scram-sha-256 when --users is set)")
	maxConns := fs.Int("max-connections", 100, "maximum concurrent connections")
	maxMsg := fs.Int("max-message-size", 0, "maximum client message size in bytes (0 = default)")
	workMem := fs.String("work-mem", "64MB", "default per-operator memory budget before spilling")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole run to `FILE` (for benchmarks)")
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
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	cfg := wire.Config{Addr: *listen, Logger: logger, MaxConnections: *maxConns, MaxMessageSize: *maxMsg, AuthMethod: *auth}
	if *users != "" {
		cfg.Users = map[string]string{}
		for _, pair := range strings.Split(*users, ",") {
			u, p, ok := strings.Cut(pair, ":")
			if !ok || u == "" {
				return fmt.Errorf("serve: --users wants user:password pairs, got %q", pair)
			}
			cfg.Users[u] = p
		}
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
	db, err := kvsql.Open(kvsql.Options{Dir: *data, Memory: *memory, NoSync: *syncMode == "off", WorkMem: wm})
	if err != nil {
		return err
	}
	defer db.Close()
	srv, err := wire.NewServer(cfg, db)
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	where := *data
	if *memory {
		where = "memory"
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
