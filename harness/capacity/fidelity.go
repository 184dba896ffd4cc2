package capacity

import (
	"fmt"
	"runtime"
	"strconv"
	"time"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/internal/stats"
)

// Thresholds above which the client may have limited what it measured.
const (
	bottleneckCPUShare = 80.0
	bottleneckEventLag = time.Millisecond
)

// itl pools the successful requests' gaps between consecutive output chunks. When every
// chunk of every success carried usage, a gap of a k-token chunk counts as k tokens of
// gap/k each, so coalesced chunks do not inflate the figure; otherwise each gap is one
// per-chunk sample and the basis says so.
func (r *run) itl() artifact.ITLSummary {
	perToken := true
	chunks, tokens, successes := 0, 0, 0
	for _, o := range r.outcomes {
		if o.row == nil {
			continue
		}
		successes++
		perToken = perToken && o.arrivalTokens != nil
		chunks += len(o.arrivals)
		if o.row.OutputTokens != nil {
			tokens += *o.row.OutputTokens
		}
	}
	var gaps []float64
	shared := 0
	var out artifact.ITLSummary
	for _, o := range r.outcomes {
		if o.row == nil {
			continue
		}
		for k := 1; k < len(o.arrivals); k++ {
			if o.arrivals[k] == o.arrivals[k-1] {
				shared++
			}
			gap := float64(o.arrivals[k]-o.arrivals[k-1]) / 1e6
			if !perToken {
				gaps = append(gaps, gap)
				continue
			}
			n := o.arrivalTokens[k] - o.arrivalTokens[k-1]
			for range n {
				gaps = append(gaps, gap/float64(n))
			}
		}
	}
	out.Basis, out.Samples, out.SharedReadGaps = artifact.ITLPerChunk, len(gaps), shared
	for _, o := range r.outcomes {
		if o.row == nil || !perToken {
			continue
		}
		before := 0
		for _, n := range o.arrivalTokens {
			countChunk(&out, n-before)
			before = n
		}
	}
	if perToken && len(gaps) > 0 {
		out.Basis = artifact.ITLPerToken
	}
	out.TokensPerChunk, out.Note = chunking(chunks, tokens, successes, perToken)
	if s, ok := stats.Summarize(gaps); ok {
		out.MeanMs, out.P50Ms, out.P90Ms = artifact.F(s.Mean), artifact.F(s.P50), artifact.F(s.P90)
		out.P95Ms, out.P99Ms, out.MaxMs = artifact.F(s.P95), artifact.F(s.P99), artifact.F(s.Max)
	}
	return out
}

// countChunk counts one output chunk of n tokens.
func countChunk(out *artifact.ITLSummary, n int) {
	if out.ChunkTokens == nil {
		out.ChunkTokens = map[string]int{}
	}
	out.ChunkTokens[strconv.Itoa(n)]++
}

// chunking is the mean tokens per output chunk, from the chunks and tokens of a number of
// successful responses (nil without tokens), and, unless perToken says every chunk's
// tokens are known, the note on how far tpot may read low. A run and a merge share it.
func chunking(chunks, tokens, responses int, perToken bool) (*artifact.Float, string) {
	if chunks == 0 || tokens == 0 {
		return nil, ""
	}
	perChunk := float64(tokens) / float64(chunks)
	if perToken {
		return artifact.F(perChunk), ""
	}
	return artifact.F(perChunk), multiTokenNote(perChunk, float64(tokens)/float64(responses))
}

// multiTokenChunks is the mean tokens per chunk from which chunking is worth a note: one
// token per chunk reads 1.0, or a little over when usage counts a token no chunk carried.
const multiTokenChunks = 1.25

// multiTokenNote says how far tpot may read low when chunks carried perChunk tokens on
// average over responses of perResponse tokens, and nothing said how many came with the
// first chunk. tpot divides the generation time by the tokens after the first; if the first
// chunk carried k, only n-k were decoded after it, and tpot reads (k-1)/(n-1) low.
func multiTokenNote(perChunk, perResponse float64) string {
	if perChunk < multiTokenChunks || perResponse <= 1 {
		return ""
	}
	low := 100 * min(perChunk-1, perResponse-1) / (perResponse - 1)
	return fmt.Sprintf("chunks carried %.1f tokens on average and the engine did not say how many came with the first: "+
		"tpot counts them as decoded after it, so it may read up to %.1f%% low; ANVIL_CONTINUOUS_USAGE=true attributes "+
		"tokens to chunks on engines that report usage in every chunk (vLLM)", perChunk, low)
}

// overhead summarizes the client's own cost over the request phase. stampsHeld says that
// no event's stamp can have waited on the client: every read was stamped by the kernel on
// arrival and none carried several chunks; an event lag then delayed no figure.
func (r *run) overhead(wall, cpu time.Duration, waited *time.Duration, stampsHeld bool) artifact.ClientOverhead {
	var dispatch, startLag []float64
	var lag, lagMax, lagSum, busy time.Duration
	events := 0
	for _, o := range r.outcomes {
		if !o.sent.IsZero() {
			dispatch = append(dispatch, float64(o.dispatch)/1e6)
			if !o.ready.IsZero() {
				late := max(0, o.sent.Sub(o.ready))
				startLag = append(startLag, float64(late)/1e6)
				lagSum += late
				busy += late + max(0, o.end.Sub(o.sent))
			}
		}
		lag += o.lag
		lagMax = max(lagMax, o.lagMax)
		events += o.events
	}
	var c artifact.ClientOverhead
	if p := percentiles(dispatch); p != nil {
		c.DispatchDelayP50Ms, c.DispatchDelayMaxMs = artifact.F(float64(p.P50)), artifact.F(float64(p.Max))
	}
	if events > 0 {
		c.EventLagMeanUs = artifact.F(float64(lag) / float64(events) / 1e3)
		c.EventLagMaxUs = artifact.F(float64(lagMax) / 1e3)
	}
	if p := percentiles(startLag); p != nil {
		c.StartLagP99Ms, c.StartLagMaxMs, c.StartLagSamples = artifact.F(float64(p.P99)), artifact.F(float64(p.Max)), p.Samples
	}
	if busy > 0 {
		c.StartLagSharePct = artifact.F(100 * float64(lagSum) / float64(busy))
	}
	c.Cores = usableCores()
	if waited != nil && wall > 0 {
		c.CPUWaitPct = artifact.F(100 * float64(*waited) / (float64(wall) * float64(c.Cores)))
	}
	if cpu > 0 && wall > 0 {
		share := 100 * float64(cpu) / (float64(wall) * float64(c.Cores))
		c.CPUSharePct = artifact.F(share)
		if share > bottleneckCPUShare {
			c.Bottleneck, c.Reason = true, fmt.Sprintf("process CPU at %.0f%% of the %d cores it may use (includes an in-process reference engine)", share, c.Cores)
		}
	}
	if lagMax > bottleneckEventLag && !stampsHeld {
		c.Bottleneck = true
		c.Reason = joinReason(c.Reason, fmt.Sprintf("an event waited %s between its read and the end of its processing", lagMax.Round(time.Microsecond)))
	}
	return c
}

// usableCores is how many cores the process may run on at once: its CPU affinity
// (runtime.NumCPU), at most GOMAXPROCS.
func usableCores() int { return max(1, min(runtime.NumCPU(), runtime.GOMAXPROCS(0))) }

func joinReason(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}
