package refengine

import (
	"context"
	"time"
)

// sleeper waits for absolute deadlines on behalf of one request.
//
// Go timers wake up to 1ms late when the process is idle (the runtime's netpoller sleeps in
// whole milliseconds), which would blur a 5ms inter-token latency by ±20% per gap. Where the
// platform has one, a high-resolution timer (Linux timerfd, woken through the netpoller) is
// used instead: about 0.1ms late. Deadlines being absolute, lateness never accumulates either
// way. Sleeps end early, with ctx's error, when ctx is done.
type sleeper struct {
	ctx   context.Context
	hr    *hrTimer    // nil when unavailable or after a failure
	timer *time.Timer // fallback
}

// newSleeper returns a sleeper bound to ctx; precise asks for the high-resolution timer.
// Call close when done.
func newSleeper(ctx context.Context, precise bool) *sleeper {
	s := &sleeper{ctx: ctx}
	if precise {
		if hr, err := newHRTimer(ctx); err == nil {
			s.hr = hr
			return s
		}
	}
	s.useTimer()
	return s
}

func (s *sleeper) useTimer() {
	s.timer = time.NewTimer(time.Hour)
	s.timer.Stop()
}

// until blocks until deadline or until ctx is done (returning ctx's error).
func (s *sleeper) until(deadline time.Time) error {
	d := time.Until(deadline)
	if d <= 0 {
		return s.ctx.Err()
	}
	if s.hr != nil {
		err := s.hr.wait(d)
		if err == nil || s.ctx.Err() != nil {
			return s.ctx.Err()
		}
		// The high-resolution timer broke (should not happen): fall back for good.
		s.hr.close()
		s.hr = nil
		s.useTimer()
		if d = time.Until(deadline); d <= 0 {
			return s.ctx.Err()
		}
	}
	s.timer.Reset(d)
	select {
	case <-s.timer.C:
		return nil
	case <-s.ctx.Done():
		s.timer.Stop()
		return s.ctx.Err()
	}
}

// close releases the timer's resources.
func (s *sleeper) close() {
	if s.hr != nil {
		s.hr.close()
	}
	if s.timer != nil {
		s.timer.Stop()
	}
}
