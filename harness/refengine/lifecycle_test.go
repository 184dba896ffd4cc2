package refengine

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"
)

// slow streams a long reply: 1000 tokens at 10ms.
func slow() Options { return Options{PrefillOverhead: time.Millisecond, ITL: 10 * time.Millisecond} }

// openStream starts a long stream and reads until the first content chunk.
func openStream(t *testing.T, ctx context.Context, s *Server) (*http.Response, *bufio.Reader) {
	t.Helper()
	resp := post(t, ctx, s.BaseURL()+"/chat/completions", chatBody(999, true, true, nil))
	br := bufio.NewReader(resp.Body)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		if strings.Contains(line, `"content":"code"`) {
			return resp, br
		}
	}
}

func TestCloseWithOpenStream(t *testing.T) {
	t.Parallel()
	s, err := Start(slow())
	if err != nil {
		t.Fatal(err)
	}
	resp, br := openStream(t, context.Background(), s)
	defer resp.Body.Close()
	closed := make(chan struct{})
	go func() { s.Close(); close(closed) }()
	select {
	case <-closed:
	case <-time.After(2 * time.Second):
		t.Fatal("Close hangs with an open stream")
	}
	rest, _ := io.ReadAll(br) // the body ends (cleanly or not) without [DONE]
	if strings.Contains(string(rest), "[DONE]") {
		t.Errorf("stream completed despite Close")
	}
	tr := s.Traces()[0]
	if !tr.Cancelled || tr.Finished.IsZero() {
		t.Errorf("trace %+v", tr)
	}
	if _, err := http.Get(s.BaseURL() + "/models"); err == nil {
		t.Errorf("server still accepts after Close")
	}
	s.Close() // idempotent
}

func TestClientDisconnectStopsSimulation(t *testing.T) {
	t.Parallel()
	o := slow()
	o.MaxBatch = 1
	s := start(t, o)
	ctx, cancel := context.WithCancel(context.Background())
	resp, _ := openStream(t, ctx, s)
	cancel()
	resp.Body.Close()
	if !waitFor(time.Second, func() bool { return !s.Traces()[0].Finished.IsZero() }) {
		t.Fatal("simulation still running after the client left")
	}
	tr := s.Traces()[0]
	if !tr.Cancelled || tr.FinishReason != "" || len(tr.ChunkTimes) > 100 {
		t.Errorf("trace: cancelled %v finish %q chunks %d", tr.Cancelled, tr.FinishReason, len(tr.ChunkTimes))
	}
	// The slot was released: a new request is admitted at once.
	got := stream(t, s, chatBody(2, true, true, map[string]any{}))
	if !got.done {
		t.Errorf("follow-up request incomplete")
	}
	if next := s.Traces()[1]; next.Admitted.Sub(next.Arrived) > 50*time.Millisecond {
		t.Errorf("follow-up waited %v for admission", next.Admitted.Sub(next.Arrived))
	}
}

func TestCloseClientConnections(t *testing.T) {
	t.Parallel()
	s := start(t, slow())
	resp, br := openStream(t, context.Background(), s)
	defer resp.Body.Close()
	s.CloseClientConnections()
	if _, err := io.ReadAll(br); err == nil {
		t.Errorf("body ended cleanly after the connection was closed")
	}
	if !waitFor(time.Second, func() bool { return s.Traces()[0].Cancelled }) {
		t.Errorf("handler did not notice the closed connection")
	}
	if got := stream(t, s, chatBody(1, true, true, nil)); !got.done {
		t.Errorf("server unusable after CloseClientConnections")
	}
}

// TestNoGoroutineLeak: after disconnects, queued waiters and Close, the goroutine count
// returns to where it was. Not parallel: it counts goroutines.
func TestNoGoroutineLeak(t *testing.T) {
	http.DefaultClient.CloseIdleConnections()
	before := runtime.NumGoroutine()
	o := slow()
	o.MaxBatch = 1
	s, err := Start(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	resp, _ := openStream(t, ctx, s)
	// A second request waits for the slot, then its client leaves too.
	ctx2, cancel2 := context.WithCancel(context.Background())
	go func() {
		if r, err := http.DefaultClient.Do(mustRequest(ctx2, s)); err == nil {
			r.Body.Close()
		}
	}()
	waitFor(time.Second, func() bool { return len(s.Traces()) == 2 })
	cancel2()
	cancel()
	resp.Body.Close()
	waitFor(time.Second, func() bool {
		tr := s.Traces()
		return len(tr) == 2 && !tr[0].Finished.IsZero() && !tr[1].Finished.IsZero()
	})
	// A third stream is left open for Close to cut.
	resp3, _ := openStream(t, context.Background(), s)
	s.Close()
	resp3.Body.Close()
	http.DefaultClient.CloseIdleConnections()
	if !waitFor(2*time.Second, func() bool { return runtime.NumGoroutine() <= before }) {
		buf := make([]byte, 1<<16)
		t.Errorf("goroutines: %d before, %d after\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
	}
}

func mustRequest(ctx context.Context, s *Server) *http.Request {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.BaseURL()+"/chat/completions",
		strings.NewReader(`{"messages":[{"role":"user","content":"hi"}],"stream":true}`))
	if err != nil {
		panic(err) // constant inputs
	}
	return req
}
