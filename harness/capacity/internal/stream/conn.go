package stream

import (
	"context"
	"net"
	"sync/atomic"
	"time"
)

// epoch is the origin of the connections' read stamps: they are stored as monotonic
// offsets from it, in an atomic, so a read costs no allocation and no lock.
var epoch = time.Now()

// stampConn records when each socket read that delivered bytes returned. The HTTP client
// reads the response through it: the headers and, when an engine sends them together, the
// first event in one read. A stream's events are then stamped by the socket read that
// delivered their bytes, not by the later read of the response body, so TTFT does not
// include the time between the client parsing the headers and the caller reading the body.
//
// On Linux the kernel stamps the data as it reaches the socket (SO_TIMESTAMPNS), and that
// stamp is taken instead: the process may be late to read (a collection, a busy core), the
// bytes were not. One read can deliver several events that queued while the process was
// late; they share the stamp of the read's last bytes, with either clock.
type stampConn struct {
	net.Conn
	last atomic.Int64 // offset from epoch of the latest read that delivered bytes
	// kernel reads with the kernel's stamps; nil for user-space stamps.
	kernel *kernelReader
	// kernelReads and userReads count the reads stamped each way.
	kernelReads, userReads atomic.Int64
	// written counts the bytes written.
	written atomic.Int64
}

func (c *stampConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.written.Add(int64(n))
	return n, err
}

// stampNextWrite asks the kernel to stamp when the next write's last byte leaves.
func (c *stampConn) stampNextWrite() {
	if c.kernel != nil {
		c.kernel.armTransmit(c.written.Load())
	}
}

// sent is the kernel's transmit stamp of the last byte written (after stampNextWrite):
// when it left this host. Once a response has been read, that is its request's last byte.
// Zero when the kernel gave no stamp.
func (c *stampConn) sent() time.Time {
	end := c.written.Load()
	if end == 0 || c.kernel == nil {
		return time.Time{}
	}
	return c.kernel.transmitted(end - 1)
}

func (c *stampConn) Read(p []byte) (int, error) {
	if c.kernel == nil {
		n, err := c.Conn.Read(p)
		if n > 0 {
			c.last.Store(int64(time.Since(epoch)))
			c.userReads.Add(1)
		}
		return n, err
	}
	n, at, err := c.kernel.read(p)
	if n > 0 {
		if at.IsZero() {
			at = time.Now()
			c.userReads.Add(1)
		} else {
			c.kernelReads.Add(1)
		}
		c.last.Store(int64(at.Sub(epoch)))
	}
	return n, err
}

// lastRead is the arrival of the latest bytes read from the socket.
func (c *stampConn) lastRead() time.Time { return epoch.Add(time.Duration(c.last.Load())) }

// dialStamped dials connections with kernel receive stamps unless userSpace, and transmit
// stamps too when transmit.
func dialStamped(d *net.Dialer, userSpace, transmit bool) func(ctx context.Context, network, addr string) (*stampConn, error) {
	return func(ctx context.Context, network, addr string) (*stampConn, error) {
		conn, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		sc := &stampConn{Conn: conn}
		if !userSpace && kernelStamps {
			sc.kernel = newKernelReader(conn, transmit)
		}
		return sc, nil
	}
}
