package refengine

import (
	"context"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"
)

// TestManyConcurrentStreams: hundreds of streams at once on a small machine, client in the
// same process. Server-side decode steps must stay close to the configured ITL.
// Not parallel: it measures.
func TestManyConcurrentStreams(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	const (
		streams = 300
		words   = 100
		itl     = 5 * time.Millisecond
	)
	s := start(t, Options{PrefillOverhead: 50 * time.Millisecond, ITL: itl})
	tr := &http.Transport{MaxIdleConnsPerHost: streams, MaxConnsPerHost: 0}
	client := &http.Client{Transport: tr}
	defer tr.CloseIdleConnections()
	body := chatBody(words, true, true, nil)
	var wg sync.WaitGroup
	began := time.Now()
	for range streams {
		wg.Go(func() {
			resp, err := client.Do(newPost(t, context.Background(), s.BaseURL()+"/chat/completions", body))
			if err != nil {
				t.Errorf("POST: %v", err)
				return
			}
			defer resp.Body.Close()
			_, _ = io.Copy(io.Discard, resp.Body)
		})
	}
	wg.Wait()
	elapsed := time.Since(began)
	var sumGap, worstMean time.Duration
	var sumTTFT time.Duration
	n := 0
	for _, r := range s.Traces() {
		if r.FinishReason != "stop" || len(r.ChunkTimes) != words+1 {
			t.Fatalf("request %d: finish %q, %d chunks", r.Index, r.FinishReason, len(r.ChunkTimes))
		}
		mean := r.ChunkTimes[words].Sub(r.ChunkTimes[0]) / words
		sumGap += mean
		worstMean = max(worstMean, mean)
		sumTTFT += r.FirstToken.Sub(r.Admitted)
		n++
	}
	meanGap := sumGap / time.Duration(n)
	t.Logf("%d streams x %d tokens in %v: mean ttft %v (want 50ms), mean itl %v, worst request mean itl %v (want %v)",
		n, words+1, elapsed, sumTTFT/time.Duration(n), meanGap, worstMean, itl)
	if relErr(meanGap, itl) > 0.25 {
		t.Errorf("mean itl %v under load, want %v ±25%%", meanGap, itl)
	}
}
