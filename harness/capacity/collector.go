package capacity

import (
	"math"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// collectorHeadroom is the memory a request phase may allocate before the collector runs at
// all: a cap, so a long or huge run is still collected, only rarely.
const collectorHeadroom = 1 << 30

// quietCollector keeps the garbage collector out of the request phase, where a collection
// stalls the process while chunks wait in the socket and every stamp taken after the stall
// is late: the collector is off, bounded by a memory limit of the live heap plus
// collectorHeadroom (past it the runtime collects anyway). Overlapping runs share one
// setting; the last to finish restores the caller's. It returns the restore function.
func quietCollector() (restore func()) {
	quiet.mu.Lock()
	defer quiet.mu.Unlock()
	if quiet.depth == 0 {
		limit := int64(min(readMetric(heapObjectsMetric)+collectorHeadroom, math.MaxInt64/2))
		quiet.percent = debug.SetGCPercent(-1)
		quiet.limit = debug.SetMemoryLimit(limit)
	}
	quiet.depth++
	var once sync.Once
	return func() {
		once.Do(func() {
			quiet.mu.Lock()
			defer quiet.mu.Unlock()
			quiet.depth--
			if quiet.depth == 0 {
				debug.SetMemoryLimit(quiet.limit)
				debug.SetGCPercent(quiet.percent)
			}
		})
	}
}

var quiet struct {
	mu      sync.Mutex
	depth   int
	percent int
	limit   int64
}

const (
	heapObjectsMetric = "/memory/classes/heap/objects:bytes" // MemStats.HeapAlloc
	gcCyclesMetric    = "/gc/cycles/total:gc-cycles"         // MemStats.NumGC
)

// gcCycles is the number of collections the process has completed.
func gcCycles() uint32 {
	return uint32(readMetric(gcCyclesMetric))
}

// readMetric reads one runtime metric. runtime/metrics, unlike ReadMemStats, does not stop
// the world, which would stall every other run's streams in the process.
func readMetric(name string) uint64 {
	sample := []metrics.Sample{{Name: name}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return sample[0].Value.Uint64()
}
