package refengine

import (
	"fmt"
	"regexp"
	"strconv"
	"sync"
)

// recentMarkers is how many past markers markerBook remembers.
const recentMarkers = 16

// markerParts splits a canary marker into its seed and zero-padded index.
var markerParts = regexp.MustCompile(`^ANVIL_REQ_(-?\d+)_(\d+)$`)

// markerBook is a small thread-safe record of the canary markers of the requests in flight
// and of the last few seen, from which the SwapMarkers and LeakMarker faults take another
// request's marker.
type markerBook struct {
	mu     sync.Mutex
	live   []liveMarker // in flight, in arrival order
	recent [recentMarkers]string
	next   int // ring position in recent
	seq    uint64
}

type liveMarker struct {
	id     uint64
	marker string
}

// other returns a marker that is not own: the most recent one in flight, else the most
// recent one seen, else own with its index plus one.
func (b *markerBook) other(own string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i := len(b.live) - 1; i >= 0; i-- {
		if m := b.live[i].marker; m != own {
			return m
		}
	}
	for k := 1; k <= recentMarkers; k++ {
		if m := b.recent[(b.next-k+recentMarkers)%recentMarkers]; m != "" && m != own {
			return m
		}
	}
	return nextMarker(own)
}

// enter records marker as in flight; the returned func records that it left. An empty
// marker is not recorded.
func (b *markerBook) enter(marker string) (leave func()) {
	if marker == "" {
		return func() {}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.seq++
	id := b.seq
	b.live = append(b.live, liveMarker{id, marker})
	b.recent[b.next] = marker
	b.next = (b.next + 1) % recentMarkers
	return func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		for i, l := range b.live {
			if l.id == id {
				b.live = append(b.live[:i], b.live[i+1:]...)
				return
			}
		}
	}
}

// nextMarker is marker with its index plus one, same width ("ANVIL_REQ_0_00000" for a
// marker that does not parse).
func nextMarker(marker string) string {
	m := markerParts.FindStringSubmatch(marker)
	if m == nil {
		return "ANVIL_REQ_0_00000"
	}
	idx, err := strconv.ParseUint(m[2], 10, 63)
	if err != nil {
		return "ANVIL_REQ_" + m[1] + "_0"
	}
	return fmt.Sprintf("ANVIL_REQ_%s_%0*d", m[1], len(m[2]), idx+1)
}
