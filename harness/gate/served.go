package gate

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// OneServedModel checks that one model served the run (artifact.Extension's
// ServedModels): responses naming two models were served by two, say by a router or by
// replicas of different models behind one address, and the figures mix them. One name
// other than the requested one passes, said in the message: engines put what they like
// there (SGLang "default", older llama.cpp "gpt-3.5-turbo", TGI the model's path).
func OneServedModel() Check {
	return Check{Name: "is served by one model", Kind: KindOutput, judge: func(a *artifact.Benchmark) Result {
		if a.Extension == nil {
			return skipped("the artifact records no served models (not written by anvilbench)")
		}
		served := a.Extension.ServedModels
		total := 0
		for _, n := range served {
			total += n
		}
		switch {
		case len(served) == 0:
			return skipped("no response named the model that served it")
		case len(a.PlannedModels()) > 0:
			return servedAsPlanned(a, served)
		case len(served) > 1:
			return found(RunFailed, fmt.Sprintf("the responses named %d models, %s (requested %q): more than one model served the run, and its figures mix them (a router, or replicas of different models behind one address)",
				len(served), countsOf(served), a.Model))
		}
		name := slices.Collect(maps.Keys(served))[0]
		if name == a.Model {
			return held(fmt.Sprintf("all %d responses named the requested model %q", total, name))
		}
		return held(fmt.Sprintf("all %d responses named the model %q, not the requested %q: some engines name a fixed or default name, so one name is not judged", total, name, a.Model))
	}}
}

// countsOf lists models by their counts, most first: `40 "a", 8 "b"`.
func countsOf(served map[string]int) string {
	names := slices.SortedFunc(maps.Keys(served), func(x, y string) int {
		return cmp.Or(cmp.Compare(served[y], served[x]), cmp.Compare(x, y))
	})
	parts := make([]string, len(names))
	for i, m := range names {
		parts[i] = fmt.Sprintf("%d %q", served[m], m)
	}
	return strings.Join(parts, ", ")
}

// servedAsPlanned judges a run whose requests named models of their own (LoRA adapters):
// every response named one of them or their base model (an engine may name the base for
// all), none another model.
func servedAsPlanned(a *artifact.Benchmark, served map[string]int) Result {
	known := map[string]bool{a.Model: true}
	var planned []string
	for _, ad := range a.PlannedModels() {
		known[ad.Name] = true
		planned = append(planned, fmt.Sprintf("%d %q", ad.Requests, ad.Name))
	}
	var foreign []string
	for name := range served {
		if !known[name] {
			foreign = append(foreign, name)
		}
	}
	if len(foreign) > 0 {
		slices.Sort(foreign)
		return found(RunFailed, fmt.Sprintf("the responses named %s, and %s is neither an adapter the run planned (%s) nor their base model %q: another model served part of the run",
			countsOf(served), strings.Join(foreign, ", "), strings.Join(planned, ", "), a.Model))
	}
	return held(fmt.Sprintf("the responses named %s, as planned: %s", countsOf(served), strings.Join(planned, ", ")))
}
