package busy

import (
	"os"
	"os/exec"
	"testing"
	"time"
)

// spinEnv makes the test binary a CPU hog: a process of its own, so the kernel counts it
// whatever this process's GOMAXPROCS (goroutines spinning here would share its threads).
const spinEnv = "ANVILBENCH_BUSY_TEST_SPIN"

func TestMain(m *testing.M) {
	if os.Getenv(spinEnv) != "" {
		deadline := time.Now().Add(30 * time.Second) // an orphan stops by itself
		for time.Now().Before(deadline) {
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// A probe of this machine finds its sleeps late by at least nothing and records as many
// as it slept; beside a spinning process per CPU and one more, it finds more threads
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
	for range m.CPUs + 1 {
		hog := exec.Command(os.Args[0], "-test.run=^$")
		hog.Env = append(os.Environ(), spinEnv+"=1")
		if err := hog.Start(); err != nil {
			t.Fatalf("starting a CPU hog: %v", err)
		}
		t.Cleanup(func() { _ = hog.Process.Kill(); _ = hog.Wait() })
	}
	time.Sleep(100 * time.Millisecond) // the hogs get going
	hogged := Probe(20, time.Millisecond)
	if hogged.KeepsTime() || hogged.Runnable <= hogged.CPUs {
		t.Errorf("beside %d spinning processes: %s", m.CPUs+1, hogged)
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
