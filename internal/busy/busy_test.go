package busy

import (
	"testing"
	"time"
)

// A probe of this machine finds its sleeps late by at least nothing and records as many
// as it slept; with a spinning goroutine per CPU beside it, it finds more threads
// runnable than CPUs (on Linux, where the kernel tells), however on time its sleeps are.
func TestProbe(t *testing.T) {
	m := Probe(20, time.Millisecond)
	if m.Sleeps != 20 || m.P90 < 0 || m.Max < m.P90 || m.CPUs < 1 {
		t.Fatalf("%+v", m)
	}
	t.Log(m)
	if _, ok := runnable(); !ok {
		t.Skip("the kernel does not count runnable threads here (no /proc/stat)")
	}
	stop := make(chan struct{})
	for range m.CPUs + 1 {
		go func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
			}
		}()
	}
	hogged := Probe(20, time.Millisecond)
	close(stop)
	if hogged.KeepsTime() || hogged.Runnable <= hogged.CPUs {
		t.Errorf("beside %d spinning goroutines: %s", m.CPUs+1, hogged)
	}
	t.Log(hogged)
}

func TestKeepsTime(t *testing.T) {
	t.Parallel()
	quiet := Machine{Sleeps: 100, P90: 300 * time.Microsecond, Max: 2 * time.Millisecond, Runnable: 1, CPUs: 2}
	busy := Machine{Sleeps: 100, P90: 6 * time.Millisecond, Max: 25 * time.Millisecond, Runnable: 3, CPUs: 2}
	rare := Machine{Sleeps: 100, P90: 300 * time.Microsecond, Max: 9 * time.Millisecond, Runnable: 1, CPUs: 2}
	hogged := Machine{Sleeps: 100, P90: 200 * time.Microsecond, Max: time.Millisecond, Runnable: 3, CPUs: 2}
	if !quiet.KeepsTime() || busy.KeepsTime() || rare.KeepsTime() || hogged.KeepsTime() {
		t.Errorf("quiet %v, busy %v, one sleep 9 ms late %v, on time beside hogs %v", quiet.KeepsTime(), busy.KeepsTime(), rare.KeepsTime(), hogged.KeepsTime())
	}
	if quiet.Slack() != 1500*time.Microsecond || busy.Slack() != 75*time.Millisecond || rare.Slack() != 27*time.Millisecond || hogged.Slack() != 20*time.Millisecond {
		t.Errorf("slack: quiet %v, busy %v, rare %v", quiet.Slack(), busy.Slack(), rare.Slack())
	}
	if s := busy.String(); s != "busy: 100 sleeps woke late by p90 6ms, worst 25ms; 3 threads runnable on 2 CPUs" {
		t.Errorf("%q", s)
	}
}
