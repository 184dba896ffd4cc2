package stream

import (
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// errorEventWaits counts the reads that waited past an error-only event (a test's probe).
var errorEventWaits atomic.Int64

// kernelStamps is available: the kernel stamps received data (SO_TIMESTAMPNS) and each
// read takes the stamp with the bytes (recvmsg on the connection's raw descriptor).
const kernelStamps = true

// kernelReader reads a TCP connection with recvmsg, taking the kernel's receive stamp of
// the data it returns: when the bytes reached the socket, not when this process got around
// to reading them (a collection, a busy core, a late wake-up all fall in between). A read
// has one stamp, that of its newest bytes: segments queued unread merge and keep the later
// one. The message header lives with the reader, so a read allocates nothing.
type kernelReader struct {
	raw  syscall.RawConn
	msg  syscall.Msghdr
	iov  syscall.Iovec
	oob  [128]byte // SCM_TIMESTAMPNS, and SCM_TIMESTAMPING where the kernel adds it
	p    []byte    // the read in progress
	n    int
	err  error
	at   time.Time
	recv func(fd uintptr) bool
	// tx, when not nil, takes the kernel's transmit stamps.
	tx *transmitStamps
}

// newKernelReader turns on receive stamps for c; nil when c is not a TCP connection or the
// socket refuses them (the caller keeps user-space stamps).
func newKernelReader(c net.Conn, transmit bool) *kernelReader {
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
	if transmit {
		k.tx = newTransmitStamps(raw)
	}
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
	if err != nil && k.tx != nil && onlyErrorEvent(err) {
		err = k.waitPastStamp()
	}
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

// stamp finds the SCM_TIMESTAMPNS message among n bytes of ancillary data and places it on
// the monotonic clock.
func (k *kernelReader) stamp(n int) time.Time {
	var at time.Time
	eachCmsg(k.oob[:n], func(level, typ int32, data []byte) bool {
		if level == syscall.SOL_SOCKET && typ == syscall.SCM_TIMESTAMPNS && len(data) >= int(unsafe.Sizeof(syscall.Timespec{})) {
			at = monotonic(*(*syscall.Timespec)(unsafe.Pointer(&data[0])))
			return false
		}
		return true
	})
	return at
}

// eachCmsg calls f with the level, type and data of each control message in oob until f
// returns false, and reports whether every header it walked was well formed.
func eachCmsg(oob []byte, f func(level, typ int32, data []byte) bool) bool {
	hdr := syscall.CmsgLen(0)
	for off := 0; off+hdr <= len(oob); {
		h := (*syscall.Cmsghdr)(unsafe.Pointer(&oob[off]))
		if int(h.Len) < hdr || off+int(h.Len) > len(oob) {
			return false
		}
		if !f(h.Level, h.Type, oob[off+hdr:off+int(h.Len)]) {
			return true
		}
		off += syscall.CmsgSpace(int(h.Len) - hdr)
	}
	return true
}

// monotonic places a kernel CLOCK_REALTIME stamp on this process's monotonic clock: now,
// less how long ago it was by the wall clock. A stamp from the future or older than a
// minute (the wall clock was stepped) is refused: zero.
func monotonic(ts syscall.Timespec) time.Time {
	now := time.Now()
	age := now.Sub(time.Unix(ts.Sec, ts.Nsec))
	if age < 0 || age > time.Minute {
		return time.Time{}
	}
	return now.Add(-age)
}

// Transmit stamps (SO_TIMESTAMPING, software): the kernel stamps the last byte of every
// write as it passes to the network device and queues the stamp on the socket's error
// queue, keyed by that byte's offset on the connection (OPT_ID); OPT_TSONLY keeps the
// packet out of the queue, OPT_RX_FILTER keeps SCM_TIMESTAMPING off received data (the
// reads take SCM_TIMESTAMPNS). Values from linux/net_tstamp.h.
const (
	tsTxSoftware  = 1 << 1
	tsSoftware    = 1 << 4
	tsOptID       = 1 << 7
	tsOptTSOnly   = 1 << 11
	tsOptIDTCP    = 1 << 16 // count offsets from the first byte written (Linux 6.2)
	tsOptRxFilter = 1 << 17 // Linux 6.0

	soEEOriginTimestamping = 4 // sock_extended_err.ee_origin of a stamp
	ipv6RecvErr            = 25
)

// transmitStamps reads the transmit stamps of one connection's error queue. They are on
// only from before a request is written until its stamp is taken, so a stream's body is
// read with them off. It keeps the latest stamp (the highest offset).
type transmitStamps struct {
	raw   syscall.RawConn
	flags int // the set the kernel accepted
	mu    sync.Mutex
	msg   syscall.Msghdr
	oob   [256]byte
	// base is the bytes written when the stamps were turned on: the kernel counts its keys
	// from there.
	base  int64
	armed bool
	key   uint32
	at    time.Time
	have  bool
}

// newTransmitStamps finds which options the kernel takes (older kernels lack the later
// ones, so each set is tried without them in turn) and leaves them off; nil when it takes
// none.
func newTransmitStamps(raw syscall.RawConn) *transmitStamps {
	base := tsTxSoftware | tsSoftware | tsOptID | tsOptTSOnly
	for _, flags := range []int{base | tsOptIDTCP | tsOptRxFilter, base | tsOptIDTCP, base | tsOptRxFilter, base} {
		t := &transmitStamps{raw: raw, flags: flags}
		switch err := t.set(flags); {
		case err == nil:
			if t.set(0) != nil {
				return nil
			}
			return t
		case !errors.Is(err, syscall.EINVAL):
			return nil
		}
	}
	return nil
}

func (t *transmitStamps) set(flags int) error {
	var serr error
	if err := t.raw.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_TIMESTAMPING, flags)
	}); err != nil {
		return err
	}
	return serr
}

