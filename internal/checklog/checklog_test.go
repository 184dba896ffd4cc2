package checklog

import (
	"testing"

	"github.com/anvilbench/anvilbench/harness/gate"
)

func TestExplainingFindsTheJudgementThatFailedTheSpec(t *testing.T) {
	Record(gate.Result{Check: "held", Outcome: gate.Pass, Message: "fine"})
	Record(gate.Result{Check: "budget", Kind: gate.KindBudget, Outcome: gate.BudgetBroken, Message: "tpot p50 6.31ms exceeds budget 6.00ms over 6 samples"})
	Record(gate.Result{Check: "requests", Kind: gate.KindRequests, Outcome: gate.RunFailed, Message: "2 of 6 requests failed"})
	got := Take()
	if len(got) != 2 || len(Take()) != 0 {
		t.Fatalf("kept %d failures (passes are not kept), then %d after Take", len(got), len(Take()))
	}
	r, ok := Explaining(got, "baseline x.json\ntpot p50 6.31ms exceeds budget 6.00ms over 6 samples")
	if !ok || r.Outcome != gate.BudgetBroken {
		t.Errorf("explained by %+v, %v", r, ok)
	}
	if _, ok := Explaining(got, "Expected <int>: 1 to equal <int>: 2"); ok {
		t.Error("a plain assertion was explained by a judgement")
	}
}
