package stream

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/anvilbench/anvilbench/harness/secret"
)

// CaptureLimit is the number of characters of visible content a Result keeps.
const CaptureLimit = 8192

// DefaultMaxEventSize caps one SSE event; chat chunks are a few hundred bytes.
const DefaultMaxEventSize = 1 << 20

// overrunAllowance is how many output chunks beyond max_tokens a stream may carry before it
// is cut off: some engines count a token less than they stream (a marker, a stop string).
const overrunAllowance = 16

// Options configure a Client.
type Options struct {
	// BaseURL is the endpoint including /v1.
	BaseURL string
	// APIKey, when set, is sent as a bearer token.
	APIKey secret.Secret
	// Timeout bounds each request from start to end; 0 means no bound but the context's.
	Timeout time.Duration
	// StallTimeout bounds the silence between reads once the first event has arrived; 0
	// means none.
	StallTimeout time.Duration
	// MaxEventSize caps one SSE event in bytes; 0 means DefaultMaxEventSize.
	MaxEventSize int
	// Connections is the number of streams expected in flight; the client keeps that many
	// idle connections so no request pays for a new TCP handshake inside its TTFT.
	Connections int
	// UserSpaceStamps stamps events when the read returns even where the kernel can stamp
	// their arrival (Linux), e.g. to compare the two clocks.
	UserSpaceStamps bool
	// TransmitStamps takes the kernel's transmit stamp of each streamed request's last byte
	// (Result.Sent), where the kernel stamps receipts (Linux).
	TransmitStamps bool
}

type settings struct {
	timeout, stall time.Duration
	maxEvent       int

	// Test hooks: jsonOnly decodes every event with encoding/json; now replaces time.Now
	// at the read; afterHeaders runs between the response headers and the first body read,
	// afterEvent after each event (a client busy elsewhere).
	jsonOnly     bool
	now          func() time.Time
	afterHeaders func()
	afterEvent   func(n int)
}

// Client sends streamed requests to one endpoint. It is safe for concurrent use; one
// goroutine per stream is the intended model.
type Client struct {
	base   string
	apiKey secret.Secret
	// http serves the start-up requests; direct the streams (nil for an unusable URL).
	http      *http.Client
	direct    *direct
	directErr error // why direct is nil
	s         settings
}

// New returns a Client with a dedicated transport. It never follows redirects and never
// retries: a benchmark must not resend a request behind the user's back.
func New(opts Options) *Client {
	if opts.MaxEventSize <= 0 {
		opts.MaxEventSize = DefaultMaxEventSize
	}
	if opts.Connections <= 0 {
		opts.Connections = 1
	}
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second, Control: clampSegments}
	// The transport serves only the start-up requests, one at a time and untimed: plain
	// connections, and few kept.
	transport := &http.Transport{
		Proxy:               nil, // a proxy between client and engine would be measured too
		DialContext:         dialer.DialContext,
		MaxIdleConns:        startupConns,
		MaxIdleConnsPerHost: startupConns,
		IdleConnTimeout:     idleConnTimeout,
		DisableCompression:  true,
		WriteBufferSize:     64 << 10, // a request's headers and a typical body in one write
		ForceAttemptHTTP2:   false,
	}
	base := strings.TrimRight(opts.BaseURL, "/")
	dial := dialStamped(dialer, opts.UserSpaceStamps, opts.TransmitStamps)
	d, err := newDirect(base, opts.APIKey, opts.Connections+4, dial) // nil: each stream says why
	return &Client{
		base:      base,
		apiKey:    opts.APIKey,
		direct:    d,
		directErr: err,
		http: &http.Client{
			Transport:     transport,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		s: settings{timeout: opts.Timeout, stall: opts.StallTimeout, maxEvent: opts.MaxEventSize},
	}
}

// startupConns is how many idle connections the start-up requests keep.
const startupConns = 2

// Close releases idle connections.
func (c *Client) Close() {
	c.http.CloseIdleConnections()
	if c.direct != nil {
		c.direct.closeIdle()
	}
}

