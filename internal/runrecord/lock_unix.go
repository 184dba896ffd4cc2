//go:build unix

package runrecord

import (
	"os"
	"syscall"
)

// lock takes an exclusive advisory lock on path (created if missing) and returns its
// release: the suites of one run may end at the same time (go test runs packages in
// parallel) and each rewrites gate.json.
func lock(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
