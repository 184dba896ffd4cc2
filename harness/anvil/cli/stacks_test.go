package cli

import (
	"strings"
	"sync/atomic"
	"testing"
)

// What Ginkgo prints of an interrupted spec: its progress report, then the spec's and
// other goroutines (one stream goroutine per request in flight), then the rest.
const interruptedOutput = "\x1b[38;5;9m[INTERRUPTED] Interrupted by User\x1b[0m\n" +
	"  This is the Progress Report generated when the interrupt was received:\n" +
	"    scenario short-chat (Spec Runtime: 1.2s)\n" +
	"      /work/bench/engine_suite_test.go:21\n" +
	"\n" +
	"    \x1b[1m\x1b[4mSpec Goroutine\x1b[0m\n" +
	"    \x1b[38;5;214mgoroutine 52 [select]\x1b[0m\n" +
	"      \x1b[38;5;243mgithub.com/anvilbench/anvilbench/harness/capacity.(*run).measure({0xc000, 0x1})\x1b[0m\n" +
	"        \x1b[38;5;243m/work/main/harness/capacity/run.go:120\x1b[0m\n" +
	"    \x1b[1m> github.com/anvilbench/anvilbench/harness/anvil.Run\x1b[0m\n" +
	"        \x1b[1m/work/main/harness/anvil/run.go:40\x1b[0m\n" +
	"          | \tsc = env.named(sc)\n" +
	"          > \treturn record(ctx, spec, target, sc)\n" +
	"\n" +
	"    \x1b[1m\x1b[4mGoroutines of Interest\x1b[0m\n" +
	"    goroutine 60 [IO wait]\n" +
	"      internal/poll.runtime_pollWait(0x7f, 0x72)\n" +
	"        /usr/lib/go/src/runtime/netpoll.go:351\n" +
	"      created by github.com/anvilbench/anvilbench/harness/capacity.(*run).start in goroutine 52\n" +
	"        github.com/onsi/ginkgo/v2/internal.(*Suite).runNode in goroutine 8\n" +
	"          /root/go/pkg/mod/github.com/onsi/ginkgo/v2@v2.34.0/internal/suite.go:1112\n" +
	"\n" +
	"      goroutine 1 [chan receive]\n" +
	"        testing.(*T).Run(0x2811e5f7e488, {0xf63eae?, 0x0?}, 0xfb8f90)\n" +
	"\x1b[38;5;243m------------------------------\x1b[0m\n" +
	"anvilbench: scenario short-chat interrupted after 12 of 32 requests\n"

func TestAnInterruptLeavesOutGoroutineStacks(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	var interrupted atomic.Bool
	interrupted.Store(true)
	f := &stackFilter{out: &out, interrupted: &interrupted}
	// Written in pieces that split lines, as a pipe delivers them.
	for i := 0; i < len(interruptedOutput); i += 37 {
		f.Write([]byte(interruptedOutput[i:min(i+37, len(interruptedOutput))]))
	}
	f.Close()
	got := out.String()
	for _, gone := range []string{"goroutine 52", "run.go:120", "runtime_pollWait", "created by", "| \tsc", "Goroutines of Interest", "in goroutine", "goroutine 1 ", "testing.(*T).Run"} {
		if strings.Contains(got, gone) {
			t.Errorf("the output keeps %q:\n%s", gone, got)
		}
	}
	for _, kept := range []string{"[INTERRUPTED] Interrupted by User", "scenario short-chat (Spec Runtime: 1.2s)", "/work/bench/engine_suite_test.go:21",
		"lines of goroutine stacks left out after the interrupt", "------------------------------", "interrupted after 12 of 32 requests\n"} {
		if !strings.Contains(got, kept) {
			t.Errorf("the output lost %q:\n%s", kept, got)
		}
	}
	if n := strings.Count(got, "\n"); n > 8 {
		t.Errorf("%d lines left of an interrupt:\n%s", n, got)
	}

	// Without an interrupt everything passes, byte for byte.
	out.Reset()
	f = &stackFilter{out: &out, interrupted: new(atomic.Bool)}
	f.Write([]byte(interruptedOutput))
	f.Close()
	if out.String() != interruptedOutput {
		t.Errorf("without an interrupt the output changed:\n%s", out.String())
	}
}
