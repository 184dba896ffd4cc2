package refengine

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anvilbench/anvilbench/internal/busy"
)

// TestTiming: what a plain client read loop measures agrees with the engine's own flush
// stamps (the first chunk and the last, from the send), and the engine keeps its schedule:
// no chunk before it is due, since a sleep cannot end before its deadline, and on time
// where the machine is quiet enough to say so. The agreement is the claim that must hold on a busy machine;
// how late the engine ran is the machine's, and judged only when a probe of the machine's
// own sleeps says it keeps time. Not parallel: it measures.
func TestTiming(t *testing.T) {
	const (
		ttft = 200 * time.Millisecond
		itl  = 5 * time.Millisecond
	)
	s := start(t, Options{PrefillOverhead: ttft, ITL: itl})
	machine := busy.Now()
	var late []string
	for run := range 3 {
		sent := time.Now()
		got := stream(t, s, chatBody(32, true, true, nil))
		tr := s.Traces()[run]
		if len(got.times) != 33 || len(tr.ChunkTimes) != 33 {
			t.Fatalf("chunks: client %d server %d", len(got.times), len(tr.ChunkTimes))
		}
		// The client's read can only follow the flush; how far it trails is its own cost
		// (a loopback read, a wake-up): a millisecond, or a scheduler's slice when busy.
		for _, c := range []struct {
			what            string
			client, flushed time.Time
		}{{"first chunk", got.times[0], tr.ChunkTimes[0]}, {"last chunk", got.times[32], tr.ChunkTimes[32]}} {
			trail := c.client.Sub(c.flushed)
			if trail < -100*time.Microsecond || trail > machine.Slack() {
				t.Errorf("run %d: the client read the %s %v after the engine flushed it, want within [0, %v] (machine: %s)",
					run, c.what, trail, machine.Slack(), machine)
			}
		}
		serverTTFT := tr.FirstToken.Sub(tr.Admitted)
		serverITL := tr.ChunkTimes[32].Sub(tr.ChunkTimes[0]) / 32
		// Its schedule is absolute (a late chunk does not push the next ones later): chunk k
		// is due at admission + ttft + k·itl, and no chunk is flushed before it is due.
		for k, at := range tr.ChunkTimes {
			if due := tr.Admitted.Add(ttft + time.Duration(k)*itl); at.Before(due.Add(-100 * time.Microsecond)) {
				t.Errorf("run %d: chunk %d flushed %v before it was due", run, k, due.Sub(at))
				break
			}
		}
		if relErr(serverTTFT, ttft) > 0.10 || relErr(serverITL, itl) > 0.05 {
			late = append(late, fmt.Sprintf("run %d: server ttft %v (want %v ±10%%), mean itl %v (want %v ±5%%)", run, serverTTFT, ttft, serverITL, itl))
		}
		t.Logf("run %d: client ttft %v, server ttft %v, server mean itl %v (machine: %s)", run, got.times[0].Sub(sent), serverTTFT, serverITL, machine)
	}
	// Late on a machine that kept time before and after: the engine's own fault.
	if after := busy.Now(); len(late) > 0 && machine.KeepsTime() && after.KeepsTime() {
		t.Errorf("the engine ran late on a quiet machine (%s; after: %s):\n%s", machine, after, strings.Join(late, "\n"))
	} else if len(late) > 0 {
		t.Logf("the engine ran late, not judged: the machine's own sleeps were late (%s; after: %s):\n%s", machine, after, strings.Join(late, "\n"))
	}
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
