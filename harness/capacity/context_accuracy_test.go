package capacity

import (
	"fmt"
	"math"
	"testing"

	"github.com/anvilbench/anvilbench/harness/refengine"
)

// Every request, not just the mean, lands on its plan against a tokenizer that behaves like
// a real BPE: within 1% calibrated through usage probes, and within one token with
// /tokenize, which counts one prompt of each planned size. Request indices differ only in
// the first line, so no index tokenizes apart.
func TestEveryRequestHitsItsPlanOnABPETokenizer(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		tokenize bool
		context  int
	}{{false, 1500}, {false, 32000}, {true, 1500}, {true, 32000}} {
		t.Run(fmt.Sprintf("tokenize=%v/context=%d", c.tokenize, c.context), func(t *testing.T) {
			t.Parallel()
			s := fastEngine(t, refengine.Options{Tokenizer: refengine.CountTokensBPE, DisableTokenize: !c.tokenize, MaxModelLen: 65536})
			sc := validScenario()
			sc.Requests, sc.Concurrency, sc.ContextTokens, sc.Calibrate = 12, 4, c.context, true
			b := mustRun(t, target(s), sc)
			if b.Completed != sc.Requests {
				t.Fatalf("completed %d: %+v", b.Completed, b.Failures)
			}
			wantMethod, bound := calibrationUsage, 0.01*float64(c.context)
			if c.tokenize {
				wantMethod, bound = calibrationTokenize, 1
			}
			if m := b.Extension.Calibration.Method; m != wantMethod {
				t.Fatalf("calibration %s, want %s", m, wantMethod)
			}
			if fitted, want := b.Extension.Calibration.FittedSizes, map[bool]int{false: 0, true: 1}[c.tokenize]; fitted != want {
				t.Errorf("%d planned sizes fitted with /tokenize, want %d", fitted, want)
			}
			worst, sum := 0.0, 0.0
			for _, r := range b.RequestTimings {
				off := float64(*r.PromptTokens - r.PlannedContextTokens)
				sum += off
				if math.Abs(off) > math.Abs(worst) {
					worst = off
				}
				if math.Abs(off) > bound {
					t.Errorf("request %d: %d prompt tokens for a plan of %d (bound ±%.1f)", r.RequestIndex, *r.PromptTokens, r.PlannedContextTokens, bound)
				}
			}
			t.Logf("worst %+.0f tokens (%+.3f%%), mean %+.2f tokens (%+.4f%%) over %d requests",
				worst, 100*worst/float64(c.context), sum/float64(b.Completed), 100*sum/float64(b.Completed)/float64(c.context), b.Completed)
		})
	}
}
