//go:build unix

package stream

import (
	"net"
	"syscall"
)

// peekIdle looks at an idle connection without reading from it or waiting.
func peekIdle(c net.Conn) int {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return idleQuiet
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return idleClosed
	}
	state := idleClosed
	var b [1]byte
	if err := raw.Control(func(fd uintptr) {
		n, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		switch {
		case err == syscall.EAGAIN:
			state = idleQuiet
		case err == nil && n > 0:
			state = idleData
		}
	}); err != nil {
		return idleClosed
	}
	return state
}
