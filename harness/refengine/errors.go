package refengine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
)

// apiError is an HTTP error answered with vLLM's JSON error body:
// {"error":{"message":...,"type":...,"code":<status>}}.
type apiError struct {
	Status  int
	Type    string
	Message string
}

func (e *apiError) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Type, e.Message) }

func errBadRequest(format string, args ...any) *apiError {
	return &apiError{http.StatusBadRequest, "BadRequestError", fmt.Sprintf(format, args...)}
}

func errModelNotFound(model string) *apiError {
	return &apiError{http.StatusNotFound, "NotFoundError",
		fmt.Sprintf("The model `%s` does not exist.", model)}
}

func errUnauthorized() *apiError {
	return &apiError{http.StatusUnauthorized, "AuthenticationError",
		"Incorrect or missing API key: send Authorization: Bearer <key>."}
}

func errMethod(method string) *apiError {
	return &apiError{http.StatusMethodNotAllowed, "MethodNotAllowedError",
		fmt.Sprintf("Method %s is not allowed on this endpoint.", method)}
}

func errNoRoute(path string) *apiError {
	return &apiError{http.StatusNotFound, "NotFoundError", fmt.Sprintf("No route for %s.", path)}
}

func errUnavailable() *apiError {
	return &apiError{http.StatusServiceUnavailable, "ServiceUnavailableError", "The server is shutting down."}
}

// errorBody is the JSON shape of an error response.
type errorBody struct {
	Error struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Code    int    `json:"code"`
	} `json:"error"`
}

// writeError sends e as the whole response.
func writeError(w http.ResponseWriter, e *apiError) {
	var eb errorBody
	eb.Error.Message, eb.Error.Type, eb.Error.Code = e.Message, e.Type, e.Status
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // like vLLM: "<key>" stays readable
	if err := enc.Encode(eb); err != nil {
		// Cannot happen for strings and ints.
		buf.Reset()
		buf.WriteString(`{"error":{"message":"internal error","type":"InternalServerError","code":500}}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.Status)
	_, _ = w.Write(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}
