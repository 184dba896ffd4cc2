package stream

import (
	"io"
	"net"
	"syscall"
	"time"
	"unsafe"
)

// kernelStamps is available: the kernel stamps received data (SO_TIMESTAMPNS) and each
// read takes the stamp with the bytes (recvmsg on the connection's raw descriptor).
const kernelStamps = true

// kernelReader reads a TCP connection with recvmsg, taking the kernel's receive stamp of
// the data it returns: when the bytes reached the socket, not when this process got around
// to reading them (a collection, a busy core, a late wake-up all fall in between). The
// message header lives with the reader, so a read allocates nothing.
type kernelReader struct {
	raw  syscall.RawConn
	msg  syscall.Msghdr
	iov  syscall.Iovec
	oob  [64]byte
	p    []byte // the read in progress
	n    int
	err  error
	at   time.Time
	recv func(fd uintptr) bool
}

// newKernelReader turns on receive stamps for c; nil when c is not a TCP connection or the
// socket refuses them (the caller keeps user-space stamps).
func newKernelReader(c net.Conn) *kernelReader {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return nil
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return nil
	}
	var serr error
	if err := raw.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_TIMESTAMPNS, 1)
	}); err != nil || serr != nil {
		return nil
	}
	k := &kernelReader{raw: raw}
	k.msg.Iov, k.msg.Iovlen = &k.iov, 1
	k.recv = k.recvmsg
	return k
}

// read reads into p and returns the bytes' kernel receive stamp (zero when the kernel gave
// none). Like net.Conn's Read it waits for data, honours deadlines and returns io.EOF at
// the end.
func (k *kernelReader) read(p []byte) (int, time.Time, error) {
	if len(p) == 0 {
		return 0, time.Time{}, nil
	}
	k.p, k.n, k.err, k.at = p, 0, nil, time.Time{}
	err := k.raw.Read(k.recv)
	k.p, k.iov.Base, k.msg.Control = nil, nil, nil // keep no reference to the caller's buffer
	if err == nil {
		err = k.err
	}
	if err == nil && k.n == 0 {
		err = io.EOF
	}
	return k.n, k.at, err
}

// recvmsg is one attempt, on the poller's terms: false to wait for readability.
func (k *kernelReader) recvmsg(fd uintptr) bool {
	k.iov.Base = &k.p[0]
	k.iov.SetLen(len(k.p))
	k.msg.Control = &k.oob[0]
	k.msg.SetControllen(len(k.oob))
	// The socket does not block (the poller waits for it), so the call skips the
	// scheduler's bookkeeping of a blocking system call.
	n, _, errno := syscall.RawSyscall(syscall.SYS_RECVMSG, fd, uintptr(unsafe.Pointer(&k.msg)), syscall.MSG_DONTWAIT)
	if errno == syscall.EAGAIN {
		return false
	}
	if errno == syscall.EINTR {
		return k.recvmsg(fd)
	}
	if errno != 0 {
		k.err = errno
		return true
	}
	k.n = int(n)
	k.at = k.stamp(int(k.msg.Controllen))
	return true
}

// stamp finds the SCM_TIMESTAMPNS message among n bytes of ancillary data and places the
// kernel's CLOCK_REALTIME reading on this process's monotonic clock: now, less how long
// ago the data arrived by the wall clock. A stamp from the future or older than a minute
// (the wall clock was stepped) is refused.
func (k *kernelReader) stamp(n int) time.Time {
	hdr := syscall.CmsgLen(0)
	for off := 0; off+hdr <= n; {
		h := (*syscall.Cmsghdr)(unsafe.Pointer(&k.oob[off]))
		if int(h.Len) < hdr || off+int(h.Len) > n {
			return time.Time{}
		}
		if h.Level == syscall.SOL_SOCKET && h.Type == syscall.SCM_TIMESTAMPNS && int(h.Len) >= syscall.CmsgLen(int(unsafe.Sizeof(syscall.Timespec{}))) {
			ts := (*syscall.Timespec)(unsafe.Pointer(&k.oob[off+hdr]))
			now := time.Now()
			age := now.Sub(time.Unix(ts.Sec, ts.Nsec))
			if age < 0 || age > time.Minute {
				return time.Time{}
			}
			return now.Add(-age)
		}
		off += syscall.CmsgSpace(int(h.Len) - hdr)
	}
	return time.Time{}
}
