package refengine

import (
	"context"
	"fmt"
	"os"
	"syscall"
	"time"
	"unsafe"
)

// hrTimer is a Linux timerfd (CLOCK_MONOTONIC, non-blocking) read through the runtime
// poller: the goroutine parks, and epoll wakes it when the kernel's hrtimer fires.
type hrTimer struct {
	fd   uintptr  // raw descriptor for timerfd_settime (f.Fd would make f blocking)
	f    *os.File // owns fd; Read parks in the netpoller
	stop func() bool
	buf  [8]byte
}

type itimerspec struct {
	interval, value syscall.Timespec
}

const clockMonotonic = 1

func newHRTimer(ctx context.Context) (*hrTimer, error) {
	fd, _, errno := syscall.Syscall(syscall.SYS_TIMERFD_CREATE, clockMonotonic,
		syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if errno != 0 {
		return nil, fmt.Errorf("timerfd_create: %w", errno)
	}
	t := &hrTimer{fd: fd, f: os.NewFile(fd, "refengine-timerfd")}
	// Cancellation interrupts a parked Read through its deadline.
	t.stop = context.AfterFunc(ctx, func() { _ = t.f.SetReadDeadline(time.Unix(1, 0)) })
	return t, nil
}

// wait arms the timer for d (> 0) and blocks until it fires or the read deadline is hit.
func (t *hrTimer) wait(d time.Duration) error {
	spec := itimerspec{value: syscall.NsecToTimespec(int64(max(d, 1)))}
	if _, _, errno := syscall.Syscall6(syscall.SYS_TIMERFD_SETTIME, t.fd, 0,
		uintptr(unsafe.Pointer(&spec)), 0, 0, 0); errno != 0 {
		return fmt.Errorf("timerfd_settime: %w", errno)
	}
	if _, err := t.f.Read(t.buf[:]); err != nil {
		return fmt.Errorf("read timerfd: %w", err)
	}
	return nil
}

func (t *hrTimer) close() {
	t.stop()
	_ = t.f.Close()
}
