package stream

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/anvilbench/anvilbench/harness/secret"
)

// direct is the streamed request's own HTTP/1.1 client. The caller's goroutine writes the
// request, prepared before the start stamp, in one write and reads the response itself, so
// between the stamp and the wire there is only taking a connection (or dialing one:
// connection setup stays inside TTFT) and the write. net/http puts header checks, two
// goroutine hand-offs and the request's serialization there: 72 µs p50 from the stamp to
// the kernel's transmit stamp on an idle core, measured against refserver.
//
// It keeps the connections idle between requests and checks one before reuse: an engine
// closes idle connections (uvicorn after 5 s), and a request must not be written to one.
type direct struct {
	// host is the Host header; addr is where to dial; prefix the request-URI's path before
	// the endpoint path.
	host, addr, prefix string
	tls                *tls.Config // nil for http
	dial               func(ctx context.Context, network, addr string) (*stampConn, error)
	apiKey             secret.Secret
	basic              string // base64 of the URL's user:password; "" for none
	maxIdle            int
	maxIdleAge         time.Duration // idleConnTimeout; a test hook

	mu   sync.Mutex
	idle []*directConn
}

// directConn is one connection of a direct client.
type directConn struct {
	idleSince time.Time // when put back
	raw       *stampConn
	c         net.Conn // raw, or TLS over it
	head      headLimit
	br        *bufio.Reader // over head, over c
}

// maxResponseHead bounds a response's head, its status line and headers with any
// informational responses before them, as net/http's default MaxResponseHeaderBytes does:
// an engine that sends headers without end fails the request instead of filling memory.
const maxResponseHead = 10 << 20

var errHeadTooLarge = errors.New("response head over 10 MiB")

// headLimit passes reads through, and while a head is read (left >= 0) fails them once the
// head has taken its bound.
type headLimit struct {
	r    io.Reader
	left int64
}

func (h *headLimit) Read(p []byte) (int, error) {
	if h.left < 0 {
		return h.r.Read(p)
	}
	if h.left == 0 {
		return 0, errHeadTooLarge
	}
	if int64(len(p)) > h.left {
		p = p[:h.left]
	}
	n, err := h.r.Read(p)
	h.left -= int64(n)
	return n, err
}

// errBadBaseURL is what a request to an unusable endpoint URL fails with.
var errBadBaseURL = errors.New("build request: invalid endpoint URL")

// newDirect is the direct client of base (http or https, with the API's path, e.g.
// http://host:8000/v1).
func newDirect(base string, apiKey secret.Secret, maxIdle int, dial func(ctx context.Context, network, addr string) (*stampConn, error)) (*direct, error) {
	if err := apiKey.Validate(); err != nil {
		return nil, fmt.Errorf("build request: %w", err)
	}
	u, err := url.Parse(base)
	if err != nil || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, errBadBaseURL
	}
	d := &direct{host: u.Host, prefix: u.EscapedPath(), apiKey: apiKey, maxIdle: maxIdle, maxIdleAge: idleConnTimeout, dial: dial}
	if u.User != nil && !apiKey.IsSet() {
		// Credentials in the URL are sent as net/http sends them: basic authentication,
		// unless a key is set.
		password, _ := u.User.Password()
		d.basic = base64.StdEncoding.EncodeToString([]byte(u.User.Username() + ":" + password))
	}
	port := u.Port()
	switch u.Scheme {
	case "http":
		if port == "" {
			port = "80"
		}
	case "https":
		if port == "" {
			port = "443"
		}
		d.tls = &tls.Config{ServerName: u.Hostname(), NextProtos: []string{"http/1.1"}}
	default:
		return nil, errBadBaseURL
	}
	d.addr = net.JoinHostPort(u.Hostname(), port)
	return d, nil
}

// message is a request's bytes, head and body, in a recycled buffer.
type message struct{ b *[]byte }

var messageBufs = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// maxPooledMessage keeps a rare huge prompt's buffer out of the pool.
const maxPooledMessage = 1 << 20

// message writes the request of a POST of body on api: the request line to its path, the
// headers (the API's own; the bearer key or the URL's credentials, when set) and the body.
func (d *direct) message(api API, body []byte, traceparent string) message {
	m := message{b: messageBufs.Get().(*[]byte)}
	b := append((*m.b)[:0], "POST "...)
	b = append(b, api.target(d.prefix)...)
	b = append(b, " HTTP/1.1\r\nHost: "...)
	b = append(b, d.host...)
	b = append(b, "\r\nUser-Agent: anvilbench\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\n"...)
	b = api.proto().header(b, d.apiKey)
	if traceparent != "" {
		b = append(b, "traceparent: "...)
		b = append(b, traceparent...)
		b = append(b, "\r\n"...)
	}
	switch {
	case d.apiKey.IsSet():
		b = append(b, "Authorization: Bearer "...)
		b = append(b, d.apiKey.Reveal()...)
		b = append(b, "\r\n"...)
	case d.basic != "":
		b = append(b, "Authorization: Basic "...)
		b = append(b, d.basic...)
		b = append(b, "\r\n"...)
	}
	b = append(b, "Content-Length: "...)
	b = strconv.AppendInt(b, int64(len(body)), 10)
	b = append(b, "\r\n\r\n"...)
	*m.b = append(b, body...)
	return m
}