// newRequest builds a request to url with a JSON body (nil for none) and, when a key is
// set, its bearer header: with the streams' message, the places the key is revealed.
func (c *Client) newRequest(ctx context.Context, method, url string, body []byte) (*http.Request, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, r)
	if err != nil {
		return nil, &Error{Kind: KindTransport, Message: errBadBaseURL.Error(), Err: err}
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.apiKey.IsSet() {
		if err := c.apiKey.Validate(); err != nil {
			return nil, &Error{Kind: KindTransport, Message: "build request: " + err.Error(), Err: err}
		}
		req.Header.Set("Authorization", "Bearer "+c.apiKey.Reveal())
	}
	return req, nil
}

// withDeadline bounds ctx by d (not at all when d <= 0) with the cause errDeadline, which
// classify reports as a timeout. Other causes (a stall) can be set with the returned
// cancel; cancel(nil) also stops the timer.
func withDeadline(ctx context.Context, d time.Duration) (context.Context, context.CancelCauseFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	if d <= 0 {
		return ctx, cancel
	}
	timer := time.AfterFunc(d, func() { cancel(errDeadline) })
	return ctx, func(cause error) {
		timer.Stop()
		cancel(cause)
	}
}

// fetch sends one start-up request (GET /models, POST /tokenize, an engine's own info
// endpoints), bounded by ModelsTimeout, and returns the body of its 200 answer, read up to
// limit bytes. what names the resource in a read error. absent, when not nil, is the error
// for a 404 or 405: the server does not serve the resource at all.
func (c *Client) fetch(ctx context.Context, method, url string, body []byte, limit int64, what string, absent error) ([]byte, error) {
	ctx, cancel := withDeadline(ctx, ModelsTimeout)
	defer cancel(nil)
	req, err := c.newRequest(ctx, method, url, body)
	if err != nil {
		return nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		s := c.s
		s.timeout = ModelsTimeout // what classify names as the bound that passed
		return nil, classify(ctx, err, "send request", &s, 0)
	}
	defer resp.Body.Close()
	if absent != nil && (resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusMethodNotAllowed) {
		return nil, absent
	}
	if resp.StatusCode != http.StatusOK {
		return nil, httpError(resp)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit))
	if err != nil {
		return nil, &Error{Kind: KindRead, Message: "read " + what + ": " + rootCause(err).Error(), Err: err}
	}
	return data, nil
}

// Stream POSTs body to api's path (e.g. "/chat/completions") and reads its stream to its
// end. maxTokens is the request's max_tokens: it pre-sizes the arrival log and bounds the
// stream, since every output chunk carries at least one token, a server that sends more
// chunks than that (with a small allowance) is cut off rather than read forever. 0 means
// no bound. The Result is returned even with an error, holding whatever arrived before it;
// the error is an *Error.
func (c *Client) Stream(ctx context.Context, api API, body []byte, maxTokens int) (*Result, error) {
	res, err := c.stream(ctx, api, body, maxTokens, Call{}, nil)
	return res, c.seal(err)
}

// StreamRecycled is Stream for a body in a buffer the caller recycles: release is called
// once, when the client is done reading body (it copies body with the request's head
// before the start stamp, so that is before StreamRecycled returns); until then body must
// not change. call is what the request asks beyond its body.
func (c *Client) StreamRecycled(ctx context.Context, api API, body []byte, maxTokens int, call Call, release func()) (*Result, error) {
	res, err := c.stream(ctx, api, body, maxTokens, call, release)
	return res, c.seal(err)
}

// Call is what one streamed request asks beyond its body.
type Call struct {
	// TraceParent, when set, is sent as the W3C trace context header, which an engine that
	// traces (vLLM's OpenTelemetry spans) joins the request's spans to.
	TraceParent string
	// AbandonAfter, when positive, ends the request after that many output events as a
	// client that leaves does: the connection is closed unread, and the Result is Abandoned
	// with no error.
	AbandonAfter int
}

