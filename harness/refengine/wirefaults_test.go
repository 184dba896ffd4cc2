package refengine

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// rawStream posts a streamed chat request with faults and returns the status, the body
// read up to its end and the read error (nil on a clean end).
func rawStream(t *testing.T, s *Server, body any, faults string) (*http.Response, string, error) {
	t.Helper()
	resp := post(t, context.Background(), s.BaseURL()+"/chat/completions", body, FaultsHeader, faults)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	return resp, string(raw), err
}

// dataLines splits an SSE body into its data payloads.
func dataLines(raw string) []string {
	var out []string
	for line := range strings.SplitSeq(raw, "\n") {
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			out = append(out, d)
		}
	}
	return out
}

func TestHTTPStatusFault(t *testing.T) {
	t.Parallel()
	s := start(t, fast())
	for _, status := range []int{503, 429, 500, 418} {
		for _, streamed := range []bool{true, false} {
			resp := post(t, context.Background(), s.BaseURL()+"/chat/completions", chatBody(3, streamed, true, nil),
				FaultsHeader, "http_status="+itoa(int64(status)))
			retry := resp.Header.Get("Retry-After")
			got, typ, msg, code := errorOf(t, resp)
			if got != status || code != status || typ == "" || msg == "" {
				t.Errorf("http_status=%d: %d %q %q %d", status, got, typ, msg, code)
			}
			if (status == 429) != (retry == "1") {
				t.Errorf("http_status=%d: Retry-After %q", status, retry)
			}
		}
	}
	if tr := s.Traces()[0]; tr.Status != 503 || tr.Finished.IsZero() || !tr.Admitted.IsZero() {
		t.Errorf("trace %+v", tr)
	}
}

