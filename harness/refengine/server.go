package refengine

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Server is a running reference engine, shaped like httptest.Server.
type Server struct {
	// URL is the base URL of the form "http://127.0.0.1:port", with no trailing slash.
	URL string

	opts    Options
	started time.Time
	srv     *http.Server
	ctx     context.Context // parent of every request context; cancelled by Close
	cancel  context.CancelFunc
	served  chan struct{} // closed when Serve returned
	gate    gate
	lane    lane
	pace    pace
	cache   *prefixCache // nil without Options.PrefixCache
	spec    *speculation // nil without Options.SpecTokens
	seed    maphash.Seed // of the prefix-cache block keys
	markers markerBook
	// generations counts the completion requests received, served or not.
	generations atomic.Int64

	mu        sync.Mutex
	idle      *sync.Cond // signalled when active drops to 0
	active    int        // handlers running
	closed    bool
	conns     map[net.Conn]struct{}
	traces    []*traceRec
	nextIndex int
	closeOnce sync.Once
}

// Start starts a server listening on opts.Addr, by default a free loopback port.
func Start(opts Options) (*Server, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	addr := cmp.Or(opts.Addr, "127.0.0.1:0")
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("refengine listen %s: %w", addr, err)
	}
	s := &Server{
		URL:     "http://" + ln.Addr().String(),
		opts:    opts,
		started: time.Now(),
		served:  make(chan struct{}),
		conns:   make(map[net.Conn]struct{}),
	}
	s.pace = newPace(&s.opts, s.started)
	if opts.Overflow == overflowQueue {
		s.gate.max = opts.MaxBatch
	}
	s.gate.byPriority = opts.SchedulePriority
	if opts.PrefixCache {
		s.cache, s.seed = newPrefixCache(opts.CacheCapacityBlocks), maphash.MakeSeed()
	}
	if opts.SpecTokens > 0 {
		s.spec = &speculation{k: opts.SpecTokens, share: opts.SpecAccept}
	}
	s.idle = sync.NewCond(&s.mu)
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.srv = &http.Server{
		Handler:           s.track(s.routes()),
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return s.ctx },
		ConnState:         s.connState,
	}
	go func() {
		defer close(s.served)
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.cancel() // a broken listener: fail in-flight requests rather than hang them
		}
	}()
	return s, nil
}

// BaseURL is the OpenAI API base URL, URL + "/v1".
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// Requests counts the completion requests (chat and legacy) the engine has received,
// refused ones included: what a test can hold a client to sending.
func (s *Server) Requests() int { return int(s.generations.Load()) }

// Options returns the effective options, defaults filled in.
func (s *Server) Options() Options { return s.opts }

// Close stops accepting connections, cancels every in-flight simulation (open streams end
// without [DONE]), closes all connections and waits until every handler has returned. It is
// safe to call more than once.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		s.cancel()        // handlers stop simulating at their next wait
		_ = s.srv.Close() // listener and connections: unblocks handlers stuck in Write
		<-s.served
		s.mu.Lock()
		for s.active > 0 {
			s.idle.Wait()
		}
		s.mu.Unlock()
	})
}

// CloseClientConnections forcibly closes every open client connection, as a network fault;
// the handlers see their requests cancelled. The server keeps accepting new connections.
func (s *Server) CloseClientConnections() {
	s.mu.Lock()
	conns := make([]net.Conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		_ = c.Close()
	}
}

func (s *Server) connState(c net.Conn, st http.ConnState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch st {
	case http.StateNew:
		s.conns[c] = struct{}{}
	case http.StateClosed, http.StateHijacked:
		delete(s.conns, c)
	}
}

// track counts running handlers so Close can wait for them, and refuses work once closing.
func (s *Server) track(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			writeError(w, errUnavailable())
			return
		}
		s.active++
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			s.active--
			if s.active == 0 {
				s.idle.Broadcast()
			}
			s.mu.Unlock()
		}()
		h.ServeHTTP(w, r)
	})
}
