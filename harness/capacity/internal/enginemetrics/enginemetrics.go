// Package enginemetrics reads what an engine says about itself: its Prometheus metrics
// (vLLM's, SGLang's, llama.cpp's --metrics, TGI's), scraped before, during and after a run,
// turned into the deltas that explain a client-side figure: the server's own TTFT and
// inter-token histograms, queue time, preemptions, the KV-cache peak, the prefix-cache hit
// rate. It parses the text format with the Prometheus project's own parser.
package enginemetrics

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// maxBytes bounds one scrape; a vLLM server exposes some hundred kilobytes.
const maxBytes = 16 << 20

// errNotServed is returned by scrape when the endpoint answers 404: it serves no metrics.
var errNotServed = errors.New("no metrics served (HTTP 404)")

// snapshot is one scrape: metric families by name.
type snapshot map[string]*dto.MetricFamily

// scrape fetches and parses url with client.
func scrape(ctx context.Context, client *http.Client, url string) (snapshot, error) {
	var families snapshot
	err := fetch(ctx, client, url, func(body io.Reader) (err error) {
		families, err = parse(body)
		return err
	})
	return families, err
}

// fetch GETs url and hands its body, bounded by maxBytes, to read.
func fetch(ctx context.Context, client *http.Client, url string, read func(io.Reader) error) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("metrics request: %w", err)
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("GET metrics: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return errNotServed
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET metrics: HTTP %d", resp.StatusCode)
	}
	return read(io.LimitReader(resp.Body, maxBytes))
}

func parse(text io.Reader) (snapshot, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(text)
	if err != nil {
		return nil, fmt.Errorf("parse metrics: %w", err)
	}
	return families, nil
}

// lineReader reads a watch's scrapes during a run. Only the lines of the families it
// keeps are parsed (the gauges whose peaks it keeps; at a block's edges the speculative
// decoding counters): a whole vLLM exposition of 169 KB leaves 2 MB of garbage when
// parsed, and the request phase runs with the collector off.
type lineReader struct {
	keep  map[string]bool
	lines *bufio.Reader
	kept  bytes.Buffer
}

func newLineReader(keep map[string]bool) *lineReader {
	return &lineReader{keep: keep, lines: bufio.NewReaderSize(nil, 64<<10)}
}

func newGaugeReader() *lineReader { return newLineReader(peakGauges) }

func (g *lineReader) read(body io.Reader) (snapshot, error) {
	g.lines.Reset(body)
	g.kept.Reset()
	for {
		line, err := g.lines.ReadSlice('\n')
		for errors.Is(err, bufio.ErrBufferFull) { // longer than any line of a gauge we keep
			line = nil
			_, err = g.lines.ReadSlice('\n')
		}
		if g.keep[string(lineName(line))] {
			g.kept.Write(line)
			if line[len(line)-1] != '\n' {
				g.kept.WriteByte('\n')
			}
		}
		if err == io.EOF {
			return parse(&g.kept)
		}
		if err != nil {
			return nil, fmt.Errorf("read metrics: %w", err)
		}
	}
}

// lineName is the metric a line of the text format is about: a sample's name, or the
// name a # HELP or # TYPE line describes; nil for other lines.
func lineName(line []byte) []byte {
	if rest, ok := bytes.CutPrefix(line, []byte("# ")); ok {
		_, rest, _ = bytes.Cut(rest, []byte(" "))
		line = rest
	}
	end := bytes.IndexAny(line, "{ \t\n")
	if end < 0 {
		return nil
	}
	return line[:end]
}

// URL is where an OpenAI-compatible endpoint's engine serves its metrics: /metrics at the
// root of the base URL (without /v1), user information removed.
func URL(baseURL string) string {
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil {
		return ""
	}
	u.User = nil
	u.Path = strings.TrimSuffix(u.Path, "/v1") + "/metrics"
	return u.String()
}

// The names engines give each quantity, in order of preference.
var (
	ttftNames       = []string{"vllm:time_to_first_token_seconds", "sglang:time_to_first_token_seconds"}
	interTokenNames = []string{"vllm:inter_token_latency_seconds", "vllm:time_per_output_token_seconds", "sglang:inter_token_latency_seconds", "sglang:time_per_output_token_seconds"}
	e2eNames        = []string{"vllm:e2e_request_latency_seconds", "sglang:e2e_request_latency_seconds", "tgi_request_duration"}
	queueNames      = []string{"vllm:request_queue_time_seconds", "sglang:queue_time_seconds", "tgi_request_queue_duration"}
	prefillNames    = []string{"vllm:request_prefill_time_seconds"}
	decodeNames     = []string{"vllm:request_decode_time_seconds"}
	preemptNames    = []string{"vllm:num_preemptions_total", "vllm:num_preemptions", "sglang:num_retracted_reqs"}
	kvUsageNames    = []string{"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc", "sglang:token_usage", "llamacpp:kv_cache_usage_ratio"}
	runningNames    = []string{"vllm:num_requests_running", "sglang:num_running_reqs", "llamacpp:requests_processing", "tgi_batch_current_size"}
	waitingNames    = []string{"vllm:num_requests_waiting", "sglang:num_queue_reqs", "llamacpp:requests_deferred", "tgi_queue_size"}
	promptNames     = []string{"vllm:prompt_tokens_total", "sglang:prompt_tokens_total", "llamacpp:prompt_tokens_total", "tgi_request_input_length"}
	generationNames = []string{"vllm:generation_tokens_total", "sglang:generation_tokens_total", "llamacpp:tokens_predicted_total", "tgi_request_generated_tokens"}
	cacheQueryNames = []string{"vllm:prefix_cache_queries_total", "vllm:gpu_prefix_cache_queries_total"}
	cacheHitNames   = []string{"vllm:prefix_cache_hits_total", "vllm:gpu_prefix_cache_hits_total"}
	// Speculative decoding: vLLM's counters, SGLang's accept length gauge.
	specDraftsNames      = []string{"vllm:spec_decode_num_drafts_total"}
	specDraftTokensNames = []string{"vllm:spec_decode_num_draft_tokens_total"}
	specAcceptedNames    = []string{"vllm:spec_decode_num_accepted_tokens_total"}
	specPerPosNames      = []string{"vllm:spec_decode_num_accepted_tokens_per_pos_total"}
	specLengthNames      = []string{"sglang:spec_accept_length"}
)