func (m message) free() {
	if cap(*m.b) <= maxPooledMessage {
		messageBufs.Put(m.b)
	}
}

// idleConnTimeout is how long a connection may wait idle, as in net/http's default
// transport: a load balancer or NAT in front of an engine may forget a quiet flow without
// a word (an AWS NLB after 350 s), and a request written on it would fail or be lost.
const idleConnTimeout = 90 * time.Second

// take returns the most recently used idle connection that is still open and has not
// waited past maxIdleAge, nil when none.
func (d *direct) take() *directConn {
	for {
		d.mu.Lock()
		n := len(d.idle)
		if n == 0 {
			d.mu.Unlock()
			return nil
		}
		c := d.idle[n-1]
		d.idle[n-1] = nil
		d.idle = d.idle[:n-1]
		d.mu.Unlock()
		if time.Since(c.idleSince) < d.maxIdleAge && c.open() {
			return c
		}
		c.closeNow()
	}
}

// open reports that the peer has not closed an idle connection and sent nothing on it
// (bytes on an idle plain connection are a protocol error; on TLS they may be a session
// ticket, so only an end counts there).
func (c *directConn) open() bool {
	plain := c.c == net.Conn(c.raw)
	if plain && c.br.Buffered() > 0 {
		return false
	}
	switch peekIdle(c.raw.Conn) {
	case idleQuiet:
		return true
	case idleData:
		return !plain
	}
	return false
}

// What a look at an idle connection found.
const (
	idleQuiet  = iota // nothing: open
	idleData          // bytes waiting
	idleClosed        // an end or an error
)

// connect dials a new connection (and shakes hands, for https).
func (d *direct) connect(ctx context.Context) (*directConn, error) {
	raw, err := d.dial(ctx, "tcp", d.addr)
	if err != nil {
		return nil, err
	}
	c := &directConn{raw: raw, c: raw}
	if d.tls != nil {
		t := tls.Client(raw, d.tls)
		if err := t.HandshakeContext(ctx); err != nil {
			raw.Close()
			return nil, err
		}
		c.c = t
	}
	c.head = headLimit{r: c.c, left: -1}
	c.br = bufio.NewReaderSize(&c.head, readBufferSize)
	return c, nil
}

// readBufferSize bounds one read of a response: a flood's reads return 2 or 3 chunks, and
// with 4,096 streams 64 KiB per connection held 256 MiB.
const readBufferSize = 16 << 10

// put keeps a connection whose response was read to its end for the next request.
func (d *direct) put(c *directConn) {
	c.idleSince = time.Now()
	d.mu.Lock()
	if len(d.idle) >= d.maxIdle {
		d.mu.Unlock()
		c.closeNow()
		return
	}
	d.idle = append(d.idle, c)
	d.mu.Unlock()
}

// closeIdle closes the idle connections.
func (d *direct) closeIdle() {
	d.mu.Lock()
	idle := d.idle
	d.idle = nil
	d.mu.Unlock()
	for _, c := range idle {
		c.closeNow()
	}
}

// closeNow closes the connection, failing a read or write in progress.
func (c *directConn) closeNow() { c.c.Close() }

// prepare readies c for a request under ctx: the connection closes when ctx ends
// (deadline, stall, the caller's cancel), failing a read or write in progress, until stop
// is called; and the kernel stamps when the request's last byte leaves.
func (c *directConn) prepare(ctx context.Context) (stop func() bool) {
	stop = context.AfterFunc(ctx, c.closeNow)
	c.raw.stampNextWrite()
	return stop
}

// roundTrip writes m on c and reads the response's head, past any informational (1xx)
// responses, as net/http does.
func (c *directConn) roundTrip(m message) (*http.Response, error) {
	if _, err := c.c.Write(*m.b); err != nil {
		return c.earlyAnswer(err)
	}
	return c.readHead()
}

// earlyAnswerWait bounds the look for an answer after a failed write: one sent before the
// engine stopped reading is already in the socket.
const earlyAnswerWait = 2 * time.Second

// earlyAnswer returns the response an engine, or a proxy in front of it, sent before it
// stopped taking the request (a 413 for a prompt over a body limit, as net/http reports
// it): it says more than the write's broken pipe, werr, returned when there is none. The
// connection is not reused.
func (c *directConn) earlyAnswer(werr error) (*http.Response, error) {
	if err := c.c.SetReadDeadline(time.Now().Add(earlyAnswerWait)); err != nil {
		return nil, werr
	}
	resp, err := c.readHead()
	if err != nil {
		return nil, werr
	}
	resp.Close = true
	return resp, nil
}

// maxInformational is how many informational responses may precede the response, as in
// net/http: more is an engine that never answers.
const maxInformational = 5

var errInformational = errors.New("more than 5 informational (1xx) responses")

// readHead reads the response's head, past up to maxInformational informational (1xx)
// responses.
func (c *directConn) readHead() (*http.Response, error) {
	c.head.left = maxResponseHead
	defer func() { c.head.left = -1 }()
	for range maxInformational + 1 {
		resp, err := http.ReadResponse(c.br, nil)
		if err != nil || resp.StatusCode < 100 || resp.StatusCode >= 200 || resp.StatusCode == http.StatusSwitchingProtocols {
			return resp, err
		}
	}
	return nil, errInformational
}