func TestRedirectFault(t *testing.T) {
	t.Parallel()
	target := start(t, fast())
	s := start(t, fast())
	url := target.BaseURL() + "/chat/completions"
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Do(newPost(t, context.Background(), s.BaseURL()+"/chat/completions", chatBody(2, true, true, nil),
		FaultsHeader, "redirect="+url))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTemporaryRedirect || resp.Header.Get("Location") != url {
		t.Errorf("status %d Location %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	// A following client (307 keeps the method and body) ends up served by the target. (It
	// would resend the header, and loop: the fault is the server's here.)
	o := fast()
	o.Faults.Redirect = url
	got := stream(t, start(t, o), chatBody(2, true, true, nil))
	if !got.done || strings.Join(got.contents, "") != "code code" || len(target.Traces()) != 1 {
		t.Errorf("followed redirect: %+v, target traces %d", got, len(target.Traces()))
	}
}

func TestResetAfter(t *testing.T) {
	t.Parallel()
	s := start(t, fast())
	_, raw, err := rawStream(t, s, chatBody(20, true, true, nil), "reset_after=3")
	if err == nil || errors.Is(err, io.EOF) {
		t.Errorf("reset stream ended with %v, want a reset or unexpected EOF", err)
	}
	if err != nil {
		t.Logf("client sees: %v", err)
	}
	if n := strings.Count(raw, `"content":" code"`) + strings.Count(raw, `"content":"code"`); n != 3 {
		t.Errorf("%d content chunks before the reset, want 3:\n%s", n, raw)
	}
	tr := s.Traces()[0]
	if tr.CompletionTokens != 3 || tr.FinishReason != "" || tr.Finished.IsZero() {
		t.Errorf("trace %+v", tr)
	}
	// Not streamed: no response at all.
	resp, err := http.DefaultClient.Do(newPost(t, context.Background(), s.BaseURL()+"/chat/completions",
		chatBody(20, false, false, nil), FaultsHeader, "reset_after=3"))
	if err == nil {
		resp.Body.Close()
		t.Errorf("non-streamed reset answered %d", resp.StatusCode)
	}
	// The server keeps serving.
	if got := stream(t, s, chatBody(1, true, true, nil)); !got.done {
		t.Errorf("server unusable after a reset")
	}
}

func TestCloseMidEvent(t *testing.T) {
	t.Parallel()
	s := start(t, fast())
	_, raw, err := rawStream(t, s, chatBody(20, true, true, nil), "close_mid_event=2")
	if err != nil || !strings.HasSuffix(raw, "\n\n"+`data: {"choices":[{"delta":`) || strings.Count(raw, `"content":`) != 3 {
		t.Errorf("err %v body\n%s", err, raw)
	}
}

func TestMalformedAfter(t *testing.T) {
	t.Parallel()
	s := start(t, fast())
	_, raw, err := rawStream(t, s, chatBody(5, true, true, nil), "malformed_after=2")
	lines := dataLines(raw)
	// role, code, code, {not json}, code x3, EOS, usage, [DONE]
	if err != nil || len(lines) != 10 || lines[3] != "{not json}" || lines[9] != "[DONE]" {
		t.Errorf("err %v lines %q", err, lines)
	}
}

func TestStallAfter(t *testing.T) {
	t.Parallel()
	s := start(t, Options{PrefillOverhead: time.Millisecond, ITL: time.Millisecond})
	got := stream(t, s, chatBody(8, true, true, nil), FaultsHeader, "stall_after=3,stall_for=150ms")
	if !got.done || len(got.times) != 9 {
		t.Fatalf("stalled stream incomplete: %+v", got)
	}
	// 150ms plus one 1ms step, less the client's lateness in reading token 3.
	ct := s.Traces()[0].ChunkTimes
	for who, gap := range map[string]time.Duration{"client": got.times[3].Sub(got.times[2]), "server": ct[3].Sub(ct[2])} {
		if gap < 140*time.Millisecond || gap > 400*time.Millisecond {
			t.Errorf("%s: gap after token 3 = %v, want about 151ms", who, gap)
		}
	}
	if gap := got.times[8].Sub(got.times[3]); gap > 100*time.Millisecond {
		t.Errorf("tokens after the stall took %v", gap)
	}
}

func TestEndless(t *testing.T) {
	t.Parallel()
	s := start(t, Options{PrefillOverhead: time.Millisecond, ITL: 200 * time.Microsecond})
	ctx, cancel := context.WithCancel(context.Background())
	resp := post(t, ctx, s.BaseURL()+"/chat/completions", chatBody(2, true, true, map[string]any{"max_tokens": 3}),
		FaultsHeader, "endless=1")
	buf := make([]byte, 0, 1<<16)
	tmp := make([]byte, 4096)
	for strings.Count(string(buf), `"content":" code"`) < 100 {
		n, err := resp.Body.Read(tmp)
		buf = append(buf, tmp[:n]...)
		if err != nil {
			t.Fatalf("endless stream ended: %v", err)
		}
	}
	cancel()
	resp.Body.Close()
	if strings.Contains(string(buf), `"finish_reason":"`) {
		t.Errorf("finish_reason in an endless stream")
	}
	if !waitFor(time.Second, func() bool { return s.Traces()[0].Cancelled }) {
		t.Errorf("endless request not cancelled by the client leaving: %+v", s.Traces()[0])
	}
}

func TestHugeEventAndInvalidUTF8(t *testing.T) {
	t.Parallel()
	s := start(t, fast())
	_, raw, err := rawStream(t, s, chatBody(3, true, true, nil), "huge_event=100000")
	lines := dataLines(raw)
	// role, code, xxx..., code, code, EOS, usage, [DONE]
	if err != nil || len(lines) != 8 || !strings.Contains(lines[2], `"content":"`+strings.Repeat("x", 100000)+`"`) {
		t.Errorf("huge event: err %v, %d events", err, len(lines))
	}
	if u := decodeChunk(t, lines[6]).Usage; u == nil || u.CompletionTokens != 4 {
		t.Errorf("the huge event counted in usage: %+v", u)
	}
	_, raw, err = rawStream(t, s, chatBody(3, true, true, nil), "invalid_utf8=1")
	if err != nil || !strings.Contains(raw, `"content":"code`+"\xff\xfe"+`"`) || strings.Count(raw, "\xff") != 1 {
		t.Errorf("invalid UTF-8: %v\n%q", err, raw)
	}
}

func TestHeadersWithFirstToken(t *testing.T) {
	t.Parallel()
	const ttft = 200 * time.Millisecond
	s := start(t, Options{PrefillOverhead: ttft, ITL: time.Millisecond})
	for _, held := range []bool{false, true} {
		faults := ""
		if held {
			faults = "headers_with_first_token=1"
		}
		sent := time.Now()
		resp := post(t, context.Background(), s.BaseURL()+"/chat/completions", chatBody(2, true, true, nil), FaultsHeader, faults)
		headers := time.Since(sent)
		got := summarize(t, readEvents(t, resp.Body))
		resp.Body.Close()
		if !got.done {
			t.Errorf("held %v: incomplete stream", held)
		}
		if held && headers < ttft*9/10 || !held && headers > ttft/2 {
			t.Errorf("held %v: headers after %v (first token at %v)", held, headers, ttft)
		}
	}
}

func TestStreamEndFaults(t *testing.T) {
	t.Parallel()
	s := start(t, fast())
	cases := []struct {
		faults string
		check  func(lines []string) bool
	}{
		{"no_usage=1", func(l []string) bool {
			return l[len(l)-1] == "[DONE]" && !strings.Contains(strings.Join(l, ""), `"prompt_tokens"`)
		}},
		{"no_done=1", func(l []string) bool {
			return strings.Contains(l[len(l)-1], `"usage":{`) && !strings.Contains(strings.Join(l, ""), "[DONE]")
		}},
		{"usage_with_finish=1", func(l []string) bool {
			return len(l) == 5 && l[4] == "[DONE]" && strings.Contains(l[3], `"finish_reason":"stop"}],"usage":{"prompt_tokens":`)
		}},
		{"no_done=1,usage_with_finish=1", func(l []string) bool {
			return len(l) == 4 && strings.Contains(l[3], `"finish_reason":"stop"}],"usage":{`)
		}},
		{"error_event=1", func(l []string) bool {
			return len(l) == 3 && l[2] == `{"error":{"message":"engine crashed","code":500}}`
		}},
	}
	for _, c := range cases {
		resp, raw, err := rawStream(t, s, chatBody(2, true, true, nil), c.faults)
		if lines := dataLines(raw); err != nil || resp.StatusCode != 200 || len(lines) == 0 || !c.check(lines) {
			t.Errorf("%s: err %v status %d events\n%s", c.faults, err, resp.StatusCode, strings.Join(lines, "\n"))
		}
	}
	// NoUsage also drops the usage of a non-streamed body.
	resp := post(t, context.Background(), s.BaseURL()+"/chat/completions", chatBody(2, false, false, nil), FaultsHeader, "no_usage=1")
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if strings.Contains(string(raw), "usage") || !strings.Contains(string(raw), `"content":"code code"`) {
		t.Errorf("non-streamed no_usage: %s", raw)
	}
}
