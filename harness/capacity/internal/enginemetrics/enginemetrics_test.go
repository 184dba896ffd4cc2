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
	if m.Scraped || m.Error != errNotServed.Error() {
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

// vllmText is an exposition the size of a vLLM server's (169 KB): 30 histograms over two
// engines, then the gauges a watch keeps peaks of.
func vllmText() string {
	var b strings.Builder
	for h := range 30 {
		name := "vllm:histogram_" + itoa(h) + "_seconds"
		b.WriteString("# HELP " + name + " A histogram.\n# TYPE " + name + " histogram\n")
		for engine := range 2 {
			labels := `engine="` + itoa(engine) + `",model_name="meta-llama/Llama-3.1-8B-Instruct"`
			for k := range 25 {
				b.WriteString(name + "_bucket{" + labels + `,le="` + ftoa(float64(k)*0.01) + `"} ` + itoa(k*100) + "\n")
			}
			b.WriteString(name + "_bucket{" + labels + `,le="+Inf"} 2500` + "\n")
			b.WriteString(name + "_sum{" + labels + "} 12.5\n" + name + "_count{" + labels + "} 2500\n")
		}
	}
	b.WriteString("# HELP vllm:num_requests_running Number of requests in model execution batches.\n# TYPE vllm:num_requests_running gauge\n")
	b.WriteString(`vllm:num_requests_running{engine="0",model_name="m"} 3` + "\n" + `vllm:num_requests_running{engine="1",model_name="m"} 4` + "\n")
	b.WriteString("# TYPE vllm:num_requests_waiting gauge\n" + `vllm:num_requests_waiting{engine="0",model_name="m"} 2` + "\n")
	b.WriteString("# TYPE vllm:kv_cache_usage_perc gauge\n" + `vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.25` + "\n")
	return b.String()
}

// A scrape during a run keeps the gauges it takes peaks of, and only them.
func TestGaugeReaderKeepsThePeakGauges(t *testing.T) {
	t.Parallel()
	full, err := parse(strings.NewReader(vllmText()))
	if err != nil {
		t.Fatal(err)
	}
	got, err := newGaugeReader().read(strings.NewReader(vllmText()))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Errorf("families %d, want the 3 peak gauges", len(got))
	}
	for _, names := range [][]string{runningNames, waitingNames, kvUsageNames} {
		a, _ := full.total(names)
		b, ok := got.total(names)
		if !ok || a != b {
			t.Errorf("%s: %v from the gauge reader, %v from a full parse", names[0], b, a)
		}
	}
	if v, _ := got.total(runningNames); v != 7 {
		t.Errorf("running %v, want 7 over both engines", v)
	}
	// A last line without its newline is still read.
	cut, err := newGaugeReader().read(strings.NewReader(strings.TrimSuffix(vllmText(), "\n")))
	if v, ok := cut.total(kvUsageNames); err != nil || !ok || v != 0.25 {
		t.Errorf("kv usage %v (%v) from an exposition without its last newline", v, err)
	}
}

