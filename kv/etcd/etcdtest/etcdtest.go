// Package etcdtest runs a real etcd cluster of local processes for tests:
// three members on loopback ports with temporary data directories, which
// a test can SIGKILL and restart one by one.
//
// The members are started with raised limits (--max-txn-ops 1000000,
// --max-request-bytes 64 MiB, --quota-backend-bytes 8 GiB) so that SQL
// transactions of test size fit in one etcd Txn, and with short election
// timeouts so a lost leader is replaced within a second.
//
// Ports: $KVSQL_ETCD_PORT, if set, is the first of 2×members consecutive
// ports (client, peer, client, peer, ...); test binaries that use the same
// base take turns through a lock file. Unset, the kernel picks free ports.
//
// # Caveats
//
//   - Needs the etcd binary ($KVSQL_ETCD_BIN, else etcd on PATH or
//     /usr/bin/etcd; Debian's etcd-server package): Start skips the test
//     with a message naming the package when it is absent.
package etcdtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// Cluster is a running etcd cluster of local processes.
type Cluster struct {
	Members []*Member
	lock    *os.File
}

// Member is one etcd process.
type Member struct {
	Name      string
	ClientURL string
	PeerURL   string
	args      []string
	logPath   string
	mu        sync.Mutex
	cmd       *exec.Cmd
	exited    chan struct{}
}

// Binary returns the etcd binary's path, or "" if there is none.
func Binary() string {
	if b := os.Getenv("KVSQL_ETCD_BIN"); b != "" {
		return b
	}
	if p, err := exec.LookPath("etcd"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/bin/etcd"); err == nil {
		return "/usr/bin/etcd"
	}
	return ""
}

// Start starts an n-member cluster, waits until it serves, and stops it
// when tb ends. It skips tb when the etcd binary is absent.
// Extra flags are appended to every member's command line (a later flag
// wins: "--max-txn-ops", "8" lowers that limit).
func Start(tb testing.TB, n int, extra ...string) *Cluster {
	tb.Helper()
	c, err := StartCluster(n, tb.TempDir(), extra...)
	if err == errNoBinary {
		tb.Skip("no etcd binary (install Debian's etcd-server, or set KVSQL_ETCD_BIN): the etcd engine is not tested")
	}
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(c.Stop)
	return c
}

var errNoBinary = fmt.Errorf("etcdtest: no etcd binary")

