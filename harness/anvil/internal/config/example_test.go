package config_test

import (
	"fmt"

	"github.com/anvilbench/anvilbench/harness/anvil/internal/config"
)

// A scenarios file over the environment: unset keys take the environment's values, then
// the defaults, and every problem is reported with its position.
func ExampleParseScenarios() {
	env, err := config.Load(map[string]string{"ANVIL_CONCURRENCY": "4"})
	if err != nil {
		panic(err)
	}
	scenarios, err := config.ParseScenarios([]byte(`{"scenarios": [
		{"name": "short-chat", "requests": 60, "concurrency": 32, "context_tokens": 2000,
		 "budgets": ["tpot_p50_ms<=6"], "labels": ["fast"]},
		{"name": "agent-32k", "context_tokens": 32000}
	]}`), ".", env)
	if err != nil {
		panic(err)
	}
	for _, s := range scenarios {
		fmt.Printf("%s: %d requests at concurrency %d, %d-token prompts, budgets %v\n",
			s.Name, s.Scenario.Requests, s.Scenario.Concurrency, s.Scenario.ContextTokens, s.Budgets)
	}

	_, err = config.ParseScenarios([]byte(`{"scenarios": [{"name": "bad", "requests": -5, "concurency": 4}]}`), ".", env)
	fmt.Println(err)
	// Output:
	// short-chat: 60 requests at concurrency 32, 2000-token prompts, budgets [tpot_p50_ms<=6]
	// agent-32k: 60 requests at concurrency 4, 32000-token prompts, budgets []
	// invalid anvilbench configuration: scenarios[0].concurency: unknown key (did you mean concurrency?) (and 1 more)
	//   scenarios[0].concurency: unknown key (did you mean concurrency?)
	//   scenarios[0].requests=-5: out of range (want 1..10000)
}
