package stream

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/anvilbench/anvilbench/harness/refengine"
	"github.com/anvilbench/anvilbench/harness/secret"
)

// When the headers come with the first token (Ollama, llama.cpp), the first event is read
// with them, before the caller reads the body: its stamp must be the arrival of those
// bytes, not the body read. A client busy for 20 ms between headers and body must still
// time the first token within a millisecond of the engine's flush.
func TestFirstEventReadWithTheHeadersIsStampedOnArrival(t *testing.T) {
	t.Parallel()
	engine, err := refengine.Start(refengine.Options{
		PrefillOverhead: 20 * time.Millisecond, ITL: time.Millisecond,
		Faults: refengine.Faults{HeadersWithFirstToken: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer engine.Close()
	const busy = 20 * time.Millisecond
	c := New(Options{BaseURL: engine.BaseURL(), Timeout: 10 * time.Second, StallTimeout: 5 * time.Second})
	c.s.afterHeaders = func() { time.Sleep(busy) }
	defer c.Close()

	body, _ := json.Marshal(map[string]any{
		"model": refengine.DefaultModel, "stream": true, "max_tokens": 8,
		"messages": []map[string]string{{"role": "user", "content": "Reply with exactly 4 words, each the lowercase word \"code\", separated by single spaces, and nothing else."}},
	})
	var errs []time.Duration
	unstamped := 0
	for range 9 {
		res, err := c.Stream(context.Background(), APIChat, body, 8)
		if err != nil || !res.HasFirstContent {
			t.Fatalf("stream: %v", err)
		}
		traces := engine.Traces()
		flushed := traces[len(traces)-1].ChunkTimes[0]
		stamped := res.Start.Add(res.FirstContent)
		if res.UserStampedReads > 0 {
			// The kernel gave some read no stamp (beside two CPU hogs, about 1 read in 600):
			// the stream says so, and its stamps are the reads' return, not the arrival.
			unstamped++
			continue
		}
		if d := stamped.Sub(flushed); d < -time.Millisecond || d > busy/2 {
			t.Errorf("first content stamped %v after the engine's flush: the body read, not the arrival", d)
		} else {
			errs = append(errs, d)
		}
	}
	if unstamped > 3 {
		t.Errorf("%d of 9 streams had a read the kernel did not stamp", unstamped)
	}
	sort.Slice(errs, func(i, j int) bool { return errs[i] < errs[j] })
	if len(errs) > 0 && errs[len(errs)/2] > time.Millisecond {
		t.Errorf("median first-token error %v, want under 1ms (all: %v)", errs[len(errs)/2], errs)
	}
	t.Logf("first-token stamp minus the engine's flush, sorted: %v", errs)
}

// perITLErrors streams one request through c and returns, per gap between consecutive
// output chunks, the client's gap minus the engine's.
func perITLErrors(t *testing.T, c *Client, engine *refengine.Server, body []byte) []time.Duration {
	t.Helper()
	res, err := c.Stream(context.Background(), APIChat, body, 64)
	if err != nil {
		t.Fatalf("stream: %v", err)
	}
	traces := engine.Traces()
	// The engine's last chunk carries only the finish reason: not an output arrival.
	flushed := traces[len(traces)-1].ChunkTimes
	if len(flushed) != len(res.Arrivals)+1 {
		t.Fatalf("%d chunks flushed, %d output chunks arrived", len(flushed), len(res.Arrivals))
	}
	var errs []time.Duration
	for k := 1; k < len(res.Arrivals); k++ {
		errs = append(errs, (res.Arrivals[k]-res.Arrivals[k-1])-flushed[k].Sub(flushed[k-1]))
	}
	return errs
}

// A client stalled (a forced collection, then a busy loop) for 12 ms after every other
// chunk of a 10 ms stream reads the next chunk 2 ms after it arrived. Stamped when the read
// returns, that gap is off by 2 ms; stamped by the kernel on arrival, it is not.
func TestKernelStampsSurviveAStalledClient(t *testing.T) {
	if !kernelStamps || raceEnabled {
		t.Skip("no kernel receive stamps on this platform, or real-time scheduling under the race detector")
	}
	t.Parallel()
	engine, err := refengine.Start(refengine.Options{PrefillOverhead: 5 * time.Millisecond, ITL: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer engine.Close()
	body, _ := json.Marshal(map[string]any{
		"model": refengine.DefaultModel, "stream": true, "max_tokens": 64,
		"messages": []map[string]string{{"role": "user", "content": "Reply with exactly 16 words, each the lowercase word \"code\", separated by single spaces, and nothing else."}},
	})
	stall := func(n int) {
		if n%2 == 0 {
			return
		}
		until := time.Now().Add(12 * time.Millisecond)
		runtime.GC()
		for time.Now().Before(until) {
		}
	}
	worst := func(errs []time.Duration) time.Duration {
		w := time.Duration(0)
		for _, e := range errs {
			w = max(w, e, -e)
		}
		return w
	}
	late := func(errs []time.Duration) int {
		n := 0
		for _, e := range errs {
			if e > time.Millisecond || e < -time.Millisecond {
				n++
			}
		}
		return n
	}
	kernel := New(Options{BaseURL: engine.BaseURL(), Timeout: 10 * time.Second, StallTimeout: 5 * time.Second})
	kernel.s.afterEvent = stall
	defer kernel.Close()
	user := New(Options{BaseURL: engine.BaseURL(), Timeout: 10 * time.Second, StallTimeout: 5 * time.Second, UserSpaceStamps: true})
	user.s.afterEvent = stall
	defer user.Close()

	// Stamped on return, a stalled read puts most gaps off. Stamped by the kernel none
	// should be, but a loaded machine moves some: the stall can outlast the next chunk's
	// arrival (one read then delivers two chunks, stamped alike: +10 ms, then -10 ms), and
	// the engine's sends or its own flush records can be held back (seen 6 of 15 off while
	// CI ran beside the tests). So the kernel's gaps off must stay under half, and under half
	// of the user-space stamps' gaps off.
	// An engine held back as long as the stall hides it (2 of 15 showed once in CI), so a
	// pair of streams is tried up to three times; broken kernel stamps fail every try.
	var problems []string
	for try := 1; try <= 3; try++ {
		k, u := perITLErrors(t, kernel, engine, body), perITLErrors(t, user, engine, body)
		problems = nil
		if n := late(k); n > len(k)/2 || n > late(u)/2 {
			problems = append(problems, fmt.Sprintf("kernel stamps: %d of %d gaps off by more than 1ms (user-space stamps: %d): %v", n, len(k), late(u), k))
		}
		if n := late(u); n < len(u)/4 {
			problems = append(problems, fmt.Sprintf("user-space stamps: only %d of %d gaps off by more than 1ms; the stall did not show: %v", n, len(u), u))
		}
		t.Logf("try %d: worst per-ITL error: kernel %v, user space %v (%d of %d gaps off by more than 1ms)", try, worst(k), worst(u), late(u), len(u))
		if len(problems) == 0 {
			return
		}
	}
	for _, p := range problems {
		t.Error(p)
	}
}

// completeStreams serves a complete stream to every request, over TLS when secure, closing
// connections idle for idle (0: never), and counts the connections it accepted.
func completeStreams(t *testing.T, secure bool, idle time.Duration) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var conns atomic.Int64
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, p := range []string{roleChunk, contentChunk, finishChunk, usageChunk, done} {
			_, _ = w.Write([]byte(p))
			w.(http.Flusher).Flush()
		}
	}))
	s.Config.IdleTimeout = idle
	s.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			conns.Add(1)
		}
	}
	if secure {
		s.StartTLS()
	} else {
		s.Start()
	}
	t.Cleanup(s.Close)
	return s, &conns
}