// StartCluster is Start for callers without a testing.TB (a TestMain):
// the caller must call Stop. It fails when there is no etcd binary (see
// HasBinary).
func StartCluster(n int, dir string, extra ...string) (*Cluster, error) {
	bin := Binary()
	if bin == "" {
		return nil, errNoBinary
	}
	c := &Cluster{}
	ports, err := c.ports(2 * n)
	if err != nil {
		return nil, err
	}
	var initial []string
	for i := range n {
		m := &Member{
			Name:      "m" + strconv.Itoa(i),
			ClientURL: fmt.Sprintf("http://127.0.0.1:%d", ports[2*i]),
			PeerURL:   fmt.Sprintf("http://127.0.0.1:%d", ports[2*i+1]),
		}
		c.Members = append(c.Members, m)
		initial = append(initial, m.Name+"="+m.PeerURL)
	}
	for _, m := range c.Members {
		data := filepath.Join(dir, m.Name)
		m.logPath = data + ".log"
		m.args = []string{bin,
			"--name", m.Name, "--data-dir", data,
			"--listen-client-urls", m.ClientURL, "--advertise-client-urls", m.ClientURL,
			"--listen-peer-urls", m.PeerURL, "--initial-advertise-peer-urls", m.PeerURL,
			"--initial-cluster", strings.Join(initial, ","),
			"--initial-cluster-state", "new", "--initial-cluster-token", "kvsql-test",
			"--heartbeat-interval", "50", "--election-timeout", "500",
			"--max-txn-ops", "1000000", "--max-request-bytes", strconv.Itoa(64 << 20),
			"--quota-backend-bytes", strconv.FormatInt(8<<30, 10),
			"--logger", "zap", "--log-level", "warn",
		}
		m.args = append(m.args, extra...)
		if err := m.start(); err != nil {
			c.Stop()
			return nil, err
		}
	}
	if err := c.WaitReady(30 * time.Second); err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

// HasBinary reports whether an etcd binary is available.
func HasBinary() bool { return Binary() != "" }

// ports returns k ports: consecutive from $KVSQL_ETCD_PORT (taking the
// lock of that base), or free ones the kernel picks.
func (c *Cluster) ports(k int) ([]int, error) {
	var ports []int
	if base := os.Getenv("KVSQL_ETCD_PORT"); base != "" {
		b, err := strconv.Atoi(base)
		if err != nil {
			return nil, fmt.Errorf("etcdtest: KVSQL_ETCD_PORT=%q is not a port", base)
		}
		f, err := os.OpenFile(filepath.Join(os.TempDir(), "kvsql-etcdtest-"+base+".lock"), os.O_CREATE|os.O_RDWR, 0o600)
		if err != nil {
			return nil, err
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
			f.Close()
			return nil, err
		}
		c.lock = f
		for i := range k {
			ports = append(ports, b+i)
		}
		return ports, nil
	}
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for range k {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

func (m *Member) start() error {
	log, err := os.OpenFile(m.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	cmd := exec.Command(m.args[0], m.args[1:]...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		log.Close()
		return fmt.Errorf("etcdtest: start %s: %w", m.Name, err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		log.Close()
		close(exited)
	}()
	m.mu.Lock()
	m.cmd, m.exited = cmd, exited
	m.mu.Unlock()
	return nil
}

// Endpoints returns every member's client URL.
func (c *Cluster) Endpoints() []string {
	var eps []string
	for _, m := range c.Members {
		eps = append(eps, m.ClientURL)
	}
	return eps
}

// Spec returns the kvsql store spec of the cluster: etcd://H:P,H:P,...
func (c *Cluster) Spec(namespace string) string {
	var hosts []string
	for _, m := range c.Members {
		hosts = append(hosts, strings.TrimPrefix(m.ClientURL, "http://"))
	}
	s := "etcd://" + strings.Join(hosts, ",")
	if namespace != "" {
		s += "/" + namespace
	}
	return s
}

// Kill sends SIGKILL to member i and waits for it to exit.
func (c *Cluster) Kill(i int) {
	m := c.Members[i]
	m.mu.Lock()
	cmd, exited := m.cmd, m.exited
	m.cmd = nil
	m.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	<-exited
}

// Restart starts member i again on its data directory.
func (c *Cluster) Restart(i int) error { return c.Members[i].start() }

// WaitReady waits until a write through the cluster succeeds.
func (c *Cluster) WaitReady(d time.Duration) error {
	cli, err := clientv3.New(clientv3.Config{Endpoints: c.Endpoints(), DialTimeout: d, Logger: zap.NewNop()})
	if err != nil {
		return err
	}
	defer cli.Close()
	deadline := time.Now().Add(d)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err = cli.Put(ctx, "etcdtest/ready", "1")
		cancel()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("etcdtest: the cluster did not become ready in %v: %w (logs: %s)", d, err, c.Members[0].logPath)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Leader returns the index of the member that is the leader now, or -1.
func (c *Cluster) Leader() int {
	cli, err := clientv3.New(clientv3.Config{Endpoints: c.Endpoints(), DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		return -1
	}
	defer cli.Close()
	for i, m := range c.Members {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		st, err := cli.Status(ctx, m.ClientURL)
		cancel()
		if err == nil && st.Leader == st.Header.MemberId {
			return i
		}
	}
	return -1
}

// Stop kills every member and releases the port lock.
func (c *Cluster) Stop() {
	for i := range c.Members {
		c.Kill(i)
	}
	if c.lock != nil {
		_ = c.lock.Close()
		c.lock = nil
	}
}
