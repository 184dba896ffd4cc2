package enginemetrics

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// sglangText renders SGLang-named metrics after n requests of ttft seconds each.
func sglangText(n int, ttft float64, running int) string {
	var b strings.Builder
	b.WriteString("# TYPE sglang:time_to_first_token_seconds histogram\n")
	for _, le := range []string{"0.1", "0.25", "0.5", "+Inf"} {
		count := 0
		if le == "+Inf" || ttft <= mustFloat(le) {
			count = n
		}
		b.WriteString(`sglang:time_to_first_token_seconds_bucket{model_name="m",le="` + le + `"} ` + itoa(count) + "\n")
	}
	b.WriteString(`sglang:time_to_first_token_seconds_sum{model_name="m"} ` + ftoa(float64(n)*ttft) + "\n")
	b.WriteString(`sglang:time_to_first_token_seconds_count{model_name="m"} ` + itoa(n) + "\n")
	b.WriteString("# TYPE sglang:num_running_reqs gauge\n")
	b.WriteString(`sglang:num_running_reqs{model_name="m",tp_rank="0"} ` + itoa(running) + "\n")
	b.WriteString(`sglang:num_running_reqs{model_name="m",tp_rank="1"} ` + itoa(running) + "\n")
	b.WriteString("# TYPE sglang:token_usage gauge\n")
	b.WriteString(`sglang:token_usage{model_name="m"} 0.` + itoa(running) + "\n")
	return b.String()
}

func TestWatchDifferencesHistogramsAndKeepsPeaks(t *testing.T) {
	t.Parallel()
	var scrape atomic.Int64
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		switch scrape.Add(1) {
		case 1: // before: 10 earlier requests at 0.4 s, one still running on each rank
			_, _ = w.Write([]byte(sglangText(10, 0.4, 1)))
		case 2: // during: 6 running
			_, _ = w.Write([]byte(sglangText(12, 0.4, 3)))
		default: // after: 20 more requests at 0.2 s, none of them above 0.25 s
			_, _ = w.Write([]byte(strings.Replace(sglangText(30, 0.2, 0), `le="0.25"} 30`, `le="0.25"} 20`, 1)))
		}
	}))
	defer s.Close()
	if got := URL(s.URL + "/v1"); got != s.URL+"/metrics" {
		t.Fatalf("URL %s", got)
	}
	w := Start(context.Background(), s.Client(), URL(s.URL+"/v1"), 50*time.Millisecond)
	time.Sleep(80 * time.Millisecond)
	m := w.Finish(context.Background())
	if !m.Scraped || m.Scrapes < 3 || m.TTFTMs == nil {
		t.Fatalf("metrics %+v", m)
	}
	// 20 observations over the run, all in (0.1, 0.25]: the median is in that bucket.
	if m.TTFTMs.Metric != "sglang:time_to_first_token_seconds" || m.TTFTMs.Count != 20 ||
		len(m.TTFTMs.P50BucketMs) != 2 || m.TTFTMs.P50BucketMs[0] != 100 || m.TTFTMs.P50BucketMs[1] != 250 {
		t.Errorf("ttft %+v", *m.TTFTMs)
	}
	if m.RunningPeak == nil || *m.RunningPeak != 6 || m.KVCacheUsagePeak == nil || *m.KVCacheUsagePeak != 0.3 {
		t.Errorf("peaks: running %v, kv %v", m.RunningPeak, m.KVCacheUsagePeak)
	}
	if m.RunningAtStart == nil || *m.RunningAtStart != 2 || m.WaitingAtStart != nil {
		t.Errorf("at start: running %v (want 2, one per rank), waiting %v (not exported: want null)", m.RunningAtStart, m.WaitingAtStart)
	}
	if m.InterTokenMs != nil || m.Preemptions != nil {
		t.Errorf("figures the engine does not export must be null: %+v %+v", m.InterTokenMs, m.Preemptions)
	}
}

func TestWatchOfAnEngineWithoutMetrics(t *testing.T) {
	t.Parallel()
	s := httptest.NewServer(http.NotFoundHandler())
	defer s.Close()
	m := Start(context.Background(), s.Client(), s.URL+"/metrics", time.Second).Finish(context.Background())
	if m.Scraped || m.Error != ErrNotServed.Error() {
		t.Errorf("metrics %+v", m)
	}
}

func TestQuantileInterpolatesInsideTheBucket(t *testing.T) {
	t.Parallel()
	b := buckets{bounds: []float64{1, 2, 4}, counts: []float64{0, 10, 10}, count: 10}
	v, low, high, ok := b.quantile(0.5)
	if !ok || v != 1.5 || low != 1 || high != 2 {
		t.Errorf("p50 %v in (%v, %v]", v, low, high)
	}
}

func mustFloat(s string) float64 {
	f, _ := strconv.ParseFloat(s, 64)
	return f
}

func itoa(n int) string     { return strconv.Itoa(n) }
func ftoa(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