// A connection is kept after each stream, so no request but the first pays for a TCP
// handshake inside its TTFT: the body is read to its end after [DONE].
func TestConnectionsAreReusedAcrossStreams(t *testing.T) {
	t.Parallel()
	s, conns := completeStreams(t, false, 0)
	c := client(s)
	defer c.Close()
	for range 3 {
		if _, err := stream(t, c); err != nil {
			t.Fatal(err)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("3 streams took %d connections, want 1", n)
	}
}

// An engine closes connections left idle (uvicorn after 5 s): the next request must not be
// written to one, it dials anew and succeeds.
func TestAConnectionTheServerClosedIsNotReused(t *testing.T) {
	t.Parallel()
	s, conns := completeStreams(t, false, 50*time.Millisecond)
	c := client(s)
	defer c.Close()
	for i := range 3 {
		if _, err := stream(t, c); err != nil {
			t.Fatalf("stream %d: %v", i, err)
		}
		time.Sleep(300 * time.Millisecond)
	}
	if n := conns.Load(); n != 3 {
		t.Errorf("3 streams 300 ms apart on a server closing idle connections after 50 ms took %d connections, want 3", n)
	}
}

// A connection idle past the idle timeout is not reused, though the engine kept it open:
// a load balancer between may have forgotten it.
func TestAConnectionIdleTooLongIsNotReused(t *testing.T) {
	t.Parallel()
	s, conns := completeStreams(t, false, 0)
	c := client(s)
	defer c.Close()
	c.direct.maxIdleAge = 100 * time.Millisecond
	for i, wait := range []time.Duration{0, 10 * time.Millisecond, 300 * time.Millisecond} {
		time.Sleep(wait)
		if _, err := stream(t, c); err != nil {
			t.Fatalf("stream %d: %v", i, err)
		}
	}
	if n := conns.Load(); n != 2 {
		t.Errorf("streams after 10 ms and 300 ms idle, with a 100 ms idle timeout, took %d connections, want 2", n)
	}
}

// An https endpoint streams as well, and keeps its connection too.
func TestStreamsOverTLS(t *testing.T) {
	t.Parallel()
	s, conns := completeStreams(t, true, 0)
	c := client(s)
	defer c.Close()
	roots := x509.NewCertPool()
	roots.AddCert(s.Certificate())
	c.direct.tls.RootCAs = roots
	for i := range 2 {
		res, err := stream(t, c)
		if err != nil || !res.Terminal || res.Content == "" {
			t.Fatalf("stream %d: %v (%+v)", i, err, res)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("2 streams took %d connections, want 1", n)
	}
	c.direct.tls.RootCAs = nil
	c.Close()
	if _, err := stream(t, c); err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("an untrusted certificate: %v", err)
	}
}

// A server that keeps the response open after [DONE] costs at most the drain bound, and
// the stream still counts as complete.
func TestAResponseLeftOpenAfterDoneIsAbandoned(t *testing.T) {
	t.Parallel()
	s := serve(t, 200, "text/event-stream", 5*time.Second, contentChunk+finishChunk+done, ": still here\n\n")
	began := time.Now()
	res, err := stream(t, client(s))
	if err != nil || !res.Terminal {
		t.Fatalf("stream: %v, terminal %v", err, res.Terminal)
	}
	if took := time.Since(began); took > drainTimeout+time.Second {
		t.Errorf("Stream took %v after [DONE]", took)
	}
}

// The client's connections advertise an Ethernet MSS, so the engine's segments stay small
// even over loopback (see clampSegments).
func TestConnectionsAdvertiseAnEthernetMSS(t *testing.T) {
	t.Parallel()
	var mss atomic.Int64
	s := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(contentChunk + finishChunk + done))
	}))
	s.Config.ConnState = func(c net.Conn, st http.ConnState) {
		if st != http.StateNew {
			return
		}
		raw, err := c.(*net.TCPConn).SyscallConn()
		if err != nil {
			return
		}
		_ = raw.Control(func(fd uintptr) {
			if v, err := syscall.GetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_MAXSEG); err == nil {
				mss.Store(int64(v))
			}
		})
	}
	s.Start()
	defer s.Close()
	c := client(s)
	defer c.Close()
	if _, err := stream(t, c); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "linux" && (mss.Load() <= 0 || mss.Load() > ethernetMSS) {
		t.Errorf("the engine's side of the connection sends segments of up to %d bytes, want at most %d", mss.Load(), ethernetMSS)
	}
}

