package busy

import (
	"strings"
	"testing"
	"time"
)

// A probe of this machine finds its sleeps late by at least nothing and records as many
// as it slept; beside a spinning goroutine per core it may find them later, never earlier.
func TestProbe(t *testing.T) {
	m := Probe(20, time.Millisecond)
	if m.Sleeps != 20 || m.P90 < 0 || m.Max < m.P90 {
		t.Fatalf("%+v", m)
	}
	t.Log(m)
}

func TestKeepsTime(t *testing.T) {
	t.Parallel()
	quiet := Machine{Sleeps: 100, P90: 300 * time.Microsecond, Max: 2 * time.Millisecond}
	busy := Machine{Sleeps: 100, P90: 6 * time.Millisecond, Max: 25 * time.Millisecond}
	rare := Machine{Sleeps: 100, P90: 300 * time.Microsecond, Max: 9 * time.Millisecond}
	if !quiet.KeepsTime() || busy.KeepsTime() || rare.KeepsTime() {
		t.Errorf("quiet %v, busy %v, one sleep 9 ms late %v", quiet.KeepsTime(), busy.KeepsTime(), rare.KeepsTime())
	}
	if quiet.Slack() != 1500*time.Microsecond || busy.Slack() != 75*time.Millisecond || rare.Slack() != 27*time.Millisecond {
		t.Errorf("slack: quiet %v, busy %v, rare %v", quiet.Slack(), busy.Slack(), rare.Slack())
	}
	if s := busy.String(); !strings.HasPrefix(s, "busy: 100 sleeps woke late by p90 6ms, worst 25ms") {
		t.Errorf("%q", s)
	}
}
