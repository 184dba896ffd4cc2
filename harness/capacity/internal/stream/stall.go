package stream

import (
	"sync"
	"sync/atomic"
	"time"
)

// stallWatch fires when no read delivered bytes for after. A read only stores its time (an
// atomic store, no timer operation); the timer, when it expires, re-arms itself for the
// rest of the silence measured from the latest read. The timer is kept across streams.
type stallWatch struct {
	after    time.Duration
	fire     func()
	origin   time.Time
	lastRead atomic.Int64 // the latest read, as an offset from origin
	done     atomic.Bool
	armed    bool
	mu       sync.Mutex // orders arming before check's use of the timer
	timer    *time.Timer
}

// arm starts the watchdog: fire is called once no bytes arrived for after since origin.
func (w *stallWatch) arm(after time.Duration, fire func(), origin time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.after, w.fire, w.origin, w.armed = after, fire, origin, true
	w.lastRead.Store(0)
	w.done.Store(false)
	if w.timer == nil {
		w.timer = time.AfterFunc(after, w.check)
	} else {
		w.timer.Reset(after)
	}
}

// stop ends the watch. It reports whether the watch can be armed again: not when its
// callback has started, as it may still be reading it.
func (w *stallWatch) stop() (reusable bool) {
	if !w.armed {
		return true
	}
	w.done.Store(true)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.armed = false
	return w.timer.Stop()
}

func (w *stallWatch) check() {
	if w.done.Load() {
		return
	}
	idle := time.Since(w.origin) - time.Duration(w.lastRead.Load())
	if idle >= w.after {
		w.fire()
		return
	}
	w.mu.Lock()
	if !w.done.Load() {
		w.timer.Reset(w.after - idle)
	}
	w.mu.Unlock()
}
