package artifact

import "encoding/json"

// MarshalJSON encodes b with its nil slices and maps written as [] and {}, as the original
// always writes lists and dicts there, so a Benchmark built field by field cannot emit null
// where readers expect a collection.
func (b Benchmark) MarshalJSON() ([]byte, error) {
	type plain Benchmark // drops this method, avoiding recursion
	p := plain(b)
	if p.Failures == nil {
		p.Failures = []Failure{}
	}
	if p.RequestTimings == nil {
		p.RequestTimings = []RequestTiming{}
	}
	if p.ContextDistribution == nil {
		p.ContextDistribution = map[string]int{}
	}
	if p.MetricPopulation.P99InterpretationByMetric == nil {
		p.MetricPopulation.P99InterpretationByMetric = map[string]string{}
	}
	if p.MetricPopulation.P99SamplesByMetric == nil {
		p.MetricPopulation.P99SamplesByMetric = map[string]int{}
	}
	return json.Marshal(p)
}

// MarshalJSON encodes m with a nil FinishReasons written as [].
func (m ResponseMetadata) MarshalJSON() ([]byte, error) {
	type plain ResponseMetadata
	p := plain(m)
	if p.FinishReasons == nil {
		p.FinishReasons = []string{}
	}
	return json.Marshal(p)
}
