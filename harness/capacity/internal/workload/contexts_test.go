package workload

import (
	"math"
	"slices"
	"strings"
	"testing"
)

func TestDefaultBucketsRoundTrip(t *testing.T) {
	got, err := parseBuckets("0.218:16000,0.602:32768,0.906:65536,0.995:131072,1:262144")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, DefaultBuckets()) {
		t.Errorf("ParseBuckets(default) = %v, want %v", got, DefaultBuckets())
	}
}

func TestSampleContextEdges(t *testing.T) {
	tests := []struct {
		u    float64
		want int
	}{
		{0.0, 16000}, {0.218, 16000}, {0.2180001, 32768}, {0.602, 32768}, {0.6020001, 65536},
		{0.906, 65536}, {0.9060001, 131072}, {0.995, 131072}, {0.9950001, 262144}, {1.0, 262144},
	}
	for _, tt := range tests {
		got, err := sampleContext(tt.u, DefaultBuckets())
		if err != nil || got != tt.want {
			t.Errorf("SampleContext(%v) = %d, %v; want %d", tt.u, got, err, tt.want)
		}
	}
}

func TestSampleContextAboveLastEdge(t *testing.T) {
	short := []Bucket{{0.5, 100}, {0.9, 200}}
	if got, err := sampleContext(0.95, short); err != nil || got != 200 {
		t.Errorf("SampleContext(0.95, edges to 0.9) = %d, %v; want 200", got, err)
	}
}

func TestSampleContextErrors(t *testing.T) {
	for _, u := range []float64{-0.0001, 1.0001, math.NaN()} {
		if _, err := sampleContext(u, DefaultBuckets()); err == nil {
			t.Errorf("SampleContext(%v) err = nil, want error", u)
		}
	}
	if _, err := sampleContext(0.5, nil); err == nil {
		t.Error("SampleContext with no buckets: err = nil, want error")
	}
}

// The first ten planned contexts per seed, from capacity-spec.md §2.3 (CPython random).
var specDraws = map[int64][]int{
	0:  {65536, 65536, 32768, 32768, 32768, 32768, 65536, 32768, 32768, 32768},
	1:  {16000, 65536, 65536, 32768, 32768, 32768, 65536, 65536, 16000, 16000},
	42: {65536, 16000, 32768, 32768, 65536, 65536, 65536, 16000, 32768, 16000},
	44: {32768, 32768, 65536, 16000, 32768, 16000, 16000, 16000, 16000, 32768},
}

func TestPlanContextsSpecVectors(t *testing.T) {
	for seed, want := range specDraws {
		if got := PlanContexts(10, 0, seed, DefaultBuckets(), 0); !slices.Equal(got, want) {
			t.Errorf("seed %d: plan %v, want %v", seed, got, want)
		}
		// Negative seeds are the same as their absolute value.
		if got := PlanContexts(10, 0, -seed, DefaultBuckets(), 0); !slices.Equal(got, want) {
			t.Errorf("seed %d: plan %v, want %v", -seed, got, want)
		}
	}
	if u := newPyRandom(0).Random(); u != 0.8444218515250481 {
		t.Errorf("first draw of seed 0 = %v, want 0.8444218515250481", u)
	}
}

func TestPlanContextsFixedAndCap(t *testing.T) {
	if got := PlanContexts(6, 64000, 0, DefaultBuckets(), 64000); !slices.Equal(got, slices.Repeat([]int{64000}, 6)) {
		t.Errorf("fixed 64000 cap 64000 = %v", got)
	}
	if got := PlanContexts(3, 4096, 9, nil, 1000); !slices.Equal(got, []int{1000, 1000, 1000}) {
		t.Errorf("fixed 4096 cap 1000 = %v", got)
	}
	// Sampled then clamped: seed 0 draws 65536, 65536, 32768, 32768.
	if got := PlanContexts(4, 0, 0, DefaultBuckets(), 40000); !slices.Equal(got, []int{40000, 40000, 32768, 32768}) {
		t.Errorf("sampled seed 0 cap 40000 = %v", got)
	}
	// Empty buckets fall back to the default mix.
	if got := PlanContexts(10, 0, 42, nil, 0); !slices.Equal(got, specDraws[42]) {
		t.Errorf("nil buckets seed 42 = %v", got)
	}
	if got := PlanContexts(0, 0, 1, nil, 0); len(got) != 0 {
		t.Errorf("n=0 plan = %v", got)
	}
	if got := PlanContexts(-1, 0, 1, nil, 0); len(got) != 0 {
		t.Errorf("n=-1 plan = %v", got)
	}
}

func TestPlanContextsPrefixStable(t *testing.T) {
	// Entry i is the i-th draw of one generator, so a longer plan extends a shorter one.
	short := PlanContexts(10, 0, 44, DefaultBuckets(), 0)
	long := PlanContexts(500, 0, 44, DefaultBuckets(), 0)
	if !slices.Equal(short, long[:10]) {
		t.Errorf("plan of 10 %v is not the prefix of the plan of 500 %v", short, long[:10])
	}
}

func TestParseBuckets(t *testing.T) {
	got, err := parseBuckets(" 0.5 : 100 , 1:200 ")
	if err != nil || !slices.Equal(got, []Bucket{{0.5, 100}, {1, 200}}) {
		t.Errorf("ParseBuckets with spaces = %v, %v", got, err)
	}
	if got, err := parseBuckets("1:32"); err != nil || !slices.Equal(got, []Bucket{{1, 32}}) {
		t.Errorf("single bucket = %v, %v", got, err)
	}
}

func TestParseBucketsErrors(t *testing.T) {
	tests := []struct {
		in, quoted string
	}{
		{"", ""},
		{"   ", ""},
		{"0.5:100,0.4:200,1:300", `"0.4:200"`},
		{"0.5:100,0.5:200,1:300", `"0.5:200"`},
		{"0.5:100,0.9:200", `"0.9:200"`},
		{"0.5:100,1.5:200", `"1.5:200"`},
		{"0:100,1:200", `"0:100"`},
		{"-0.1:100,1:200", `"-0.1:100"`},
		{"NaN:100,1:200", `"NaN:100"`},
		{"0.5:31,1:200", `"0.5:31"`},
		{"0.5:100,1:1048577", `"1:1048577"`},
		{"0.5:100,1:2.5", `"1:2.5"`},
		{"0.5;100,1:200", `"0.5;100"`},
		{"0.5:100,,1:200", `""`},
		{"abc:100,1:200", `"abc:100"`},
	}
	for _, tt := range tests {
		_, err := parseBuckets(tt.in)
		if err == nil {
			t.Errorf("ParseBuckets(%q) err = nil, want error", tt.in)
			continue
		}
		if !strings.Contains(err.Error(), tt.quoted) {
			t.Errorf("ParseBuckets(%q) err = %q, want it to quote %s", tt.in, err, tt.quoted)
		}
	}
}
