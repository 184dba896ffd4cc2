//go:build !unix

package capacity

import "time"

// cpuTime is unknown here; the CPU share is then left null.
func cpuTime() time.Duration { return 0 }
