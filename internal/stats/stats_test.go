package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestSummarizeEmpty(t *testing.T) {
	if _, ok := Summarize(nil); ok {
		t.Fatal("Summarize(nil) ok = true, want false")
	}
	if _, ok := Summarize([]float64{}); ok {
		t.Fatal("Summarize([]) ok = true, want false")
	}
}

func TestSummarizeSmall(t *testing.T) {
	tests := []struct {
		name string
		in   []float64
		want Summary
	}{
		{"n=1", []float64{7.5}, Summary{N: 1, Mean: 7.5, StdDev: 0, MeanCI95Low: 7.5, MeanCI95High: 7.5,
			Min: 7.5, P25: 7.5, P50: 7.5, P75: 7.5, P90: 7.5, P95: 7.5, P99: 7.5, Max: 7.5}},
		{"n=2", []float64{2, 1}, Summary{N: 2, Mean: 1.5, StdDev: 0.7071067811865476,
			MeanCI95Low: 0.5200000000000001, MeanCI95High: 2.48,
			Min: 1, P25: 1, P50: 1, P75: 2, P90: 2, P95: 2, P99: 2, Max: 2}},
		{"identical", []float64{2.5, 2.5, 2.5}, Summary{N: 3, Mean: 2.5, StdDev: 0, MeanCI95Low: 2.5, MeanCI95High: 2.5,
			Min: 2.5, P25: 2.5, P50: 2.5, P75: 2.5, P90: 2.5, P95: 2.5, P99: 2.5, Max: 2.5}},
		// Expected values are Python 3.11 results (fmean, stdev, fmean ∓ 1.96*stdev/sqrt(n));
		// Go constant expressions would be folded exactly and differ in the last ulp.
		// Python: fmean([.1,.2,.3]) = 0.19999999999999998, stdev = 0.09999999999999999.
		{"tenths", []float64{0.3, 0.1, 0.2}, Summary{N: 3, Mean: 0.19999999999999998, StdDev: 0.09999999999999999,
			MeanCI95Low: 0.08683934723883334, MeanCI95High: 0.3131606527611666,
			Min: 0.1, P25: 0.1, P50: 0.2, P75: 0.3, P90: 0.3, P95: 0.3, P99: 0.3, Max: 0.3}},
		// Python: stdev([1e300, -1e300, 5e-324]) = 1e+300 (naive squares overflow).
		{"wide range", []float64{1e300, -1e300, 5e-324}, Summary{N: 3, Mean: 0, StdDev: 1e300,
			MeanCI95Low: -1.1316065276116666e+300, MeanCI95High: 1.1316065276116666e+300,
			Min: -1e300, P25: -1e300, P50: 5e-324, P75: 1e300, P90: 1e300, P95: 1e300, P99: 1e300, Max: 1e300}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Summarize(tt.in)
			if !ok {
				t.Fatal("ok = false")
			}
			if got != tt.want {
				t.Errorf("Summarize(%v)\n got %+v\nwant %+v", tt.in, got, tt.want)
			}
		})
	}
}

func TestSummarizeDoesNotModifyInput(t *testing.T) {
	in := []float64{3, 1, 2}
	Summarize(in)
	if !slices.Equal(in, []float64{3, 1, 2}) {
		t.Fatalf("input modified: %v", in)
	}
}

func TestSummarizeNonFinite(t *testing.T) {
	s, ok := Summarize([]float64{1, math.Inf(1), 2})
	if !ok || !math.IsInf(s.Mean, 1) || !math.IsNaN(s.StdDev) || s.Max != math.Inf(1) || s.Min != 1 {
		t.Errorf("with +Inf: %+v", s)
	}
	s, _ = Summarize([]float64{math.NaN(), 1})
	if !math.IsNaN(s.Mean) || !math.IsNaN(s.MeanCI95High) {
		t.Errorf("with NaN: %+v", s)
	}
}

func TestPercentile(t *testing.T) {
	sorted := []float64{1, 2, 3, 4}
	tests := []struct {
		q    float64
		want float64
	}{
		{50, 2}, {25, 1}, {0.001, 1}, {25.0001, 2}, {75, 3}, {75.5, 4}, {99, 4}, {100, 4},
	}
	for _, tt := range tests {
		got, err := Percentile(sorted, tt.q)
		if err != nil || got != tt.want {
			t.Errorf("Percentile(%v, %v) = %v, %v; want %v", sorted, tt.q, got, err, tt.want)
		}
	}
	// n = 6 as in the reference: p25 → 2nd, p50 → 3rd, p75 → 5th, p90+ → 6th.
	six := []float64{10, 20, 30, 40, 50, 60}
	for q, want := range map[float64]float64{25: 20, 50: 30, 75: 50, 90: 60, 95: 60, 99: 60} {
		if got, _ := Percentile(six, q); got != want {
			t.Errorf("Percentile(six, %v) = %v, want %v", q, got, want)
		}
	}
	// Fractional q where float64 n·q/100 would round onto an integer: the exact rank of
	// 3 · 33.333333333333336 / 100 is just above 1, so the 2nd value.
	if got, _ := Percentile([]float64{1, 2, 3}, 100.0/3); got != 2 {
		t.Errorf("Percentile([1 2 3], 100/3) = %v, want 2", got)
	}
}

