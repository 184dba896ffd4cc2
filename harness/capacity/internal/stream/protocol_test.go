package stream

import (
	"slices"
	"strings"
	"testing"

	"github.com/anvilbench/anvilbench/harness/secret"
)

// Every API is registered once, in a fixed order whatever the order of its files, with a
// path of its own and what its requests can carry; the empty API is chat.
func TestTheProtocolsAreRegisteredOnce(t *testing.T) {
	t.Parallel()
	if got := APIChat.Choices(); !slices.Equal(got, []string{"chat", "completions", "responses", "messages", "ollama"}) {
		t.Errorf("choices %v", got)
	}
	paths := map[string]API{}
	for _, name := range APIChat.Choices() {
		a := API(name)
		if other, dup := paths[a.Path()]; dup || !strings.HasPrefix(a.Path(), "/") {
			t.Errorf("%s: path %q (also %s's)", a, a.Path(), other)
		}
		paths[a.Path()] = a
		if s := a.Supports(); s.ProbeTokens < 1 {
			t.Errorf("%s: %+v", a, s)
		}
	}
	if API("").Path() != "/chat/completions" || API("").Name() != "chat" || !API("").Valid() || API("ollama-native").Valid() {
		t.Errorf("the empty API is not chat, or an unknown one is valid")
	}
	if APIOllama.target("/v1") != "/api/chat" || APIOllama.target("/engine/v1/") != "/engine/api/chat" || APIChat.target("/v1") != "/v1/chat/completions" {
		t.Errorf("targets: %s, %s, %s", APIOllama.target("/v1"), APIOllama.target("/engine/v1/"), APIChat.target("/v1"))
	}
	if s := APICompletions.Supports(); s.Conversation || s.Tools {
		t.Errorf("completions carries %+v", s)
	}
	if s := APIMessages.Supports(); s.ReasoningEffort || !s.Tools {
		t.Errorf("messages carries %+v", s)
	}
	if APIResponses.Supports().ProbeTokens != 16 {
		t.Errorf("the Responses API's probe: %+v", APIResponses.Supports())
	}
}

// A request's head carries its API's own headers (the Messages API's version and key)
// beside the bearer token every API gets.
func TestTheRequestHeadIsTheAPIs(t *testing.T) {
	t.Parallel()
	d, err := newDirect("http://127.0.0.1:1/v1", secret.New("sk-test"), 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		api        API
		line, more string
	}{
		{APIChat, "POST /v1/chat/completions HTTP/1.1\r\n", ""},
		{APIResponses, "POST /v1/responses HTTP/1.1\r\n", ""},
		{APIMessages, "POST /v1/messages HTTP/1.1\r\n", "anthropic-version: 2023-06-01\r\n"},
		{APIOllama, "POST /api/chat HTTP/1.1\r\n", ""},
	} {
		m := d.message(c.api, []byte(`{}`), "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
		head := string(*m.b)
		m.free()
		if !strings.Contains(head, "\r\ntraceparent: 00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01\r\n") {
			t.Errorf("%s: no traceparent in %q", c.api, head)
		}
		own := strings.Contains(head, "anthropic-version") || strings.Contains(head, "x-api-key: sk-test")
		if !strings.HasPrefix(head, c.line) || (c.more != "") != own || !strings.Contains(head, c.more) || !strings.Contains(head, "Authorization: Bearer sk-test\r\n") {
			t.Errorf("%s: %q", c.api, head)
		}
	}
}
