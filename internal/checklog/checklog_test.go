package checklog

import "testing"

// The judgement recorded last since the last Take is the one a spec's failure reports;
// once taken, it explains no later spec.
func TestTakeReturnsTheJudgementThatFailed(t *testing.T) {
	if _, ok := Take(); ok {
		t.Fatal("a judgement before any was recorded")
	}
	Failing("requests: 2 of 6 requests failed")
	Failing("budget: tpot p50 6.31ms exceeds budget 6.00ms over 6 samples")
	if r, ok := Take(); !ok || r != "budget: tpot p50 6.31ms exceeds budget 6.00ms over 6 samples" {
		t.Errorf("took %+v, %v; want the budget, recorded last", r, ok)
	}
	if r, ok := Take(); ok {
		t.Errorf("took %+v again", r)
	}
}