func TestPercentileErrors(t *testing.T) {
	for _, q := range []float64{0, -1, 100.0000001, 101, math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, err := Percentile([]float64{1, 2}, q); err == nil {
			t.Errorf("Percentile(q=%v) err = nil, want error", q)
		}
	}
	if _, err := Percentile(nil, 50); err == nil {
		t.Error("Percentile(nil, 50) err = nil, want error")
	}
}

func TestRankIndexMatchesCeil(t *testing.T) {
	for n := 1; n <= 1000; n++ {
		for _, q := range []int{1, 25, 50, 75, 90, 95, 99, 100} {
			want := max(0, int(math.Ceil(float64(n*q)/100))-1)
			if got := rankIndex(n, q); got != want {
				t.Fatalf("rankIndex(%d, %d) = %d, want %d", n, q, got, want)
			}
		}
	}
}

func TestSums(t *testing.T) {
	tenth := slices.Repeat([]float64{0.1}, 10)
	if got := fsum(tenth); got != 1 {
		t.Errorf("FSum(0.1 × 10) = %v, want 1", got)
	}
	if got := fsum([]float64{1e308, 1e308, -1e308}); got != 1e308 {
		t.Errorf("FSum intermediate overflow = %v, want 1e308", got)
	}
	if got := fsum([]float64{1e308, 1e308}); !math.IsInf(got, 1) {
		t.Errorf("FSum overflow = %v, want +Inf", got)
	}
	if got := fsum([]float64{math.Inf(1), math.Inf(-1)}); !math.IsNaN(got) {
		t.Errorf("FSum(+Inf, -Inf) = %v, want NaN", got)
	}
	if got := fsum(nil); got != 0 {
		t.Errorf("FSum(nil) = %v, want 0", got)
	}
	if got := fsum([]float64{1, 1e100, 1, -1e100}); got != 2 {
		t.Errorf("FSum cancellation = %v, want 2", got)
	}
	if !math.IsNaN(FMean(nil)) || !math.IsNaN(ExactMean(nil)) {
		t.Error("means of no values should be NaN")
	}
}

// Python: statistics.mean rounds the exact mean once, statistics.fmean rounds the sum and
// then the quotient, and for these values they differ by one ulp.
func TestExactMeanVersusFMean(t *testing.T) {
	v := []float64{0.3012676595157123, 0.031011751469749993, 0.8655272369789456}
	if got, want := ExactMean(v), 0.39926888265480265; got != want {
		t.Errorf("ExactMean = %v, want %v", got, want)
	}
	if got, want := FMean(v), 0.3992688826548026; got != want {
		t.Errorf("FMean = %v, want %v", got, want)
	}
	if got := ExactMean([]float64{0.5, 0.25, 0}); got != 0.25 {
		t.Errorf("ExactMean([.5 .25 0]) = %v, want 0.25", got)
	}
}

func benchValues(n int) []float64 {
	r := rand.New(rand.NewPCG(1, 2))
	v := make([]float64, n)
	for i := range v {
		v[i] = 12000 + r.NormFloat64()*50 // e2e-like milliseconds
	}
	return v
}

func TestSummarizeFast(t *testing.T) {
	if testing.Short() {
		t.Skip("timing test")
	}
	res := testing.Benchmark(func(b *testing.B) {
		v := benchValues(10000)
		for b.Loop() {
			Summarize(v)
		}
	})
	if per := res.NsPerOp(); per > 50e6 {
		t.Errorf("Summarize(10000 values) took %d ns, want well under 50 ms", per)
	}
}

func BenchmarkSummarize10000(b *testing.B) {
	v := benchValues(10000)
	for b.Loop() {
		Summarize(v)
	}
}

func BenchmarkSummarizeWideRange10000(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	v := make([]float64, 10000)
	for i := range v {
		v[i] = math.Ldexp(r.Float64(), r.IntN(2000)-1000) // worst case: ~2000-bit integers
	}
	for b.Loop() {
		Summarize(v)
	}
}
