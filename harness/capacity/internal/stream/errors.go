package stream

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"

	"github.com/anvilbench/anvilbench/internal/wire"
)

// Error kinds: the error_type of a failure row. They are stable strings users filter on.
const (
	KindConnect        = "connect_error"    // the connection could not be made
	KindTransport      = "transport_error"  // the request failed before a response arrived
	KindHTTP           = "http_error"       // a non-200 response, or a redirect (never followed)
	KindContentType    = "bad_content_type" // a 200 that is not the stream the API sends
	KindTimeout        = "timeout"          // the per-request deadline passed
	KindStall          = "stall"            // no bytes for the stall timeout after the stream began
	KindCancelled      = "cancelled"        // the run was interrupted
	KindConnectionLost = "connection_lost"  // the body was cut (reset, unexpected EOF)
	KindTruncated      = "truncated_stream" // a clean close before [DONE] or a finish_reason
	KindMalformed      = "malformed_stream" // an event whose data is not a JSON chunk
	KindServerError    = "stream_error"     // the server sent an error object in the stream
	KindEventTooLarge  = "event_too_large"  // one event above the size cap
	KindRead           = "read_error"       // any other failure while reading the body
	KindOverrun        = "endless_stream"   // far more output chunks than max_tokens allows
)

// Error is a failed request, classified by Kind. Its message never carries the API key or
// URL credentials (the request URL is never part of it).
type Error struct {
	Kind    string
	Message string
	// Status is the HTTP status of a non-200 response (KindHTTP), 0 otherwise.
	Status int
	Err    error
}

func (e *Error) Error() string { return e.Message }

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Sentinel causes set on the request context so a cancelled read can be told apart.
var (
	errDeadline = errors.New("request deadline passed")
	errStall    = errors.New("stream stalled")
)

// classify turns an error of the HTTP round trip or the body read into an *Error, using
// the request context's cause to tell deadline, stall and interruption apart.
func classify(ctx context.Context, err error, during string, s *settings, events int) *Error {
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errStall):
		return &Error{Kind: KindStall, Message: fmt.Sprintf("%s: no bytes for %s after %d events (ANVIL_STALL_TIMEOUT)", during, s.stall, events), Err: err}
	case errors.Is(cause, errDeadline):
		return &Error{Kind: KindTimeout, Message: fmt.Sprintf("%s: request exceeded %s (ANVIL_TIMEOUT)", during, s.timeout), Err: err}
	case cause != nil:
		return &Error{Kind: KindCancelled, Message: fmt.Sprintf("%s: cancelled: %v", during, cause), Err: err}
	}
	var opErr *net.OpError
	switch {
	case errors.As(err, &opErr) && opErr.Op == "dial":
		// opErr.Err is "connect: connection refused" already; the address says where.
		to := ""
		if opErr.Addr != nil {
			to = " to " + opErr.Addr.String()
		}
		return &Error{Kind: KindConnect, Message: fmt.Sprintf("%s: connect%s: %v", during, to, rootCause(opErr.Err)), Err: err}
	case errors.Is(err, bufio.ErrTooLong), errors.Is(err, wire.ErrLineTooLong):
		return &Error{Kind: KindEventTooLarge, Message: fmt.Sprintf("%s: an event exceeded %d bytes", during, s.maxEvent), Err: err}
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, syscall.EPIPE):
		return &Error{Kind: KindConnectionLost, Message: fmt.Sprintf("%s: connection lost after %d events: %v", during, events, rootCause(err)), Err: err}
	}
	if during == "send request" {
		return &Error{Kind: KindTransport, Message: fmt.Sprintf("%s: %v", during, rootCause(err)), Err: err}
	}
	return &Error{Kind: KindRead, Message: fmt.Sprintf("%s: %v", during, rootCause(err)), Err: err}
}

// rootCause strips wrappers such as *url.Error, whose text would repeat the request URL.
func rootCause(err error) error {
	for {
		u := errors.Unwrap(err)
		if u == nil {
			return err
		}
		err = u
	}
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
