package units

import "testing"

func TestUnitsAndFormats(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ got, want string }{
		{Of("tpot_p50_ms"), "ms"}, {Of("mean_inter_token_latency_ms_p99"), "ms"}, {Of("decode_tok_s_p50"), "tok/s"},
		{Of("chunks_s_p50"), "chunks/s"}, {Of("reasoning_tokens_p50"), ""},
		{Format(6.314, "ms"), "6.31ms"}, {Format(151.2, "tok/s"), "151.20 tok/s"}, {Format(6, ""), "6"},
		{Format(0.71234, ""), "0.7123"}, {FormatPlaces(6.3149, "ms", 3), "6.315ms"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	for stat, want := range map[string]float64{"p95": 95, "p50": 50, "p100": 100, "mean": 0, "p0": 0, "p101": 0, "px": 0} {
		if got := PercentileOf(stat); got != want {
			t.Errorf("PercentileOf(%q) = %v, want %v", stat, got, want)
		}
	}
}
