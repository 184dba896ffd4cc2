//go:build unix

package capacity

import (
	"syscall"
	"testing"
)

// ensureDescriptors raises the soft RLIMIT_NOFILE to need if it is lower (the client's and
// the engine's ends of every connection, plus the engine's timers), or skips.
func ensureDescriptors(b *testing.B, need uint64) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		b.Skipf("cannot read RLIMIT_NOFILE: %v", err)
	}
	if lim.Cur >= need {
		return
	}
	if lim.Max < need {
		b.Skipf("RLIMIT_NOFILE hard limit %d is below the %d descriptors this benchmark needs; raise it (ulimit -Hn)", lim.Max, need)
	}
	lim.Cur = need
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		b.Skipf("cannot raise RLIMIT_NOFILE to %d: %v", need, err)
	}
}