// Credentials in the base URL are sent as basic authentication, as net/http sends them; a
// key, when set, is sent instead.
func TestCredentialsInTheBaseURLAuthenticate(t *testing.T) {
	t.Parallel()
	var got atomic.Value
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Store(r.Header.Get("Authorization"))
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(contentChunk + finishChunk + done))
	}))
	defer s.Close()
	withUser := strings.Replace(s.URL, "http://", "http://user:hunter2@", 1) + "/v1"
	for _, tc := range []struct {
		key, want string
	}{{"", "Basic dXNlcjpodW50ZXIy"}, {"sk-1", "Bearer sk-1"}} {
		c := New(Options{BaseURL: withUser, APIKey: secret.New(tc.key), Timeout: 5 * time.Second, StallTimeout: time.Second})
		if _, err := stream(t, c); err != nil {
			t.Fatal(err)
		}
		c.Close()
		if a, _ := got.Load().(string); a != tc.want {
			t.Errorf("key %q: Authorization %q, want %q", tc.key, a, tc.want)
		}
	}
}

// An informational response (103 Early Hints from a proxy) comes before the real one: the
// stream is the response that follows it.
func TestInformationalResponsesAreSkipped(t *testing.T) {
	t.Parallel()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", "</style.css>; rel=preload")
		w.WriteHeader(http.StatusEarlyHints)
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = w.Write([]byte(contentChunk + finishChunk + done))
	}))
	defer s.Close()
	res, err := stream(t, client(s))
	if err != nil || res.StatusCode != http.StatusOK || !res.Terminal {
		t.Fatalf("stream after 103: %v, status %d, terminal %v", err, res.StatusCode, res.Terminal)
	}

	endless := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for r.Context().Err() == nil {
			w.WriteHeader(http.StatusEarlyHints)
			time.Sleep(time.Millisecond)
		}
	}))
	defer endless.Close()
	_, err = stream(t, client(endless))
	if kindOf(err) != KindTransport || !strings.Contains(err.Error(), "informational") {
		t.Fatalf("endless 103s: %v (%s)", err, kindOf(err))
	}
}