func (c *Client) stream(ctx context.Context, api API, body []byte, maxTokens int, call Call, release func()) (*Result, error) {
	maxChunks := 0
	if maxTokens > 0 {
		maxChunks = maxTokens + overrunAllowance
	}
	ctx, cancel := withDeadline(ctx, c.s.timeout)
	defer cancel(nil)

	res := &Result{Arrivals: make([]time.Duration, 0, maxTokens+2)}
	if c.direct == nil {
		if release != nil {
			release()
		}
		return res, &Error{Kind: KindTransport, Message: c.directErr.Error(), Err: c.directErr}
	}
	m := c.direct.message(api, body, call.TraceParent)
	if release != nil {
		release() // the message holds a copy
	}
	conn := c.direct.take()
	var stop func() bool
	if conn != nil {
		stop = conn.prepare(ctx)
	}

	res.Start = time.Now()
	if conn == nil {
		var err error
		if conn, err = c.direct.connect(ctx); err != nil {
			m.free()
			return res, classify(ctx, err, "send request", &c.s, 0)
		}
		stop = conn.prepare(ctx)
	}
	defer stop()
	resp, err := conn.roundTrip(m)
	m.free()
	if err != nil {
		conn.closeNow()
		return res, classify(ctx, err, "send request", &c.s, 0)
	}
	reuse := false
	defer func() {
		if reuse {
			c.direct.put(conn)
		} else {
			conn.closeNow()
		}
	}()
	res.StatusCode = resp.StatusCode
	if resp.StatusCode != http.StatusOK {
		return res, httpError(resp)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != api.proto().mediaType() {
		return res, &Error{Kind: KindContentType, Message: fmt.Sprintf("response is %q, not the %s stream the API sends (does the endpoint support stream: true?)", mt, api.proto().mediaType())}
	}
	res.Streamed = true
	if c.s.afterHeaders != nil {
		c.s.afterHeaders()
	}
	raw := conn.raw
	// The request is written whole and answered: its transmit stamp is queued. Taking it
	// now turns the stamps off for the body (see transmitStamps).
	sent := raw.sent()
	kernel, user := raw.kernelReads.Load(), raw.userReads.Load()
	defer func() {
		res.KernelStampedReads = int(raw.kernelReads.Load() - kernel)
		res.UserStampedReads = int(raw.userReads.Load() - user)
		if sent.IsZero() {
			sent = raw.sent()
		}
		if !sent.IsZero() && !sent.Before(res.Start) {
			res.Sent, res.HasSent = sent.Sub(res.Start), true
		}
	}()
	var stall func()
	if c.s.stall > 0 {
		stall = func() { cancel(errStall) }
	}
	err = c.s.consume(ctx, resp.Body, res, maxChunks, call.AbandonAfter, stall, raw.lastRead, api)
	if err == nil && res.Terminal {
		// Only a body read to its end leaves the connection ready for the next request.
		reuse = drain(resp.Body, func() { cancel(errDrain) }) && !resp.Close
	}
	return res, err
}

// drainLimit and drainTimeout bound what is read after [DONE].
const (
	drainLimit   = 64 << 10
	drainTimeout = time.Second
)

var errDrain = errors.New("response not ended after [DONE]")

// drain reads a finished stream's body to its end (the chunked encoding's last chunk
// follows [DONE]) and reports that it got there: only then can the connection serve the
// next request, which then does not pay a new connection inside its TTFT. A body that does
// not end soon is abandoned (abandon makes the read fail).
func drain(body io.Reader, abandon func()) bool {
	t := time.AfterFunc(drainTimeout, abandon)
	defer t.Stop()
	n, err := io.Copy(io.Discard, io.LimitReader(body, drainLimit))
	return err == nil && n < drainLimit
}

// messageLimit is the length in bytes of a sealed error message.
const messageLimit = 1024

// seal redacts the API key from an *Error's message (a server may echo the Authorization
// header back) and then shortens it to messageLimit bytes.
func (c *Client) seal(err error) error {
	e, ok := err.(*Error)
	if !ok || e == nil {
		return err
	}
	msg := e.Message
	if c.apiKey.IsSet() {
		msg = strings.ReplaceAll(msg, c.apiKey.Reveal(), secret.Redacted)
	}
	if len(msg) > messageLimit {
		cut := messageLimit
		for cut > 0 && !utf8.RuneStart(msg[cut]) {
			cut--
		}
		msg = msg[:cut] + "..."
	}
	e.Message = msg
	return e
}
