package schedule

import (
	"context"
	"sync"
)

// Burst prepares every request first, then releases all n at the same instant: the
// shared-prefix burst, where a server sees n arrivals at once. prepare runs before the
// release (sequentially, so its cost never staggers the arrivals); send(i) runs on its own
// goroutine per index once all are ready. Both are called exactly once per index.
func Burst(ctx context.Context, n int, prepare func(ctx context.Context, i int), send Do) {
	for i := range n {
		prepare(ctx, i)
	}
	release := make(chan struct{})
	var ready, done sync.WaitGroup
	ready.Add(n)
	for i := range n {
		done.Go(func() {
			ready.Done()
			<-release
			send(ctx, i)
		})
	}
	ready.Wait()
	close(release)
	done.Wait()
}
