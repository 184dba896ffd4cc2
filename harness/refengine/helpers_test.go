package refengine

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// start starts a server closed at the end of the test.
func start(t testing.TB, o Options) *Server {
	t.Helper()
	s, err := Start(o)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// instruction is the controlled-output phrase of internal/workload.
func instruction(n int, word string) string {
	return fmt.Sprintf("Reply with exactly %d words, each the lowercase word %q, separated by single spaces, and nothing else.", n, word)
}

// chatBody is a chat request asking for words copies of "code".
func chatBody(words int, stream, usage bool, extra map[string]any) map[string]any {
	b := map[string]any{
		"model": DefaultModel,
		"messages": []map[string]any{
			{"role": "system", "content": "You are a benchmark target."},
			{"role": "user", "content": "Some context.\n" + instruction(words, "code")},
		},
		"stream": stream,
	}
	if usage {
		b["stream_options"] = map[string]any{"include_usage": true}
	}
	for k, v := range extra {
		b[k] = v
	}
	return b
}

// newPost builds a JSON POST request; headers are key, value pairs.
func newPost(t testing.TB, ctx context.Context, url string, body any, headers ...string) *http.Request {
	t.Helper()
	raw, err := json.Marshal(body)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("new request: %v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return req
}

// post sends body as JSON with the default client.
func post(t testing.TB, ctx context.Context, url string, body any, headers ...string) *http.Response {
	t.Helper()
	resp, err := http.DefaultClient.Do(newPost(t, ctx, url, body, headers...))
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	return resp
}

// event is one SSE data line and when the client read it.
type event struct {
	data string
	at   time.Time
}

// readEvents reads the whole SSE body, timestamping each data line as it is read.
func readEvents(t testing.TB, r io.Reader) []event {
	t.Helper()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var evs []event
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("unexpected SSE line %q", line)
		}
		evs = append(evs, event{data: data, at: time.Now()})
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read stream: %v", err)
	}
	return evs
}

// chunk is a decoded streamed chunk (chat or legacy).
type chunk struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	Model   string `json:"model"`
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Role             *string `json:"role"`
			Content          *string `json:"content"`
			ReasoningContent *string `json:"reasoning_content"`
			Reasoning        *string `json:"reasoning"`
		} `json:"delta"`
		Text         *string `json:"text"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *usageBody `json:"usage"`
}

func decodeChunk(t testing.TB, data string) chunk {
	t.Helper()
	var c chunk
	if err := json.Unmarshal([]byte(data), &c); err != nil {
		t.Fatalf("chunk %q: %v", data, err)
	}
	return c
}

// streamSummary is what a client reads from a stream.
type streamSummary struct {
	role       int      // role chunks
	contents   []string // content (or text) of each content chunk, in order
	times      []time.Time
	finish     []string     // finish_reason of each content chunk ("" for null)
	reasoning  []string     // reasoning text of each reasoning chunk, in order
	reasonKey  string       // the delta member reasoning came in
	lastFinish string       // finish_reason of the last token chunk, content or reasoning
	chunkUsage []*usageBody // usage of each token chunk (reasoning and content), in order
	roleUsage  *usageBody
	usage      *usageBody
	usageLast  bool // the usage chunk came right before [DONE]
	done       bool // [DONE] was the last event
}

func summarize(t testing.TB, evs []event) streamSummary {
	t.Helper()
	var s streamSummary
	for i, ev := range evs {
		if ev.data == "[DONE]" {
			if i != len(evs)-1 {
				t.Fatalf("[DONE] is not the last event")
			}
			s.done = true
			continue
		}
		c := decodeChunk(t, ev.data)
		if len(c.Choices) == 0 {
			s.usage = c.Usage
			s.usageLast = i == len(evs)-2 && evs[len(evs)-1].data == "[DONE]"
			continue
		}
		ch := c.Choices[0]
		if ch.Delta.Role != nil {
			s.role++
			s.roleUsage = c.Usage
			continue
		}
		fr := ""
		if ch.FinishReason != nil {
			fr = *ch.FinishReason
		}
		s.lastFinish = fr
		s.chunkUsage = append(s.chunkUsage, c.Usage)
		for key, r := range map[string]*string{"reasoning_content": ch.Delta.ReasoningContent, "reasoning": ch.Delta.Reasoning} {
			if r != nil {
				s.reasoning = append(s.reasoning, *r)
				s.reasonKey = key
			}
		}
		if ch.Delta.ReasoningContent != nil || ch.Delta.Reasoning != nil {
			continue
		}
		text := ch.Text
		if text == nil {
			text = ch.Delta.Content
		}
		if text == nil {
			t.Fatalf("chunk without content: %s", ev.data)
		}
		s.contents = append(s.contents, *text)
		s.times = append(s.times, ev.at)
		s.finish = append(s.finish, fr)
	}
	return s
}

// stream posts a streamed chat request and reads it all.
func stream(t testing.TB, s *Server, body any, headers ...string) streamSummary {
	t.Helper()
	resp := post(t, context.Background(), s.BaseURL()+"/chat/completions", body, headers...)
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	return summarize(t, readEvents(t, resp.Body))
}

// codeWords is "code code ... code" (n words).
func codeWords(n int) string {
	return strings.TrimSpace(strings.Repeat("code ", n))
}

// waitFor polls cond every 5ms until it holds or the timeout passes.
func waitFor(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if cond() {
			return true
		}
		time.Sleep(5 * time.Millisecond)
	}
	return cond()
}

// relErr is |got-want|/want.
func relErr(got, want time.Duration) float64 {
	d := float64(got - want)
	if d < 0 {
		d = -d
	}
	return d / float64(want)
}

// usageBody is the OpenAI usage object, key order as vLLM writes it.
type usageBody struct {
	PromptTokens            int                `json:"prompt_tokens"`
	TotalTokens             int                `json:"total_tokens"`
	CompletionTokens        int                `json:"completion_tokens"`
	PromptTokensDetails     *promptDetails     `json:"prompt_tokens_details"`
	CompletionTokensDetails *completionDetails `json:"completion_tokens_details,omitempty"`
}

type promptDetails struct {
	CachedTokens int `json:"cached_tokens"`
}

type completionDetails struct {
	ReasoningTokens int `json:"reasoning_tokens"`
}