// A block's mark keeps the speculative decoding counters alone, read as a full parse reads
// them: under their _total names, as vLLM writes them, or without, as find also takes them.
func TestAMarkReadsTheSpecCountersAlone(t *testing.T) {
	t.Parallel()
	text := vllmText() +
		"# HELP vllm:spec_decode_num_drafts_total Number of drafts.\n# TYPE vllm:spec_decode_num_drafts_total counter\n" +
		`vllm:spec_decode_num_drafts_total{engine="0",model_name="m"} 100` + "\n" + `vllm:spec_decode_num_drafts_total{engine="1",model_name="m"} 50` + "\n" +
		"# TYPE vllm:spec_decode_num_draft_tokens counter\n" + `vllm:spec_decode_num_draft_tokens{engine="0",model_name="m"} 450` + "\n" +
		"# TYPE vllm:spec_decode_num_accepted_tokens_total counter\n" + `vllm:spec_decode_num_accepted_tokens_total{engine="0",model_name="m"} 315` + "\n" +
		"# TYPE vllm:spec_decode_num_accepted_tokens_per_pos_total counter\n" +
		`vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="m",position="0"} 140` + "\n" +
		`vllm:spec_decode_num_accepted_tokens_per_pos_total{engine="0",model_name="m",position="1"} 105` + "\n"
	full, err := parse(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	got, err := newLineReader(specCounters).read(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 {
		t.Errorf("families %d, want the 4 speculative decoding counters", len(got))
	}
	if a, b := specOf(full), specOf(got); !b.ok || a.drafts != b.drafts || a.tokens != b.tokens || a.accepted != b.accepted ||
		b.drafts != 150 || b.perPos["0"] != 140 || b.perPos["1"] != 105 {
		t.Errorf("the mark read %+v, a full parse %+v", b, a)
	}
}

// The garbage of one scrape: the whole exposition parsed (the scrapes before and after a
// run), and the gauges alone (the scrapes during it, with the collector off).
func BenchmarkScrape(b *testing.B) {
	text := vllmText()
	b.Run("full", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := parse(strings.NewReader(text)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("spec counters", func(b *testing.B) {
		g := newLineReader(specCounters)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := g.read(strings.NewReader(text)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("gauges", func(b *testing.B) {
		g := newGaugeReader()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := g.read(strings.NewReader(text)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// tgiText renders TGI's metrics after requests of input and generated tokens, with running
// requests in the batch and waiting ones in the queue.
func tgiText(requests, input, generated, running, waiting int) string {
	var b strings.Builder
	for _, h := range []struct {
		name string
		per  int
	}{{"tgi_request_input_length", input}, {"tgi_request_generated_tokens", generated}} {
		b.WriteString("# TYPE " + h.name + " histogram\n")
		b.WriteString(h.name + `_bucket{le="+Inf"} ` + itoa(requests) + "\n")
		b.WriteString(h.name + "_sum " + itoa(requests*h.per) + "\n" + h.name + "_count " + itoa(requests) + "\n")
	}
	b.WriteString("# TYPE tgi_batch_current_size gauge\ntgi_batch_current_size " + itoa(running) + "\n")
	b.WriteString("# TYPE tgi_queue_size gauge\ntgi_queue_size " + itoa(waiting) + "\n")
	return b.String()
}

// TGI counts tokens in per-request histograms: their sums are its token counters, and its
// batch and queue sizes its running and waiting requests.
func TestWatchOfTGI(t *testing.T) {
	t.Parallel()
	var scrape atomic.Int64
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch scrape.Add(1) {
		case 1: // 5 earlier requests, 1 still in the batch and 2 queued
			_, _ = w.Write([]byte(tgiText(5, 1000, 64, 1, 2)))
		case 2: // during the run
			_, _ = w.Write([]byte(tgiText(9, 1000, 64, 8, 3)))
		default: // after 8 requests of 1000 and 64
			_, _ = w.Write([]byte(tgiText(13, 1000, 64, 0, 0)))
		}
	}))
	defer s.Close()
	w := Start(context.Background(), s.Client(), s.URL+"/metrics", 50*time.Millisecond)
	time.Sleep(80 * time.Millisecond)
	m := w.Finish(context.Background())
	if m.PromptTokens == nil || *m.PromptTokens != 8000 || m.GenerationTokens == nil || *m.GenerationTokens != 512 {
		t.Errorf("tokens over the run: prompt %v, generated %v; want 8000 and 512", m.PromptTokens, m.GenerationTokens)
	}
	if m.RunningAtStart == nil || *m.RunningAtStart != 1 || m.WaitingAtStart == nil || *m.WaitingAtStart != 2 {
		t.Errorf("at start: running %v, waiting %v; want 1 and 2", m.RunningAtStart, m.WaitingAtStart)
	}
	if m.RunningPeak == nil || *m.RunningPeak != 8 || m.WaitingPeak == nil || *m.WaitingPeak != 3 {
		t.Errorf("peaks: running %v, waiting %v; want 8 and 3", m.RunningPeak, m.WaitingPeak)
	}
}

// SGLang's speculative decoding is its accept length gauge, averaged over the run's
// scrapes (the one before the first request included); an engine without one records none.
func TestWatchAveragesSGLangsAcceptLength(t *testing.T) {
	t.Parallel()
	var scrape atomic.Int64
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		length := map[int64]string{1: "2.5", 2: "3.5"}[scrape.Add(1)]
		if length == "" {
			length = "3"
		}
		_, _ = w.Write([]byte(sglangText(1, 0.1, 0) + "# TYPE sglang:spec_accept_length gauge\nsglang:spec_accept_length{model_name=\"m\"} " + length + "\n"))
	}))
	defer s.Close()
	w := Start(context.Background(), s.Client(), URL(s.URL+"/v1"), time.Hour)
	m := w.Finish(context.Background())
	d := m.SpecDecode
	if d == nil || d.MeanAcceptedLength == nil || *d.MeanAcceptedLength != 3 || d.AcceptanceRate != nil || d.Source != "sglang:spec_accept_length (mean of the scrapes)" {
		t.Fatalf("spec decode %+v", d)
	}
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(sglangText(1, 0.1, 0))) }))
	defer plain.Close()
	if d := Start(context.Background(), plain.Client(), URL(plain.URL+"/v1"), time.Hour).Finish(context.Background()).SpecDecode; d != nil {
		t.Errorf("an engine without speculative decoding: %+v", d)
	}
}
