//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package wire

import "net"

// peerClosed cannot peek at a socket on this platform: a client that
// disconnects mid-statement is noticed at the statement's next write.
func peerClosed(net.Conn) bool { return false }
