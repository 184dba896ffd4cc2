// Package busy tells a test whether this machine keeps time right now: whether a sleep
// ends when it should, and whether more threads want a CPU than it has. A test of the
// harness judges what it measured against the engine's own record, which holds on a busy
// machine; a claim about how fast something ran (the reference engine keeping its
// schedule) holds only where the machine is quiet, and a test asks here before it judges
// one, saying why when it does not.
package busy

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"time"
)

// Machine is what a probe saw: how late its sleeps ended, and how many threads were
// runnable at once (the median of the kernel's count over the probe; 0 where the platform
// does not tell) on how many CPUs. A sleep wakes on time beside CPU hogs (the scheduler
// favours a sleeper), but any work after it waits for a slice: the run queue says so.
type Machine struct {
	Sleeps         int
	P90, Max       time.Duration
	Runnable, CPUs int
}

// Thresholds of a quiet machine: Go's timers end up to a millisecond late on an idle
// process (the netpoller sleeps in whole milliseconds), so a quiet machine is one whose
// sleeps are no later than that, bar a rare one.
const (
	quietP90 = 1500 * time.Microsecond
	quietMax = 4 * time.Millisecond
)

// Probe sleeps n times for step and records how late each woke, and the run queue's
// length after each sleep.
func Probe(n int, step time.Duration) Machine {
	late := make([]time.Duration, n)
	var queue []int
	for i := range late {
		asked := time.Now()
		time.Sleep(step)
		late[i] = max(time.Since(asked)-step, 0)
		if r, ok := runnable(); ok {
			queue = append(queue, r)
		}
	}
	slices.Sort(late)
	m := Machine{Sleeps: n, P90: late[(n*9+9)/10-1], Max: late[n-1], CPUs: runtime.NumCPU()}
	if len(queue) > 0 {
		slices.Sort(queue)
		m.Runnable = queue[(len(queue)-1)/2]
	}
	return m
}

// runnable is the kernel's count of runnable threads (Linux /proc/stat procs_running),
// the probe's own among them.
func runnable() (int, bool) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, false
	}
	_, rest, ok := bytes.Cut(data, []byte("\nprocs_running "))
	if !ok {
		return 0, false
	}
	line, _, _ := bytes.Cut(rest, []byte("\n"))
	n, err := strconv.Atoi(string(line))
	return n, err == nil
}

// Now probes for about 0.2 s: 100 sleeps of 2 ms.
func Now() Machine { return Probe(100, 2*time.Millisecond) }

// KeepsTime reports whether the machine was quiet: its sleeps on time, and no more
// threads runnable than it has CPUs.
func (m Machine) KeepsTime() bool {
	return m.P90 <= quietP90 && m.Max <= quietMax && m.Runnable <= m.CPUs
}

// Slack bounds how late a wake-up may be on this machine: a millisecond and a half when
// it keeps time, else three times its worst probe (a loaded CPU's time slices), at least
// 20 ms.
func (m Machine) Slack() time.Duration {
	if m.KeepsTime() {
		return quietP90
	}
	return max(3*m.Max, 20*time.Millisecond)
}

func (m Machine) String() string {
	state := "quiet"
	if !m.KeepsTime() {
		state = "busy"
	}
	return fmt.Sprintf("%s: %d sleeps woke late by p90 %v, worst %v; %d threads runnable on %d CPUs",
		state, m.Sleeps, m.P90.Round(time.Microsecond), m.Max.Round(time.Microsecond), m.Runnable, m.CPUs)
}
