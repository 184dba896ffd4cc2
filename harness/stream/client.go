package stream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/anvilbench/anvilbench/harness/secret"

	"github.com/anvilbench/anvilbench/internal/wire"
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

// Stream POSTs body to path (e.g. "/chat/completions") and reads the event stream to its
// end. maxTokens is the request's max_tokens: it pre-sizes the arrival log and bounds the
// stream, since every output chunk carries at least one token, a server that sends more
// chunks than that (with a small allowance) is cut off rather than read forever. 0 means
// no bound. The Result is returned even with an error, holding whatever arrived before it;
// the error is an *Error.
func (c *Client) Stream(ctx context.Context, path string, body []byte, maxTokens int) (*Result, error) {
	res, err := c.stream(ctx, path, body, maxTokens, nil)
	return res, c.seal(err)
}

// StreamRecycled is Stream for a body in a buffer the caller recycles: release is called
// once, when the client is done reading body (it copies body with the request's head
// before the start stamp, so that is before StreamRecycled returns); until then body must
// not change.
func (c *Client) StreamRecycled(ctx context.Context, path string, body []byte, maxTokens int, release func()) (*Result, error) {
	res, err := c.stream(ctx, path, body, maxTokens, release)
	return res, c.seal(err)
}

func (c *Client) stream(ctx context.Context, path string, body []byte, maxTokens int, release func()) (*Result, error) {
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
	m := c.direct.message(path, body)
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
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "text/event-stream" {
		return res, &Error{Kind: KindContentType, Message: fmt.Sprintf("response is %q, not an event stream (does the endpoint support stream: true?)", mt)}
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
	err = c.s.consume(ctx, resp.Body, res, maxChunks, stall, raw.lastRead)
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

// stamper returns the arrival of the bytes a read just returned.
type stamper func() time.Time

// consume reads the event stream of body to its end into res, stamping every read that
// delivers bytes on the monotonic clock before anything of it is parsed: with the arrival
// of those bytes at the socket (stamps, the connection's) or, reading from anything else,
// when the read returned. stall, when not nil, is called after s.stall without bytes once
// the first event arrived (it must make the next read fail, e.g. by cancelling the request
// context). maxChunks (0: none) bounds the output chunks. The error is nil or an *Error.
//
// It is the whole per-event path of Stream, so it can be measured on any io.Reader.
func (s *settings) consume(ctx context.Context, body io.Reader, res *Result, maxChunks int, stall func(), stamps stamper) error {
	st := streamStates.Get().(*streamState)
	defer st.release()
	sr, events, ch := &st.sr, &st.events, &st.ch
	*sr = stampReader{r: body, now: s.now, stamps: stamps}
	events.Reset(sr, s.maxEvent)
	n := 0
	for {
		ev, err, ok := events.Next()
		if err != nil {
			return classify(ctx, err, "read stream", s, n)
		}
		if !ok {
			break
		}
		at := sr.last.Sub(res.Start)
		if n == 0 && stall != nil {
			st.watch.arm(s.stall, stall, sr.last)
			sr.watch = &st.watch
		}
		n++
		res.Events = n
		data := ev.Data
		if string(ev.Type) == "error" {
			return &Error{Kind: KindServerError, Message: "server sent an error event: " + clip(string(data))}
		}
		if string(data) == "[DONE]" {
			res.Terminal = true
			res.End = at
			return nil
		}
		if len(data) == 0 {
			continue
		}
		if !utf8.Valid(data) {
			return &Error{Kind: KindMalformed, Message: fmt.Sprintf("event %d is not valid UTF-8", n)}
		}
		if s.jsonOnly {
			err = ch.DecodeJSON(data)
		} else {
			err = ch.Decode(data)
		}
		if err != nil {
			return &Error{Kind: KindMalformed, Message: fmt.Sprintf("event %d is not a JSON chunk: %v", n, err), Err: err}
		}
		if msg, ok := chunkError(ch); ok {
			return &Error{Kind: KindServerError, Message: "server error in stream: " + msg}
		}
		if res.Model == "" && ch.Model != "" {
			res.Model = st.name(ch.Model)
		}
		res.observe(ch, at)
		res.lag(sr.last)
		if s.afterEvent != nil {
			s.afterEvent(n)
		}
		if maxChunks > 0 && len(res.Arrivals) > maxChunks {
			return &Error{Kind: KindOverrun, Message: fmt.Sprintf("stream sent %d output chunks, more than max_tokens allows; stopped reading", len(res.Arrivals))}
		}
	}
	// The body ended without [DONE]. A stall or deadline surfaces as a read error above, so
	// this is a close by the server: complete only if a finish_reason was seen.
	res.End = time.Since(res.Start)
	if cause := context.Cause(ctx); cause != nil {
		return classify(ctx, cause, "read stream", s, n)
	}
	if !res.Complete() {
		return &Error{Kind: KindTruncated, Message: fmt.Sprintf("stream closed after %d events without [DONE] or a finish_reason", n)}
	}
	return nil
}

// observe folds one decoded chunk into the result. at is the arrival of its bytes. Nothing
// of ch is kept: it may be a view of the read buffer.
func (res *Result) observe(ch *wire.Chunk, at time.Duration) {
	if ch.Usage != nil {
		res.setUsage(ch.Usage)
	}
	for i := range ch.Choices {
		c := &ch.Choices[i]
		if c.FinishReason != nil {
			if res.FinishReasons == nil {
				res.FinishReasons = res.finishBuf[:0]
			}
			res.FinishReasons = append(res.FinishReasons, finishReason(*c.FinishReason))
		}
		reasoning := c.Delta.ReasoningContent
		if reasoning == "" {
			reasoning = c.Delta.Reasoning
		}
		content := c.Delta.Content
		if content == "" {
			content = c.Text // the legacy completions endpoint
		}
		tools := len(c.Delta.ToolCalls) > 0
		if reasoning == "" && content == "" && !tools {
			continue
		}
		res.Arrivals = append(res.Arrivals, at)
		res.attribute(ch.Usage)
		if !res.HasFirstOutput {
			res.HasFirstOutput, res.FirstOutput = true, at
		}
		if reasoning != "" {
			res.ReasoningChunks++
		}
		if content != "" || tools {
			res.ContentChunks++
			if !res.HasFirstContent {
				res.HasFirstContent, res.FirstContent = true, at
			}
		}
		if content != "" {
			res.capture(content)
		}
		if tools {
			res.ToolCallChunks++
			if !res.HasFirstToolCall {
				res.HasFirstToolCall, res.FirstToolCall = true, at
			}
			res.addToolCalls(c.Delta.ToolCalls)
		}
	}
}

// addToolCalls joins tool-call fragments into the result's calls: a fragment names its
// call by index; without one, a new id starts a call and anything else continues the last.
func (res *Result) addToolCalls(fragments []wire.ToolCall) {
	for _, f := range fragments {
		k := len(res.ToolCalls) - 1
		switch {
		case f.Index != nil:
			k = slices.IndexFunc(res.ToolCalls, func(c ToolCall) bool { return c.Index == *f.Index })
			if k < 0 {
				res.ToolCalls = append(res.ToolCalls, ToolCall{Index: *f.Index})
				k = len(res.ToolCalls) - 1
			}
		case k < 0 || (f.ID != "" && f.ID != res.ToolCalls[k].ID && res.ToolCalls[k].ID != ""):
			res.ToolCalls = append(res.ToolCalls, ToolCall{Index: len(res.ToolCalls)})
			k = len(res.ToolCalls) - 1
		}
		c := &res.ToolCalls[k]
		if c.ID == "" {
			c.ID = strings.Clone(f.ID)
		}
		if f.Function.Name != "" && f.Function.Name != c.Name {
			c.Name += f.Function.Name // a name sent whole, or in pieces
		}
		res.appendArguments(c, f.Function.Arguments)
	}
}

// appendArguments adds a fragment of a call's arguments, within CaptureLimit characters
// over all calls.
func (res *Result) appendArguments(c *ToolCall, fragment string) {
	n := utf8.RuneCountInString(fragment)
	if room := CaptureLimit - res.toolRunes; n > room {
		n = room
		c.ArgumentsTruncated = true
		for i := range fragment {
			if room == 0 {
				fragment = fragment[:i]
				break
			}
			room--
		}
	}
	res.toolRunes += n
	c.Arguments += fragment
}

// setUsage makes a copy of u the result's Usage, in storage the result owns.
func (res *Result) setUsage(u *wire.Usage) {
	st := &res.usage
	st.u = Usage{}
	if u.PromptTokens != nil {
		st.counts[0], st.u.PromptTokens = *u.PromptTokens, &st.counts[0]
	}
	if u.CompletionTokens != nil {
		st.counts[1], st.u.CompletionTokens = *u.CompletionTokens, &st.counts[1]
	}
	if u.TotalTokens != nil {
		st.counts[2], st.u.TotalTokens = *u.TotalTokens, &st.counts[2]
	}
	if u.PromptTokensDetails != nil && u.PromptTokensDetails.CachedTokens != nil {
		st.counts[3], st.u.CachedTokens = *u.PromptTokensDetails.CachedTokens, &st.counts[3]
	}
	res.Usage = &st.u
}

// lag accounts for the time since the read that delivered the event just processed.
func (res *Result) lag(read time.Time) {
	d := time.Since(read)
	res.EventLag += d
	res.EventLagMax = max(res.EventLagMax, d)
}

// attribute records the cumulative completion tokens of the latest arrival when its chunk
// carried usage; one chunk without it makes attribution impossible for the whole stream.
func (res *Result) attribute(u *wire.Usage) {
	n := len(res.Arrivals)
	if u == nil || u.CompletionTokens == nil {
		res.ArrivalTokens = nil
		res.noPerChunkUsage = true
		return
	}
	if res.noPerChunkUsage {
		return
	}
	if res.ArrivalTokens == nil {
		res.ArrivalTokens = make([]int, 0, cap(res.Arrivals))
	}
	if len(res.ArrivalTokens) == n-1 {
		res.ArrivalTokens = append(res.ArrivalTokens, *u.CompletionTokens)
	}
}

// captures recycles content captures between results (see Result.Release).
var captures = sync.Pool{New: func() any {
	b := make([]byte, 0, captureStart)
	return &b
}}

// Release gives the result's content capture back for reuse by the next stream: call it
// once Content has been judged; Content is invalid after.
func (res *Result) Release() {
	if res.contentBox == nil {
		return
	}
	*res.contentBox = res.content[:0]
	captures.Put(res.contentBox)
	res.contentBox, res.content, res.Content = nil, nil, ""
}

// captureStart is the first capacity of the capture: a 32-word answer fits.
const captureStart = 256

// capture appends visible content up to CaptureLimit characters. Content is a view of the
// capture buffer, so appending copies only s.
func (res *Result) capture(s string) {
	if res.ContentTruncated {
		return
	}
	if res.content == nil {
		res.contentBox = captures.Get().(*[]byte)
		res.content = (*res.contentBox)[:0]
	}
	n := utf8.RuneCountInString(s)
	if res.contentRunes+n > CaptureLimit {
		keep := CaptureLimit - res.contentRunes
		for i := range s {
			if keep == 0 {
				s = s[:i]
				break
			}
			keep--
		}
		n = CaptureLimit - res.contentRunes
		res.ContentTruncated = true
	}
	res.content = append(res.content, s...)
	res.contentRunes += n
	res.Content = unsafe.String(unsafe.SliceData(res.content), len(res.content))
}

// httpError reads a bounded amount of a non-200 body and keeps its message.
func httpError(resp *http.Response) *Error {
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	msg := fmt.Sprintf("HTTP %d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		return &Error{Kind: KindHTTP, Status: resp.StatusCode, Message: msg + ": redirect not followed (a benchmark never resends a request)"}
	}
	if detail := errorBodyMessage(raw); detail != "" {
		msg += ": " + detail
	}
	return &Error{Kind: KindHTTP, Status: resp.StatusCode, Message: msg}
}

// errorBodyMessage extracts the message of an OpenAI-style ({"error":{"message"}}),
// flat ({"message"}) or FastAPI ({"detail"}) error body, else the body text itself.
func errorBodyMessage(raw []byte) string {
	var body struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(raw, &body) == nil {
		var nested struct {
			Message string `json:"message"`
		}
		var flat string
		switch {
		case json.Unmarshal(body.Error, &nested) == nil && nested.Message != "":
			return clip(nested.Message)
		case json.Unmarshal(body.Error, &flat) == nil && flat != "":
			return clip(flat)
		case body.Message != "":
			return clip(body.Message)
		case len(body.Detail) > 0:
			return clip(string(body.Detail))
		}
	}
	return clip(strings.TrimSpace(string(raw)))
}

// clip bounds the server-provided text read into an error, for memory's sake; seal cuts
// the message to its final length only after the key is redacted, so no cut can leave
// half a key that redaction would miss.
func clip(s string) string {
	const limit = 64 << 10
	if len(s) <= limit {
		return s
	}
	return s[:limit] + "..."
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

// streamState is what one stream's read loop needs, recycled between streams so that the
// steady state allocates nothing: the event reader and its buffer, the stamping reader, the
// chunk decoder and the stall watchdog with its timer.
type streamState struct {
	events wire.EventReader
	sr     stampReader
	ch     wire.Chunk
	watch  stallWatch
	model  string // the model the previous stream named, kept so the next need not copy it
}

// name returns the model a chunk named as a string of its own (the chunk's is a view of the
// read buffer), copying it only when it differs from the previous stream's.
func (st *streamState) name(m wire.Name) string {
	if string(m) != st.model {
		st.model = strings.Clone(string(m))
	}
	return st.model
}

var streamStates = sync.Pool{New: func() any { return new(streamState) }}

// release stops the watchdog and recycles the state, unless a watchdog callback may still
// be running: then it is left to the collector.
func (st *streamState) release() {
	if !st.watch.stop() {
		return
	}
	st.sr = stampReader{}
	st.events.Reset(nil, 0)
	streamStates.Put(st)
}

// stampReader records when each read that delivered bytes returned, and keeps the stall
// watchdog from firing while bytes keep arriving. The event reader only reads when no
// complete event is buffered, so the event being processed was completed by the latest
// read: its arrival is last.
type stampReader struct {
	r      io.Reader
	now    func() time.Time // nil: time.Now (a test hook)
	stamps stamper          // the socket's arrival stamps; nil: when the read returned
	last   time.Time
	watch  *stallWatch
}

func (s *stampReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if n > 0 {
		switch {
		case s.now != nil:
			s.last = s.now()
		case s.stamps != nil:
			s.last = s.stamps()
		default:
			s.last = time.Now()
		}
		if w := s.watch; w != nil {
			w.lastRead.Store(int64(s.last.Sub(w.origin)))
		}
	}
	return n, err
}

// stallWatch fires when no read delivered bytes for after. A read only stores its time (an
// atomic store, no timer operation); the timer, when it expires, re-arms itself for the
// rest of the silence measured from the latest read. The timer is kept across streams.
type stallWatch struct {
	after    time.Duration
	fire     func()
	origin   time.Time
	lastRead atomic.Int64 // the latest read, as an offset from origin
	done     atomic.Bool
	armed    bool
	mu       sync.Mutex // orders arming before check's use of the timer
	timer    *time.Timer
}

// arm starts the watchdog: fire is called once no bytes arrived for after since origin.
func (w *stallWatch) arm(after time.Duration, fire func(), origin time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.after, w.fire, w.origin, w.armed = after, fire, origin, true
	w.lastRead.Store(0)
	w.done.Store(false)
	if w.timer == nil {
		w.timer = time.AfterFunc(after, w.check)
	} else {
		w.timer.Reset(after)
	}
}

// stop ends the watch. It reports whether the watch can be armed again: not when its
// callback has started, as it may still be reading it.
func (w *stallWatch) stop() (reusable bool) {
	if !w.armed {
		return true
	}
	w.done.Store(true)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.armed = false
	return w.timer.Stop()
}

func (w *stallWatch) check() {
	if w.done.Load() {
		return
	}
	idle := time.Since(w.origin) - time.Duration(w.lastRead.Load())
	if idle >= w.after {
		w.fire()
		return
	}
	w.mu.Lock()
	if !w.done.Load() {
		w.timer.Reset(w.after - idle)
	}
	w.mu.Unlock()
}
