package anvil

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
)

// siblingBuilds counts the `go` processes the ginkgo CLI that started this suite is running
// beside it: `ginkgo -r` compiles the next suites while one runs, as many at once as there
// are CPUs. Outside ginkgo, or where /proc cannot say, it is 0.
func siblingBuilds() int {
	parent := os.Getppid()
	if comm, err := os.ReadFile("/proc/" + strconv.Itoa(parent) + "/comm"); err != nil || !bytes.HasPrefix(comm, []byte("ginkgo")) {
		return 0
	}
	return childrenNamed(parent, "go")
}

// childrenNamed counts the live processes whose parent is pid and whose command is comm.
func childrenNamed(pid int, comm string) int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	n := 0
	for _, path := range stats {
		stat, err := os.ReadFile(path)
		if err != nil {
			continue // the process ended
		}
		// "pid (comm) state ppid ...": comm may hold spaces and parentheses.
		open, closing := bytes.IndexByte(stat, '('), bytes.LastIndexByte(stat, ')')
		if open < 0 || closing < open || string(stat[open+1:closing]) != comm {
			continue
		}
		fields := bytes.Fields(stat[closing+1:])
		if len(fields) < 2 || fields[0][0] == 'Z' {
			continue // a zombie has ended; its parent has not reaped it yet
		}
		if ppid, err := strconv.Atoi(string(fields[1])); err == nil && ppid == pid {
			n++
		}
	}
	return n
}
