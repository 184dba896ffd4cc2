package capacity

import (
	"context"
	"time"

	"github.com/anvilbench/anvilbench/harness/capacity/internal/schedule"
)

// A pacer is a run's schedule: it starts the run's units, its requests or its sessions,
// in a closed loop, an open loop or a burst, and returns the bounds of the request phase.
// One time.Now gives both the Unix reading and the monotonic origin.
type pacer interface {
	execute(ctx context.Context) (started, finished time.Time)
}

// startFunc sends unit k, meant to start at due (zero where the schedule starts units as
// soon as it can), that could have started at ready, and returns when it ended: the
// arrival of its last bytes, or the moment it failed.
type startFunc func(ctx context.Context, k int, due, ready time.Time) (end time.Time)

// closedLoop keeps concurrency units in flight: each worker starts its next unit once its
// previous one ended, which is when that unit could have started.
type closedLoop struct {
	units, concurrency int
	start              startFunc
}

func (c closedLoop) execute(ctx context.Context) (started, finished time.Time) {
	started = time.Now()
	free := make([]time.Time, c.concurrency)
	for w := range free {
		free[w] = started
	}
	schedule.ClosedLoop(ctx, c.units, c.concurrency, func(ctx context.Context, w, k int) {
		free[w] = c.start(ctx, k, time.Time{}, free[w])
	})
	return started, time.Now()
}

// openLoop starts unit k at offsets[k] from the start, whether or not earlier ones ended,
// with at most concurrency in flight (see schedule.OpenLoop).
type openLoop struct {
	offsets     []time.Duration
	concurrency int
	start       startFunc
}

func (o openLoop) execute(ctx context.Context) (started, finished time.Time) {
	started = time.Now()
	schedule.OpenLoop(ctx, started, o.offsets, o.concurrency, func(ctx context.Context, k int, due, ready time.Time) {
		o.start(ctx, k, due, ready)
	})
	return started, time.Now()
}

// burst builds every request first, then releases them all at one instant: the request
// phase starts at the release, which is when each could have started.
type burst struct{ units requestUnits }

func (b burst) execute(ctx context.Context) (started, finished time.Time) {
	r := b.units.r
	n := len(r.indices)
	prepared := make([]*[]byte, n)
	began := make([]time.Time, n)
	schedule.Burst(ctx, n, func(_ context.Context, k int) {
		began[k] = time.Now()
		if body, failed := b.units.prepare(r.indices[k], began[k]); failed != nil {
			r.outcomes[k] = *failed
		} else {
			prepared[k] = body
		}
		if k == n-1 {
			started = time.Now()
		}
	}, func(ctx context.Context, k int) {
		if prepared[k] != nil {
			r.outcomes[k] = r.send(ctx, r.indices[k], began[k], started, prepared[k])
			r.outcomes[k].ready = started
		}
		r.progress.record(r.outcomes[k])
	})
	return started, time.Now()
}

// waitStart holds the request phase until the scenario's StartAt, everything before it
// (discovery, calibration, the plan) done, so that shards on several hosts start together.
func (r *run) waitStart(ctx context.Context) {
	if r.sc.StartAt.IsZero() {
		return
	}
	pause(ctx, time.Until(r.sc.StartAt))
}

// pause waits d, or until ctx ends.
func pause(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
