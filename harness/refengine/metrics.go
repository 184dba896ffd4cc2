package refengine

import (
	"bufio"
	"net/http"
	"slices"
	"strconv"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

// Bucket bounds, in seconds, of vLLM's latency histograms.
var (
	ttftBuckets = []float64{0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640, 2560}
	itlBuckets  = []float64{0.001, 0.0025, 0.005, 0.0075, 0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80}
	e2eBuckets  = []float64{0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120, 240, 480, 960, 1920, 7680}
)

// histogram is a cumulative Prometheus histogram being filled.
type histogram struct {
	bounds []float64
	counts []uint64 // per bound, not cumulative; the last slot is +Inf
	sum    float64
	count  uint64
}

func newHistogram(bounds []float64) *histogram {
	return &histogram{bounds: bounds, counts: make([]uint64, len(bounds)+1)}
}

func (h *histogram) observe(d time.Duration) {
	v := d.Seconds()
	i := 0
	for i < len(h.bounds) && v > h.bounds[i] {
		i++
	}
	h.counts[i]++
	h.sum += v
	h.count++
}

// handleMetrics serves GET /metrics in the Prometheus text format under vLLM's metric names,
// computed from the request traces kept since Start (ResetTraces starts them over): the
// server-side truth a client can set its own figures beside.
func (s *Server) handleMetrics(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		w.Header().Set("Allow", http.MethodGet)
		writeError(w, errMethod(r.Method))
		return
	}
	ttft, itl, e2e, queue := newHistogram(ttftBuckets), newHistogram(itlBuckets), newHistogram(e2eBuckets), newHistogram(e2eBuckets)
	prefill, decode := newHistogram(e2eBuckets), newHistogram(e2eBuckets)
	var prompt, generation, cached, success, running, waiting, liveTokens float64
	var drafts, drafted, accepted float64
	perPos := make([]float64, s.opts.SpecTokens)
	for _, t := range s.Traces() {
		drafts, drafted, accepted = drafts+float64(t.SpecDrafts), drafted+float64(t.SpecDraftTokens), accepted+float64(t.SpecAccepted)
		for j, n := range t.SpecAcceptedPerPos {
			perPos[j] += float64(n)
		}
		// As vLLM splits a request: waiting until scheduled, prefill until its first token,
		// decode until its last.
		if !t.Scheduled.IsZero() {
			queue.observe(t.Scheduled.Sub(t.Arrived))
		}
		if !t.FirstToken.IsZero() {
			ttft.observe(t.FirstToken.Sub(t.Arrived))
			if !t.Scheduled.IsZero() {
				prefill.observe(t.FirstToken.Sub(t.Scheduled))
			}
			if !t.Finished.IsZero() && t.FinishReason != "" {
				decode.observe(t.Finished.Sub(t.FirstToken))
			}
		}
		for k := 1; k < len(t.ChunkTimes); k++ {
			itl.observe(t.ChunkTimes[k].Sub(t.ChunkTimes[k-1]))
		}
		prompt += float64(t.PromptTokens)
		cached += float64(t.CachedTokens)
		generation += float64(t.CompletionTokens)
		switch {
		case !t.Finished.IsZero():
			e2e.observe(t.Finished.Sub(t.Arrived))
			if t.FinishReason != "" {
				success++
			}
		case t.Admitted.IsZero():
			waiting++
		default:
			running++
			liveTokens += float64(t.PromptTokens + t.CompletionTokens)
		}
	}
	// KV-cache usage: the live sequences' tokens over room for MaxBatch full windows.
	capacity := float64(s.opts.MaxModelLen * max(s.opts.MaxBatch, 1))

	w.Header().Set("Content-Type", string(expfmt.NewFormat(expfmt.TypeTextPlain)))
	labels := []*dto.LabelPair{{Name: new("model_name"), Value: new(s.opts.Model)}, {Name: new("engine"), Value: new("0")}}
	var families []*dto.MetricFamily
	scalar := func(name string, kind dto.MetricType, help string, v float64) {
		m := &dto.Metric{Label: labels}
		if kind == dto.MetricType_GAUGE {
			m.Gauge = &dto.Gauge{Value: new(v)}
		} else {
			m.Counter = &dto.Counter{Value: new(v)}
		}
		families = append(families, &dto.MetricFamily{Name: new(name), Help: new(help), Type: kind.Enum(), Metric: []*dto.Metric{m}})
	}
	hist := func(name, help string, h *histogram) {
		m := &dto.Histogram{SampleCount: new(h.count), SampleSum: new(h.sum)}
		cum := uint64(0)
		for i, bound := range h.bounds {
			cum += h.counts[i]
			m.Bucket = append(m.Bucket, &dto.Bucket{UpperBound: new(bound), CumulativeCount: new(cum)})
		}
		families = append(families, &dto.MetricFamily{Name: new(name), Help: new(help), Type: dto.MetricType_HISTOGRAM.Enum(),
			Metric: []*dto.Metric{{Label: labels, Histogram: m}}})
	}
	scalar("vllm:num_requests_running", dto.MetricType_GAUGE, "Number of requests in model execution batches.", running)
	scalar("vllm:num_requests_waiting", dto.MetricType_GAUGE, "Number of requests waiting to be processed.", waiting)
	scalar("vllm:kv_cache_usage_perc", dto.MetricType_GAUGE, "KV-cache usage. 1 means 100 percent usage.", min(liveTokens/capacity, 1))
	scalar("vllm:num_preemptions_total", dto.MetricType_COUNTER, "Cumulative number of preemptions from the engine.", 0)
	if !s.opts.NoTokenCounters {
		scalar("vllm:prompt_tokens_total", dto.MetricType_COUNTER, "Number of prefill tokens processed.", prompt)
		scalar("vllm:generation_tokens_total", dto.MetricType_COUNTER, "Number of generation tokens processed.", generation)
	}
	scalar("vllm:prefix_cache_queries_total", dto.MetricType_COUNTER, "Prefix cache queries, in terms of number of queried tokens.", prompt)
	scalar("vllm:prefix_cache_hits_total", dto.MetricType_COUNTER, "Prefix cache hits, in terms of number of cached tokens.", cached)
	scalar("vllm:request_success_total", dto.MetricType_COUNTER, "Count of successfully processed requests.", success)
	if s.spec != nil {
		scalar("vllm:spec_decode_num_drafts_total", dto.MetricType_COUNTER, "Number of spec decoding drafts.", drafts)
		scalar("vllm:spec_decode_num_draft_tokens_total", dto.MetricType_COUNTER, "Number of draft tokens.", drafted)
		scalar("vllm:spec_decode_num_accepted_tokens_total", dto.MetricType_COUNTER, "Number of accepted tokens.", accepted)
		pos := &dto.MetricFamily{Name: new("vllm:spec_decode_num_accepted_tokens_per_pos_total"), Help: new("Accepted tokens per draft position."),
			Type: dto.MetricType_COUNTER.Enum()}
		for j, n := range perPos {
			l := append(slices.Clone(labels), &dto.LabelPair{Name: new("position"), Value: new(strconv.Itoa(j))})
			pos.Metric = append(pos.Metric, &dto.Metric{Label: l, Counter: &dto.Counter{Value: new(n)}})
		}
		families = append(families, pos)
	}
	hist("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds.", ttft)
	hist("vllm:inter_token_latency_seconds", "Histogram of inter-token latency in seconds.", itl)
	hist("vllm:e2e_request_latency_seconds", "Histogram of e2e request latency in seconds.", e2e)
	hist("vllm:request_queue_time_seconds", "Histogram of time spent in WAITING phase for request.", queue)
	hist("vllm:request_prefill_time_seconds", "Histogram of time spent in PREFILL phase for request.", prefill)
	hist("vllm:request_decode_time_seconds", "Histogram of time spent in DECODE phase for request.", decode)
	b := bufio.NewWriter(w)
	for _, f := range families {
		// expfmt escapes the label values (a model name may hold any character) and writes
		// the metric names vLLM uses, colons included.
		if _, err := expfmt.MetricFamilyToText(b, f); err != nil {
			return
		}
	}
	_ = b.Flush()
}
