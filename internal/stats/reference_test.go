package stats

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

const referencePath = "../../testdata/reference/benchmark-v1-example.json"

// family is one distribution family of the artifact's metrics block: key prefix, unit
// suffix (placed after the statistic) and the request_timings field it summarises.
type family struct {
	prefix, unit, field string
}

var families = []family{
	{"time_to_first_output", "_ms", "time_to_first_output_ms"},
	{"ttft", "_ms", "ttft_ms"},
	{"generation", "_ms", "generation_ms"},
	{"e2e", "_ms", "e2e_ms"},
	{"effective_prefill_tok_s", "", "effective_prefill_tok_s"},
	{"decode_tok_s", "", "decode_tok_s"},
	{"mean_inter_token_latency_ms", "", "mean_inter_token_latency_ms"},
	{"mean_time_per_output_token", "_ms", "mean_inter_token_latency_ms"},
	{"tpot", "_ms", "mean_inter_token_latency_ms"},
	{"prompt_tokens", "", "prompt_tokens"},
	{"completion_tokens", "", "output_tokens"},
}

type reference struct {
	Metrics        map[string]any   `json:"metrics"`
	RequestTimings []map[string]any `json:"request_timings"`
}

func loadReference(t *testing.T) reference {
	t.Helper()
	data, err := os.ReadFile(referencePath)
	if err != nil {
		t.Fatalf("read reference: %v", err)
	}
	var ref reference
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatalf("parse reference: %v", err)
	}
	if len(ref.RequestTimings) != 6 {
		t.Fatalf("reference has %d request_timings rows, want 6", len(ref.RequestTimings))
	}
	return ref
}

// values returns the non-null values of field over the reference rows.
func (ref reference) values(t *testing.T, field string) []float64 {
	t.Helper()
	var out []float64
	for i, row := range ref.RequestTimings {
		switch v := row[field].(type) {
		case nil:
		case float64:
			out = append(out, v)
		default:
			t.Fatalf("row %d field %s: unexpected %T", i, field, v)
		}
	}
	return out
}

// metric returns the float value of key in the metrics block.
func (ref reference) metric(t *testing.T, key string) float64 {
	t.Helper()
	v, ok := ref.Metrics[key].(float64)
	if !ok {
		t.Fatalf("metrics[%q] = %v (%T), want a number", key, ref.Metrics[key], ref.Metrics[key])
	}
	return v
}

func TestSummarizeMatchesReferenceBitExact(t *testing.T) {
	ref := loadReference(t)
	for _, f := range families {
		t.Run(f.prefix, func(t *testing.T) {
			vals := ref.values(t, f.field)
			s, ok := Summarize(vals)
			if !ok {
				t.Fatal("Summarize returned false")
			}
			if want := ref.metric(t, f.prefix+"_samples"); float64(s.N) != want {
				t.Errorf("%s_samples = %d, want %v", f.prefix, s.N, want)
			}
			got := map[string]float64{
				"mean": s.Mean, "stddev": s.StdDev,
				"mean_ci95_low": s.MeanCI95Low, "mean_ci95_high": s.MeanCI95High,
				"min": s.Min, "max": s.Max,
				"p25": s.P25, "p50": s.P50, "p75": s.P75, "p90": s.P90, "p95": s.P95, "p99": s.P99,
			}
			for stat, g := range got {
				key := f.prefix + "_" + stat + f.unit
				if want := ref.metric(t, key); g != want {
					t.Errorf("%s = %v, want %v (bits %#x vs %#x)", key, g, want,
						math.Float64bits(g), math.Float64bits(want))
				}
			}
		})
	}
}

// naiveStdDev is the textbook float64 two-pass sample standard deviation.
func naiveStdDev(vals []float64) float64 {
	var sum float64
	for _, v := range vals {
		sum += v
	}
	mean := sum / float64(len(vals))
	var ss float64
	for _, v := range vals {
		ss += (v - mean) * (v - mean)
	}
	return math.Sqrt(ss / float64(len(vals)-1))
}

// TestNaiveStdDevDiffers documents why the exact arithmetic is needed: the float two-pass
// formula misses the reference in the last ulp for some families.
func TestNaiveStdDevDiffers(t *testing.T) {
	ref := loadReference(t)
	var differ []string
	for _, f := range families {
		vals := ref.values(t, f.field)
		if naiveStdDev(vals) != ref.metric(t, f.prefix+"_stddev"+f.unit) {
			differ = append(differ, f.prefix)
		}
	}
	if len(differ) == 0 {
		t.Fatal("naive two-pass stddev matched every family; the exactness test proves nothing")
	}
	t.Logf("naive float two-pass stddev differs from the reference for %v", differ)
}
