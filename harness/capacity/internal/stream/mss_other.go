//go:build !unix

package stream

import "syscall"

// clampSegments leaves the MSS alone where it cannot be set before connecting.
func clampSegments(string, string, syscall.RawConn) error { return nil }
