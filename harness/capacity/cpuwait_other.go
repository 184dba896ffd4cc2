//go:build !linux

package capacity

import "time"

// cpuWait is unknown here: only Linux keeps the time threads waited for a core.
func cpuWait() (time.Duration, bool) { return 0, false }
