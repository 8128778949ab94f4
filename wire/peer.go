//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package wire

import (
	"crypto/tls"
	"errors"
	"net"
	"syscall"
)

// peerClosed reports whether the client has closed its end of nc (or
// reset it), without consuming anything it sent: it peeks at the socket
// without blocking, as PostgreSQL's client_connection_check_interval
// does. Data waiting to be read means the client is still there.
func peerClosed(nc net.Conn) bool {
	if t, ok := nc.(*tls.Conn); ok {
		nc = t.NetConn()
	}
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	closed := false
	var b [1]byte
	_ = rc.Read(func(fd uintptr) bool {
		n, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		closed = n == 0 && err == nil || errors.Is(err, syscall.ECONNRESET)
		return true // never wait for readiness
	})
	return closed
}
