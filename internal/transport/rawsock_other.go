//go:build !linux

package transport

import "net"

// fastConn returns nc: raw socket reads and writes (rawsock_linux.go) are
// for Linux only.
func fastConn(nc net.Conn) net.Conn { return nc }
