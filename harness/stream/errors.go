package stream

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
)

// Error kinds: the error_type of a failure row. They are stable strings users filter on.
const (
	KindConnect        = "connect_error"    // the connection could not be made
	KindTransport      = "transport_error"  // the request failed before a response arrived
	KindHTTP           = "http_error"       // a non-200 response, or a redirect (never followed)
	KindContentType    = "bad_content_type" // a 200 that is not an event stream
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
	Err     error
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
		return &Error{KindStall, fmt.Sprintf("%s: no bytes for %s after %d events (ANVIL_STALL_TIMEOUT)", during, s.stall, events), err}
	case errors.Is(cause, errDeadline):
		return &Error{KindTimeout, fmt.Sprintf("%s: request exceeded %s (ANVIL_TIMEOUT)", during, s.timeout), err}
	case cause != nil:
		return &Error{KindCancelled, fmt.Sprintf("%s: cancelled: %v", during, cause), err}
	}
	var opErr *net.OpError
	switch {
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return &Error{KindConnect, fmt.Sprintf("%s: connect: %v", during, opErr.Err), err}
	case errors.Is(err, bufio.ErrTooLong):
		return &Error{KindEventTooLarge, fmt.Sprintf("%s: an event exceeded %d bytes", during, s.maxEvent), err}
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, syscall.EPIPE):
		return &Error{KindConnectionLost, fmt.Sprintf("%s: connection lost after %d events: %v", during, events, rootCause(err)), err}
	}
	if during == "send request" {
		return &Error{KindTransport, fmt.Sprintf("%s: %v", during, rootCause(err)), err}
	}
	return &Error{KindRead, fmt.Sprintf("%s: %v", during, rootCause(err)), err}
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
