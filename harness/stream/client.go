package stream

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tmaxmax/go-sse"

	"github.com/anvilbench/anvilbench/harness/config"
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
	APIKey config.Secret
	// Timeout bounds each request from start to end.
	Timeout time.Duration
	// StallTimeout bounds the silence between reads once the first event has arrived.
	StallTimeout time.Duration
	// MaxEventSize caps one SSE event in bytes; 0 means DefaultMaxEventSize.
	MaxEventSize int
	// Connections is the number of streams expected in flight; the transport keeps that many
	// idle connections so no request pays for a new TCP handshake inside its TTFT.
	Connections int
}

type settings struct {
	timeout, stall time.Duration
	maxEvent       int
}

// Client sends streamed requests to one endpoint. It is safe for concurrent use; one
// goroutine per stream is the intended model.
type Client struct {
	base   string
	apiKey config.Secret
	http   *http.Client
	s      settings
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
	transport := &http.Transport{
		Proxy:               nil, // a proxy between client and engine would be measured too
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        opts.Connections + 4,
		MaxIdleConnsPerHost: opts.Connections + 4,
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
		ForceAttemptHTTP2:   false,
	}
	return &Client{
		base:   strings.TrimRight(opts.BaseURL, "/"),
		apiKey: opts.APIKey,
		http: &http.Client{
			Transport:     transport,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		s: settings{timeout: opts.Timeout, stall: opts.StallTimeout, maxEvent: opts.MaxEventSize},
	}
}

// Close releases idle connections.
func (c *Client) Close() { c.http.CloseIdleConnections() }

func (c *Client) newRequest(ctx context.Context, method, path string, body []byte) (*http.Request, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, r)
	if err != nil {
		return nil, &Error{Kind: KindTransport, Message: "build request: invalid endpoint URL", Err: err}
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.apiKey.IsSet() {
		req.Header.Set("Authorization", "Bearer "+c.apiKey.Reveal())
	}
	return req, nil
}

// Stream POSTs body to path (e.g. "/chat/completions") and reads the event stream to its
// end. maxTokens is the request's max_tokens: it pre-sizes the arrival log and bounds the
// stream, since every output chunk carries at least one token, a server that sends more
// chunks than that (with a small allowance) is cut off rather than read forever. 0 means
// no bound. The Result is returned even with an error, holding whatever arrived before it;
// the error is an *Error.
func (c *Client) Stream(ctx context.Context, path string, body []byte, maxTokens int) (*Result, error) {
	maxChunks := 0
	if maxTokens > 0 {
		maxChunks = maxTokens + overrunAllowance
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	deadline := time.AfterFunc(c.s.timeout, func() { cancel(errDeadline) })
	defer deadline.Stop()

	res := &Result{Arrivals: make([]time.Duration, 0, maxTokens+2)}
	req, err := c.newRequest(ctx, http.MethodPost, path, body)
	if err != nil {
		return res, err
	}
	req.Header.Set("Accept", "text/event-stream")

	res.Start = time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		return res, classify(ctx, err, "send request", &c.s, 0)
	}
	defer resp.Body.Close()
	res.StatusCode = resp.StatusCode
	if resp.StatusCode != http.StatusOK {
		return res, httpError(resp)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "text/event-stream" {
		return res, &Error{Kind: KindContentType, Message: fmt.Sprintf("response is %q, not an event stream (does the endpoint support stream: true?)", mt)}
	}
	res.Streamed = true

	sr := &stampReader{r: resp.Body}
	defer sr.stop()
	var ch chunk
	events := 0
	for ev, err := range sse.Read(sr, &sse.ReadConfig{MaxEventSize: c.s.maxEvent}) {
		if err != nil {
			return res, classify(ctx, err, "read stream", &c.s, events)
		}
		at := sr.last.Sub(res.Start)
		if events == 0 {
			sr.arm(c.s.stall, func() { cancel(errStall) })
		}
		events++
		res.Events = events
		if ev.Type == "error" {
			return res, &Error{Kind: KindServerError, Message: "server sent an error event: " + clip(ev.Data)}
		}
		if ev.Data == "[DONE]" {
			res.Terminal = true
			res.End = at
			return res, nil
		}
		if ev.Data == "" {
			continue
		}
		if !utf8.ValidString(ev.Data) {
			return res, &Error{Kind: KindMalformed, Message: fmt.Sprintf("event %d is not valid UTF-8", events)}
		}
		if err := ch.decode(ev.Data); err != nil {
			return res, &Error{Kind: KindMalformed, Message: fmt.Sprintf("event %d is not a JSON chunk: %v", events, err), Err: err}
		}
		if msg, ok := ch.errorMessage(); ok {
			return res, &Error{Kind: KindServerError, Message: "server error in stream: " + msg}
		}
		res.observe(&ch, at)
		res.lag(sr.last)
		if maxChunks > 0 && len(res.Arrivals) > maxChunks {
			return res, &Error{Kind: KindOverrun, Message: fmt.Sprintf("stream sent %d output chunks, more than max_tokens allows; stopped reading", len(res.Arrivals))}
		}
	}
	// The body ended without [DONE]. A stall or deadline surfaces as a read error above, so
	// this is a close by the server: complete only if a finish_reason was seen.
	res.End = time.Since(res.Start)
	if cause := context.Cause(ctx); cause != nil {
		return res, classify(ctx, cause, "read stream", &c.s, events)
	}
	if !res.Complete() {
		return res, &Error{Kind: KindTruncated, Message: fmt.Sprintf("stream closed after %d events without [DONE] or a finish_reason", events)}
	}
	return res, nil
}

// observe folds one decoded chunk into the result. at is the arrival of its bytes.
func (res *Result) observe(ch *chunk, at time.Duration) {
	if ch.Usage != nil {
		u := ch.Usage.usage()
		res.Usage = &u
	}
	for i := range ch.Choices {
		c := &ch.Choices[i]
		if c.FinishReason != nil {
			res.FinishReasons = append(res.FinishReasons, *c.FinishReason)
		}
		reasoning := c.Delta.ReasoningContent
		if reasoning == "" {
			reasoning = c.Delta.Reasoning
		}
		content := c.Delta.Content
		if content == "" {
			content = c.Text // the legacy completions endpoint
		}
		if reasoning == "" && content == "" {
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
		if content != "" {
			res.ContentChunks++
			if !res.HasFirstContent {
				res.HasFirstContent, res.FirstContent = true, at
			}
			res.capture(content)
		}
	}
}

// lag accounts for the time since the read that delivered the event just processed.
func (res *Result) lag(read time.Time) {
	d := time.Since(read)
	res.EventLag += d
	res.EventLagMax = max(res.EventLagMax, d)
}

// attribute records the cumulative completion tokens of the latest arrival when its chunk
// carried usage; one chunk without it makes attribution impossible for the whole stream.
func (res *Result) attribute(u *wireUsage) {
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

// capture appends visible content up to CaptureLimit characters.
func (res *Result) capture(s string) {
	if res.ContentTruncated {
		return
	}
	have := utf8.RuneCountInString(res.Content)
	if n := utf8.RuneCountInString(s); have+n <= CaptureLimit {
		res.Content += s
		return
	}
	keep := CaptureLimit - have
	for i := range s {
		if keep == 0 {
			res.Content += s[:i]
			break
		}
		keep--
	}
	res.ContentTruncated = true
}

// httpError reads a bounded amount of a non-200 body and keeps its message.
func httpError(resp *http.Response) *Error {
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	msg := fmt.Sprintf("HTTP %d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		return &Error{Kind: KindHTTP, Message: msg + ": redirect not followed (a benchmark never resends a request)"}
	}
	if detail := errorBodyMessage(raw); detail != "" {
		msg += ": " + detail
	}
	return &Error{Kind: KindHTTP, Message: msg}
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

// clip bounds a server-provided text kept in an error.
func clip(s string) string {
	const limit = 1024
	if len(s) <= limit {
		return s
	}
	return s[:limit] + "..."
}

// stampReader records when each read that delivered bytes returned, and keeps the stall
// timer from firing while bytes keep arriving. bufio.Scanner inside sse.Read only reads
// when no complete event is buffered, so the event being yielded was completed by the
// latest read: its arrival is last.
type stampReader struct {
	r     io.Reader
	last  time.Time
	stall *time.Timer
	after time.Duration
}

func (s *stampReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if n > 0 {
		s.last = time.Now()
		if s.stall != nil {
			s.stall.Reset(s.after)
		}
	}
	return n, err
}

func (s *stampReader) arm(after time.Duration, fire func()) {
	s.after = after
	s.stall = time.AfterFunc(after, fire)
}

func (s *stampReader) stop() {
	if s.stall != nil {
		s.stall.Stop()
	}
}