// arm turns the stamps on for the next write; written is the bytes written so far.
func (t *transmitStamps) arm(written int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.drain()
	t.have = false
	t.armed = t.set(t.flags) == nil
	t.base = written
}

// stampOf returns the transmit stamp of the byte at offset (counted from the connection's
// first byte), zero when the kernel has given none (yet). Once it has, the stamps go off.
func (t *transmitStamps) stampOf(offset int64) time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.armed && !t.have {
		return time.Time{}
	}
	t.drain()
	if !t.have || t.key != uint32(offset-t.base) {
		return time.Time{}
	}
	if t.armed {
		_ = t.set(0)
		t.armed = false
	}
	return t.at
}

// drain reads the error queue to its end, keeping the latest stamp. The queue must not
// grow: every entry counts against the receive buffer and keeps the socket signalling an
// error.
func (t *transmitStamps) drain() {
	_ = t.raw.Control(func(fd uintptr) {
		for {
			t.msg.Control = &t.oob[0]
			t.msg.SetControllen(len(t.oob))
			_, _, errno := syscall.RawSyscall(syscall.SYS_RECVMSG, fd, uintptr(unsafe.Pointer(&t.msg)), syscall.MSG_ERRQUEUE|syscall.MSG_DONTWAIT)
			if errno == syscall.EINTR {
				continue
			}
			if errno != 0 {
				return
			}
			t.take(int(t.msg.Controllen))
		}
	})
	t.msg.Control = nil
}

// take reads one error-queue message of n bytes of ancillary data: a stamp
// (SCM_TIMESTAMPING, the software one first) and its key (IP_RECVERR or IPV6_RECVERR).
func (t *transmitStamps) take(n int) {
	var at time.Time
	var key uint32
	keyed := false
	wellFormed := eachCmsg(t.oob[:n], func(level, typ int32, data []byte) bool {
		switch {
		case level == syscall.SOL_SOCKET && typ == syscall.SO_TIMESTAMPING && len(data) >= int(unsafe.Sizeof(syscall.Timespec{})):
			at = monotonic(*(*syscall.Timespec)(unsafe.Pointer(&data[0])))
		case (level == syscall.SOL_IP && typ == syscall.IP_RECVERR || level == syscall.SOL_IPV6 && typ == ipv6RecvErr) && len(data) >= 16:
			// struct sock_extended_err: errno u32, origin u8, type u8, code u8, pad u8, info u32, data u32
			if data[4] == soEEOriginTimestamping {
				key, keyed = *(*uint32)(unsafe.Pointer(&data[12])), true
			}
		}
		return true
	})
	if wellFormed && keyed && !at.IsZero() && (!t.have || int32(key-t.key) >= 0) {
		t.key, t.at, t.have = key, at, true
	}
}

// onlyErrorEvent reports the error Go's poller gives a waiting reader when the socket
// signalled nothing but an error (EPOLLERR alone): a transmit stamp queued while the
// socket could neither be read nor written to (a large body waiting for the window), not
// a failure of the connection. internal/poll.ErrNotPollable cannot be named from here.
func onlyErrorEvent(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Err != nil && op.Err.Error() == "not pollable"
}

// waitPastStamp takes the queued stamps and reads again until bytes arrive: the poller
// keeps failing reads until the socket's next event (data, or room to write) clears the
// error, so until then this polls, with kernel stamps losing nothing by the wait.
func (k *kernelReader) waitPastStamp() error {
	errorEventWaits.Add(1)
	wait := 20 * time.Microsecond
	for {
		k.tx.mu.Lock()
		k.tx.drain()
		k.tx.mu.Unlock()
		time.Sleep(wait)
		wait = min(2*wait, time.Millisecond)
		err := k.raw.Read(k.recv)
		if err == nil || !onlyErrorEvent(err) {
			return err
		}
	}
}

// armTransmit turns transmit stamps on for the next write.
func (k *kernelReader) armTransmit(written int64) {
	if k.tx != nil {
		k.tx.arm(written)
	}
}

// transmitted returns the kernel's transmit stamp of the byte at offset; zero when there
// is none (yet), or the socket gives none.
func (k *kernelReader) transmitted(offset int64) time.Time {
	if k.tx == nil {
		return time.Time{}
	}
	return k.tx.stampOf(offset)
}
