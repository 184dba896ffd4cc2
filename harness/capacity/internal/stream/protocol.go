package stream

import (
	"slices"
	"strings"
	"time"

	"github.com/anvilbench/anvilbench/harness/secret"
)

// API names the wire protocol a request speaks: where it goes, how its body is written,
// how its events are read. Each is one file of this package (chat.go, completions.go,
// responses.go, messages.go) holding its protocol.
type API string

// protocol is one wire API: everything the client needs to send a request on it and read
// its stream, and what a request on it can carry. A new API is a file that registers one.
type protocol interface {
	// path is where its requests go under the base URL, or under its host's root when
	// rooted (an engine's native API beside its /v1).
	path() string
	rooted() bool
	// mediaType is the stream's content type: text/event-stream, or application/x-ndjson
	// for a JSON object a line.
	mediaType() string
	// header appends the API's own request header lines (each ending "\r\n"), if any; the
	// bearer token is written by the client for every API.
	header(dst []byte, key secret.Secret) []byte
	// body appends the request's body after its opening `{"model":"..."`, to its close.
	body(r ChatRequest, dst []byte) ([]byte, error)
	// start readies the stream state for a new stream (a typed API's decoder and counts).
	start(st *streamState)
	// fold folds one event's data into res; terminal reports the event that ends the
	// stream, where the API has one in place of chat's [DONE].
	fold(st *streamState, s *settings, data []byte, res *Result, at time.Duration) (terminal bool, err error)
	// supports is what a request on it can carry.
	supports() Support
}

// openAIStyle gives a protocol the defaults of an OpenAI-style API: under the base URL,
// an event stream, no headers or stream state of its own.
type openAIStyle struct{}

func (openAIStyle) rooted() bool                              { return false }
func (openAIStyle) mediaType() string                         { return eventStream }
func (openAIStyle) header(dst []byte, _ secret.Secret) []byte { return dst }
func (openAIStyle) start(*streamState)                        {}

// The stream content types.
const (
	eventStream = "text/event-stream"
	ndjson      = "application/x-ndjson"
)

// Support is what a request on an API can carry, so a scenario is checked against the API
// before any request, and the client writes only what the API has.
type Support struct {
	// Conversation: a history of messages before the prompt (sessions and traces need it;
	// a completions prompt is plain text).
	Conversation bool
	// Tools and schemas: a function to call, and JSON answers of a schema.
	Tools bool
	// ReasoningEffort: a reasoning-effort setting of its own.
	ReasoningEffort bool
	// Images: images with the prompt (a completions prompt is plain text).
	Images bool
	// Priority: a request's priority field (vLLM's and SGLang's, on their OpenAI APIs).
	Priority bool
	// ProbeTokens is the least max_tokens the API accepts for a one-token probe.
	ProbeTokens int
}

// registered holds the protocols in the order Choices lists them.
var registered []registration

type registration struct {
	api  API
	p    protocol
	rank int
}

// register adds an API's protocol; each protocol's file calls it from init, with its rank
// in Choices (chat, the default, first), so the order does not hang on the files'.
func register(api API, p protocol, rank int) {
	registered = append(registered, registration{api, p, rank})
	slices.SortFunc(registered, func(a, b registration) int { return a.rank - b.rank })
}

// proto is a's protocol; chat's for the empty or an unknown API (validation refuses an
// unknown one before any request).
func (a API) proto() protocol {
	for _, r := range registered {
		if r.api == a {
			return r.p
		}
	}
	return chat{}
}

// Choices lists the APIs.
func (API) Choices() []string {
	out := make([]string, len(registered))
	for i, r := range registered {
		out[i] = string(r.api)
	}
	return out
}

// Valid reports whether a is empty (chat) or one of Choices.
func (a API) Valid() bool { return a == "" || slices.Contains(a.Choices(), string(a)) }

// Name is the API as an artifact records it: "chat" for the empty default.
func (a API) Name() string {
	if a == "" {
		return string(APIChat)
	}
	return string(a)
}

// Path is the API's path under the base URL (under its host's root for a native API).
func (a API) Path() string { return a.proto().path() }

// target is the path a request on a goes to, for a base URL whose path is prefix ("/v1").
func (a API) target(prefix string) string {
	p := a.proto()
	if p.rooted() {
		return strings.TrimSuffix(strings.TrimSuffix(prefix, "/"), "/v1") + p.path()
	}
	return prefix + p.path()
}

// Supports is what a request on the API can carry.
func (a API) Supports() Support { return a.proto().supports() }