// peakGauges are the gauges a watch reads during a run: the peaks it keeps, and SGLang's
// accept length it averages; specCounters the counters a block's Marks read.
var (
	peakGauges   = lineNames(kvUsageNames, runningNames, waitingNames, specLengthNames)
	specCounters = lineNames(specDraftsNames, specDraftTokensNames, specAcceptedNames, specPerPosNames)
)

// lineNames are the names the lines of these families carry: a counter's samples end in
// _total, its # TYPE line may not.
func lineNames(names ...[]string) map[string]bool {
	m := map[string]bool{}
	for _, n := range slices.Concat(names...) {
		m[n], m[strings.TrimSuffix(n, "_total")] = true, true
	}
	return m
}

// find returns the first family of names present, and its name.
func (s snapshot) find(names []string) (*dto.MetricFamily, string) {
	for _, n := range names {
		for _, key := range []string{n, strings.TrimSuffix(n, "_total")} {
			if f, ok := s[key]; ok {
				return f, n
			}
		}
	}
	return nil, ""
}

// total sums a counter's or gauge's samples over every label set (engines, data-parallel
// ranks), or a histogram's sums (TGI counts tokens in histograms of them per request); ok
// is false when the family is absent.
func (s snapshot) total(names []string) (float64, bool) {
	f, _ := s.find(names)
	if f == nil {
		return 0, false
	}
	sum := 0.0
	for _, m := range f.GetMetric() {
		switch {
		case m.Counter != nil:
			sum += m.Counter.GetValue()
		case m.Gauge != nil:
			sum += m.Gauge.GetValue()
		case m.Untyped != nil:
			sum += m.Untyped.GetValue()
		case m.Histogram != nil:
			sum += m.Histogram.GetSampleSum()
		}
	}
	return sum, true
}

// byLabel sums a counter's samples by the value of one label.
func (s snapshot) byLabel(names []string, label string) map[string]float64 {
	f, _ := s.find(names)
	out := map[string]float64{}
	if f == nil {
		return out
	}
	for _, m := range f.GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == label && m.Counter != nil {
				out[l.GetValue()] += m.Counter.GetValue()
			}
		}
	}
	return out
}

// peak is the largest sample of a gauge over every label set.
func (s snapshot) peak(names []string) (float64, bool) {
	f, _ := s.find(names)
	if f == nil {
		return 0, false
	}
	top, found := math.Inf(-1), false
	for _, m := range f.GetMetric() {
		if m.Gauge != nil {
			top, found = math.Max(top, m.Gauge.GetValue()), true
		}
	}
	return top, found
}

// buckets is a histogram's cumulative buckets summed over label sets.
type buckets struct {
	bounds []float64
	counts []float64 // cumulative
	sum    float64
	count  float64
}

func (s snapshot) histogram(names []string) (buckets, string, bool) {
	f, name := s.find(names)
	if f == nil || f.GetType() != dto.MetricType_HISTOGRAM {
		return buckets{}, "", false
	}
	var b buckets
	for _, m := range f.GetMetric() {
		h := m.GetHistogram()
		if h == nil {
			continue
		}
		if b.bounds == nil {
			for _, bk := range h.GetBucket() {
				b.bounds = append(b.bounds, bk.GetUpperBound())
			}
			b.counts = make([]float64, len(b.bounds))
		}
		for i, bk := range h.GetBucket() {
			if i < len(b.counts) && bk.GetUpperBound() == b.bounds[i] {
				b.counts[i] += float64(bk.GetCumulativeCount())
			}
		}
		b.sum += h.GetSampleSum()
		b.count += float64(h.GetSampleCount())
	}
	return b, name, b.bounds != nil
}

// minus is the histogram of the observations between two scrapes.
func (b buckets) minus(before buckets) buckets {
	out := buckets{bounds: b.bounds, counts: make([]float64, len(b.counts)), sum: b.sum - before.sum, count: b.count - before.count}
	for i := range b.counts {
		out.counts[i] = b.counts[i]
		if i < len(before.counts) && before.bounds[i] == b.bounds[i] {
			out.counts[i] -= before.counts[i]
		}
	}
	return out
}

// quantile estimates the q-quantile as Prometheus's histogram_quantile does, by linear
// interpolation inside the bucket that holds it, and returns that bucket's bounds.
func (b buckets) quantile(q float64) (v, low, high float64, ok bool) {
	if b.count <= 0 {
		return 0, 0, 0, false
	}
	rank := q * b.count
	low = 0
	prev := 0.0
	for i, bound := range b.bounds {
		if math.IsInf(bound, 1) {
			break
		}
		if b.counts[i] >= rank {
			inBucket := b.counts[i] - prev
			frac := 1.0
			if inBucket > 0 {
				frac = (rank - prev) / inBucket
			}
			return low + (bound-low)*frac, low, bound, true
		}
		low, prev = bound, b.counts[i]
	}
	// Above the last finite bound: the lower edge is all that is known.
	return low, low, math.Inf(1), true
}
