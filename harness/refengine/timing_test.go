package refengine

import (
	"context"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestTiming checks what a client can measure against the configured timing, from both the
// server's traces and a plain client read loop. Not parallel: it measures.
func TestTiming(t *testing.T) {
	const (
		ttft = 200 * time.Millisecond
		itl  = 5 * time.Millisecond
	)
	s := start(t, Options{PrefillOverhead: ttft, ITL: itl})
	var worstTTFT, worstITL float64
	for run := range 3 {
		sent := time.Now()
		got := stream(t, s, chatBody(32, true, true, nil))
		tr := s.Traces()[run]
		if len(got.times) != 33 || len(tr.ChunkTimes) != 33 {
			t.Fatalf("chunks: client %d server %d", len(got.times), len(tr.ChunkTimes))
		}
		checks := []struct {
			what      string
			got, want time.Duration
			tol       float64
		}{
			{"client ttft", got.times[0].Sub(sent), ttft, 0.10},
			{"server ttft", tr.FirstToken.Sub(tr.Admitted), ttft, 0.10},
			{"client mean itl", got.times[32].Sub(got.times[0]) / 32, itl, 0.05},
			{"server mean itl", tr.ChunkTimes[32].Sub(tr.ChunkTimes[0]) / 32, itl, 0.05},
		}
		for _, c := range checks {
			e := relErr(c.got, c.want)
			if e > c.tol {
				t.Errorf("run %d: %s = %v, want %v ±%.0f%%", run, c.what, c.got, c.want, c.tol*100)
			}
			if c.want == ttft {
				worstTTFT = max(worstTTFT, e)
			} else {
				worstITL = max(worstITL, e)
			}
		}
		var worstGap time.Duration
		for i := 1; i < 33; i++ {
			g := tr.ChunkTimes[i].Sub(tr.ChunkTimes[i-1]) - itl
			worstGap = max(worstGap, g, -g)
		}
		t.Logf("run %d: client ttft %v, server ttft %v, client mean itl %v, server mean itl %v, worst single gap error %v",
			run, checks[0].got, checks[1].got, checks[2].got, checks[3].got, worstGap)
	}
	t.Logf("worst relative error: ttft %.2f%%, mean itl %.2f%%", worstTTFT*100, worstITL*100)
}

// TestPrefillLane: two prompts prefilling at once share the compute lane, so the second
// waits for the first's compute (not for its overhead).
func TestPrefillLane(t *testing.T) {
	const rate = 2000.0 // tokens/s
	s := start(t, Options{PrefillOverhead: 10 * time.Millisecond, ITL: time.Millisecond, PrefillRate: rate})
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() { stream(t, s, chatBody(2, true, true, nil)) })
	}
	wg.Wait()
	tr := s.Traces()
	compute := prefillCompute(tr[0].PromptTokens, rate)
	ttfts := []time.Duration{tr[0].FirstToken.Sub(tr[0].Admitted), tr[1].FirstToken.Sub(tr[1].Admitted)}
	slices.Sort(ttfts)
	if want := compute + 10*time.Millisecond; relErr(ttfts[0], want) > 0.2 {
		t.Errorf("first ttft %v, want %v", ttfts[0], want)
	}
	if want := 2*compute + 10*time.Millisecond; relErr(ttfts[1], want) > 0.2 {
		t.Errorf("second ttft %v, want %v (queued behind the first prefill)", ttfts[1], want)
	}
	t.Logf("prompt %d tokens, compute %v, ttfts %v", tr[0].PromptTokens, compute, ttfts)
}

// TestBatchSlowdown: with BatchSlowdown 1, two concurrent decodes step at 2*ITL.
func TestBatchSlowdown(t *testing.T) {
	const itl = 4 * time.Millisecond
	s := start(t, Options{PrefillOverhead: 5 * time.Millisecond, ITL: itl, BatchSlowdown: 1})
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() { stream(t, s, chatBody(20, true, false, nil)) })
	}
	wg.Wait()
	for _, tr := range s.Traces() {
		ct := tr.ChunkTimes
		// The last steps may run alone once the other request finished: look at the first 15.
		if gap := ct[15].Sub(ct[0]) / 15; relErr(gap, 2*itl) > 0.1 {
			t.Errorf("request %d: mean step %v, want %v", tr.Index, gap, 2*itl)
		}
	}
}

// TestMaxBatch: with two slots, the third and fourth requests are admitted only when the
// first two finish, each as soon as a slot frees.
func TestMaxBatch(t *testing.T) {
	t.Parallel()
	s := start(t, Options{PrefillOverhead: 20 * time.Millisecond, ITL: time.Millisecond, MaxBatch: 2})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			resp := post(t, context.Background(), s.BaseURL()+"/chat/completions", chatBody(20, true, true, nil))
			defer resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("status %d", resp.StatusCode)
			}
			readEvents(t, resp.Body)
		})
	}
	wg.Wait()
	tr := s.Traces()
	slices.SortFunc(tr, func(a, b RequestTrace) int { return a.Admitted.Compare(b.Admitted) })
	first := []time.Time{tr[0].Finished, tr[1].Finished}
	slices.SortFunc(first, time.Time.Compare)
	for k, late := range tr[2:] {
		if late.Admitted.Before(first[k]) {
			t.Errorf("request %d admitted at +%v, before slot %d freed at +%v", late.Index,
				late.Admitted.Sub(tr[0].Arrived), k, first[k].Sub(tr[0].Arrived))
		}
		if late.Admitted.Sub(first[k]) > 50*time.Millisecond {
			t.Errorf("request %d admitted %v after a slot freed", late.Index, late.Admitted.Sub(first[k]))
		}
	}
	if tr[0].Admitted.Sub(tr[0].Arrived) > 50*time.Millisecond || tr[1].Admitted.Sub(tr[1].Arrived) > 50*time.Millisecond {
		t.Errorf("first two waited for admission")
	}
}
