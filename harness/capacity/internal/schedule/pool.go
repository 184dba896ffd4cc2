// Package schedule decides when each request of a run starts.
package schedule

import (
	"context"
	"sync"
	"sync/atomic"
)

// Do handles request index i. It is called exactly once per index, even after ctx is
// cancelled, so that every index ends in exactly one outcome; it must then return quickly.
type Do func(ctx context.Context, i int)

// WorkerDo handles request index i on worker w (0 <= w < concurrency): the calls of one
// worker are sequential, so per-worker state needs no lock.
type WorkerDo func(ctx context.Context, w, i int)

// ClosedLoop runs requests 0..n-1 with at most concurrency in flight: each of concurrency
// workers takes the next index as soon as its previous request ends, so indices start in
// order. It returns when every call has returned.
func ClosedLoop(ctx context.Context, n, concurrency int, do WorkerDo) {
	workers := min(concurrency, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				do(ctx, w, i)
			}
		})
	}
	wg.Wait()
}
