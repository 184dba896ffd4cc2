// Package busy tells a test whether this machine keeps time right now: whether a sleep
// ends when it should. A test of the harness judges what it measured against the engine's
// own record, which holds on a busy machine; a claim about how fast something ran (the
// reference engine keeping its schedule) holds only where sleeps are on time, and a test
// asks here before it judges one, saying why when it does not.
package busy

import (
	"fmt"
	"slices"
	"time"
)

// Machine is what a probe of sleeps saw: how late they ended.
type Machine struct {
	Sleeps   int
	P90, Max time.Duration
}

// Thresholds of a quiet machine: Go's timers end up to a millisecond late on an idle
// process (the netpoller sleeps in whole milliseconds), so a quiet machine is one whose
// sleeps are no later than that, bar a rare one.
const (
	quietP90 = 1500 * time.Microsecond
	quietMax = 4 * time.Millisecond
)

// Probe sleeps n times for step and records how late each woke.
func Probe(n int, step time.Duration) Machine {
	late := make([]time.Duration, n)
	for i := range late {
		asked := time.Now()
		time.Sleep(step)
		late[i] = max(time.Since(asked)-step, 0)
	}
	slices.Sort(late)
	return Machine{Sleeps: n, P90: late[(n*9+9)/10-1], Max: late[n-1]}
}

// Now probes for about 0.2 s: 100 sleeps of 2 ms.
func Now() Machine { return Probe(100, 2*time.Millisecond) }

// KeepsTime reports whether the machine was quiet: its sleeps on time.
func (m Machine) KeepsTime() bool { return m.P90 <= quietP90 && m.Max <= quietMax }

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
	return fmt.Sprintf("%s: %d sleeps woke late by p90 %v, worst %v", state, m.Sleeps, m.P90.Round(time.Microsecond), m.Max.Round(time.Microsecond))
}
