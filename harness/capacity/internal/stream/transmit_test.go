package stream

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// sseAfter answers every request with a two-chunk event stream, ttft after it read the
// body, and records when each handler began and finished reading.
type sseAfter struct {
	ttft  time.Duration
	slow  time.Duration // pause after each 64 KiB of body read
	mu    sync.Mutex
	began []time.Time
	read  []time.Time
}

// handled returns when the handler of request i began and finished reading its body.
func (s *sseAfter) handled(i int) (began, read time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.began[i], s.read[i]
}

func (s *sseAfter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	began := time.Now()
	buf := make([]byte, 64<<10)
	for {
		_, err := io.ReadFull(r.Body, buf)
		if err != nil {
			break
		}
		time.Sleep(s.slow)
	}
	read := time.Now()
	s.mu.Lock()
	s.began, s.read = append(s.began, began), append(s.read, read)
	s.mu.Unlock()
	time.Sleep(s.ttft)
	w.Header().Set("Content-Type", "text/event-stream")
	io.WriteString(w, `data: {"choices":[{"index":0,"delta":{"content":"hi"}}]}`+"\n\n")
	io.WriteString(w, `data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
}

// The kernel's transmit stamp of a request's last byte splits TTFT: the byte leaves before
// the server's handler begins, and the injected 30 ms of "prefill" fall after it. Each
// request on a kept-alive connection gets its own stamp.
func TestTransmitStampSplitsTTFT(t *testing.T) {
	t.Parallel()
	if !kernelStamps {
		t.Skip("no kernel transmit stamps on this platform")
	}
	const ttft = 30 * time.Millisecond
	srv := &sseAfter{ttft: ttft}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	c := New(Options{BaseURL: ts.URL, Timeout: 10 * time.Second, StallTimeout: 5 * time.Second, TransmitStamps: true})
	defer c.Close()
	body := []byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"` + strings.Repeat("x", 2000) + `"}]}`)
	plain := New(Options{BaseURL: ts.URL, Timeout: 10 * time.Second, StallTimeout: 5 * time.Second})
	defer plain.Close()
	if res, err := plain.Stream(context.Background(), APIChat, body, 8); err != nil || res.HasSent {
		t.Fatalf("transmit stamps are off by default: %v, sent %v", err, res.HasSent)
	}
	for i := range 5 {
		res, err := c.Stream(context.Background(), APIChat, body, 8)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if !res.HasSent {
			t.Fatalf("request %d: no transmit stamp", i)
		}
		at, _ := srv.handled(i + 1)
		began := at.Sub(res.Start)
		// The stamp is placed on the monotonic clock through the wall clock: allow for it.
		if res.Sent <= 0 || res.Sent > began+200*time.Microsecond {
			t.Errorf("request %d: sent at %v, handler began at %v: the byte cannot leave after the server had it", i, res.Sent, began)
		}
		if server := res.FirstContent - res.Sent; server < ttft {
			t.Errorf("request %d: TTFT %v minus sent %v = %v, less than the %v the server waited", i, res.FirstContent, res.Sent, server, ttft)
		}
	}
}

// A body larger than the socket's buffers leaves as the server reads it: its last byte's
// stamp comes late, when the socket may signal nothing but the stamp (an error-only event
// to Go's poller, which fails a waiting read). The request must still succeed, and its
// stamp fall near the server's last read, not the start of the write. Not parallel, for
// the timing tests' sake (see TestAnAnswerBeforeTheWholeRequestIsReported).
func TestTransmitStampOfABodyTheServerReadsSlowly(t *testing.T) {
	if !kernelStamps {
		t.Skip("no kernel transmit stamps on this platform")
	}
	srv := &sseAfter{slow: time.Millisecond}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	c := New(Options{BaseURL: ts.URL, Timeout: 30 * time.Second, StallTimeout: 10 * time.Second, TransmitStamps: true})
	defer c.Close()
	body := []byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"` + strings.Repeat("y", 8<<20) + `"}]}`)
	waits := errorEventWaits.Load()
	for i := range 3 {
		res, err := c.Stream(context.Background(), APIChat, body, 8)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if !res.HasSent {
			t.Fatalf("request %d: no transmit stamp", i)
		}
		b, r := srv.handled(i)
		began, read := b.Sub(res.Start), r.Sub(res.Start)
		if res.Sent < began+(read-began)/2 || res.Sent > read+200*time.Microsecond {
			t.Errorf("request %d: sent at %v; the server read the body from %v to %v", i, res.Sent, began, read)
		}
	}
	t.Logf("reads that waited past an error-only event: %d", errorEventWaits.Load()-waits)
}
