package config

import (
	"strings"
	"testing"

	"github.com/anvilbench/anvilbench/harness/capacity"
)

// A search is read from a scenarios file as an object and from ANVIL_SEARCH as text, and
// what does not fit it is refused before any request, naming the key: a search with no
// budget to hold the load to, a capacity budget without its search, a bad load, a search
// of a trace.
func TestASearchIsReadFromAFileAndAVariable(t *testing.T) {
	t.Parallel()
	path := writeScenarios(t, `{"scenarios": [
	  {"name": "capacity", "search": {"over": "concurrency", "max": 64}, "budgets": ["ttft_p95_ms<=200", "capacity_concurrency>=16"]},
	  {"name": "rate", "search": "request_rate:40", "budgets": ["tpot_p50_ms<=20"]}
	]}`)
	cfg, err := Load(map[string]string{"ANVIL_SCENARIOS_FILE": path})
	if err != nil {
		t.Fatal(err)
	}
	s := cfg.Scenarios()
	if s[0].Scenario.Search != (capacity.Search{Over: "concurrency", Max: 64}) || !s[0].Searched || s[1].Scenario.Search != (capacity.Search{Over: "request_rate", Max: 40}) {
		t.Errorf("searches %+v %v, %+v", s[0].Scenario.Search, s[0].Searched, s[1].Scenario.Search)
	}
	if g := cfg.Configured(); g.Searched {
		t.Error("the configured scenario searches without ANVIL_SEARCH")
	}
	cfg, err = Load(map[string]string{"ANVIL_SEARCH": "concurrency:32", "ANVIL_BUDGETS": "ttft_p95_ms<=80"})
	if err != nil || cfg.Configured().Scenario.Search != (capacity.Search{Over: "concurrency", Max: 32}) || !cfg.Configured().Searched {
		t.Errorf("ANVIL_SEARCH: %v %+v", err, cfg.Configured().Scenario.Search)
	}

	for env, want := range map[string]string{
		"ANVIL_SEARCH=concurrency:32":                                           "ANVIL_SEARCH=concurrency:32: no budget to hold the load to",
		"ANVIL_BUDGETS=capacity_concurrency>=4":                                 "ANVIL_BUDGETS: capacity_concurrency>=4 needs a search over concurrency",
		"ANVIL_SEARCH=throughput:9":                                             `ANVIL_SEARCH="throughput:9": a search goes over "concurrency" or "request_rate", not "throughput"`,
		"ANVIL_SEARCH=concurrency:8,ANVIL_BUDGETS=tpot_p50_ms<=9,ANVIL_BURST=4": `ANVIL_SEARCH="concurrency:8": sets the load itself: unset ANVIL_BURST`,
	} {
		vars := map[string]string{}
		for kv := range strings.SplitSeq(env, ",") {
			k, v, _ := strings.Cut(kv, "=")
			vars[k] = v
		}
		_, err := Load(vars)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", env, err, want)
		}
	}
}