// A proxy's body limit answers before the request is taken and closes: the failure is
// that answer, not the broken pipe of the rest of the write. Not parallel: its 32 MiB
// bodies, larger than the sockets' buffers, bring collections that would stall the
// in-process engine of the timing tests.
func TestAnAnswerBeforeTheWholeRequestIsReported(t *testing.T) {
	var hits atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusRequestEntityTooLarge)
		_, _ = w.Write([]byte(`{"error":{"message":"request body over 1m"}}`))
	}))
	t.Cleanup(s.Close)
	c := client(s)
	body := []byte(`{"messages":[{"role":"user","content":"` + strings.Repeat("x", 32<<20) + `"}]}`)
	for range 2 { // the second must not be written on the first's connection
		res, err := c.Stream(context.Background(), APIChat, body, 4)
		if kindOf(err) != KindHTTP || res.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(err.Error(), "request body over 1m") {
			t.Fatalf("err = %v (%s), status %d", err, kindOf(err), res.StatusCode)
		}
	}
	if n := hits.Load(); n != 2 {
		t.Fatalf("%d requests reached the server, want 2", n)
	}
}

// An engine that sends headers without end fails the request at 10 MiB, as net/http's
// client would, instead of filling memory until the request's timeout. Not parallel, for
// the timing tests' sake (see TestAnAnswerBeforeTheWholeRequestIsReported).
func TestAnEndlessResponseHeadIsBounded(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	sent := make(chan int64, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		_, _ = c.Read(make([]byte, 4096))
		filler := []byte(strings.Repeat("a", 64<<10))
		n, _ := c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nX-Endless: "))
		total := int64(n)
		for total < 64<<20 {
			n, err := c.Write(filler)
			total += int64(n)
			if err != nil {
				break
			}
		}
		sent <- total
	}()
	start := time.Now()
	_, err = New(Options{BaseURL: "http://" + l.Addr().String() + "/v1", Timeout: 20 * time.Second}).Stream(context.Background(), APIChat, []byte(`{}`), 4)
	if kindOf(err) != KindTransport || !strings.Contains(err.Error(), "response head over 10 MiB") {
		t.Fatalf("err = %v (%s) after %v", err, kindOf(err), time.Since(start))
	}
	if n := <-sent; n >= 64<<20 {
		t.Errorf("the client read all %d bytes of the head", n)
	}
}
