package refengine

import (
	"fmt"
	"net"
	"net/http"
)

// faultErrorTypes are the OpenAI SDK's error type names by status.
var faultErrorTypes = map[int]string{
	http.StatusBadRequest:          "BadRequestError",
	http.StatusUnauthorized:        "AuthenticationError",
	http.StatusForbidden:           "PermissionDeniedError",
	http.StatusNotFound:            "NotFoundError",
	http.StatusConflict:            "ConflictError",
	http.StatusUnprocessableEntity: "UnprocessableEntityError",
	http.StatusTooManyRequests:     "RateLimitError",
	http.StatusInternalServerError: "InternalServerError",
	http.StatusServiceUnavailable:  "ServiceUnavailableError",
}

// answerImmediate sends the response of an HTTPStatus or Redirect fault.
func answerImmediate(w http.ResponseWriter, f Faults) {
	if f.HTTPStatus == 0 {
		w.Header().Set("Location", f.Redirect)
		w.WriteHeader(http.StatusTemporaryRedirect)
		return
	}
	typ, ok := faultErrorTypes[f.HTTPStatus]
	if !ok {
		typ = "APIError"
	}
	if f.HTTPStatus == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", "1")
	}
	writeError(w, &apiError{f.HTTPStatus, typ,
		fmt.Sprintf("Injected fault: %d %s.", f.HTTPStatus, http.StatusText(f.HTTPStatus))})
}

// reset ends the request by resetting its TCP connection (RST, not FIN): what was flushed
// stays delivered, the rest is lost. The trace is finished first, so that it is complete by
// the time the client sees the reset.
func (g *run) reset() {
	g.tr.finish(0, "", false)
	_ = resetConnection(g.rc)
}

// resetConnection hijacks the connection behind rc and closes it with SO_LINGER 0.
func resetConnection(rc *http.ResponseController) error {
	conn, _, err := rc.Hijack()
	if err != nil {
		return fmt.Errorf("reset connection: %w", err)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		if err := tc.SetLinger(0); err != nil {
			_ = conn.Close()
			return fmt.Errorf("reset connection: %w", err)
		}
	}
	if err := conn.Close(); err != nil {
		return fmt.Errorf("reset connection: %w", err)
	}
	return nil
}
