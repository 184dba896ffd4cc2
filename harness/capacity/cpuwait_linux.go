//go:build linux

package capacity

import (
	"bytes"
	"os"
	"strconv"
	"time"
)

// cpuWait is how long the process's threads have waited, runnable, for a core so far:
// the sum of the second field of /proc/self/task/*/schedstat (time spent on a run queue).
// ok is false where the kernel does not keep it.
func cpuWait() (time.Duration, bool) {
	dir, err := os.Open("/proc/self/task")
	if err != nil {
		return 0, false
	}
	defer dir.Close()
	tasks, err := dir.Readdirnames(-1)
	if err != nil {
		return 0, false
	}
	var total int64
	buf := make([]byte, 128)
	for _, t := range tasks {
		f, err := os.Open("/proc/self/task/" + t + "/schedstat")
		if err != nil {
			continue // the thread exited
		}
		n, _ := f.Read(buf)
		f.Close()
		fields := bytes.Fields(buf[:n])
		if len(fields) < 2 {
			return 0, false
		}
		wait, err := strconv.ParseInt(string(fields[1]), 10, 64)
		if err != nil {
			return 0, false
		}
		total += wait
	}
	return time.Duration(total), true
}
