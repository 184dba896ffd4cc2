package capacity

import (
	"strings"
	"testing"
	"time"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// The note's bound is (k-1)/(n-1): a first chunk of k tokens counted as decoded after it.
func TestMultiTokenNoteBoundsHowLowTPOTReads(t *testing.T) {
	t.Parallel()
	cases := []struct {
		perChunk, perResponse float64
		want                  string // "" for no note
	}{
		{1.0, 64, ""},
		{1.02, 64, ""}, // usage counted a token no chunk carried
		{4, 64, "chunks carried 4.0 tokens on average and the engine did not say how many came with the first: tpot counts them as decoded after it, so it may read up to 4.8% low"},
		{2.5, 32, "may read up to 4.8% low"},
		{8, 4, "may read up to 100.0% low"}, // one chunk held the whole answer
		{4, 1, ""},                          // a one-token answer has no tpot
	}
	for _, c := range cases {
		got := multiTokenNote(c.perChunk, c.perResponse)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("multiTokenNote(%v, %v) = %q, want %q", c.perChunk, c.perResponse, got, c.want)
		}
	}
}

// Two chunks one read delivered share its stamp: the pooled gap is 0 and the summary counts
// it, per chunk gap whatever the basis, and only over successes.
func TestITLCountsGapsInsideOneRead(t *testing.T) {
	t.Parallel()
	ms := func(v ...int) []time.Duration {
		out := make([]time.Duration, len(v))
		for i, x := range v {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	row := &artifact.RequestTiming{}
	perChunk := run{outcomes: []outcome{
		{row: row, arrivals: ms(10, 15, 15, 20)},
		{row: row, arrivals: ms(10, 10, 10)},
		{arrivals: ms(10, 10)}, // a failure: not pooled
	}}
	got := perChunk.itl()
	if got.Samples != 5 || got.SharedReadGaps != 3 || got.P50Ms == nil || *got.P50Ms != 0 {
		t.Errorf("per chunk: %d samples, %d shared, p50 %v; want 5, 3, 0", got.Samples, got.SharedReadGaps, got.P50Ms)
	}
	// A shared gap before a 3-token chunk gives three samples of 0, and counts once.
	perToken := run{outcomes: []outcome{
		{row: row, arrivals: ms(10, 14, 14), arrivalTokens: []int{1, 2, 5}},
	}}
	got = perToken.itl()
	if got.Basis != artifact.ITLPerToken || got.Samples != 4 || got.SharedReadGaps != 1 {
		t.Errorf("per token: basis %s, %d samples, %d shared; want %s, 4, 1", got.Basis, got.Samples, got.SharedReadGaps, artifact.ITLPerToken)
	}
}

// An event the client was slow to process delays the stamps after it only when they are
// taken after the read returns (user-space), or when chunks waiting meanwhile were merged
// into one read; kernel stamps of single-chunk reads were taken on arrival.
func TestAnEventLagIsABottleneckOnlyWhereItCanDelayAStamp(t *testing.T) {
	t.Parallel()
	r := &run{outcomes: []outcome{
		{lag: 5 * time.Millisecond, lagMax: 5 * time.Millisecond, events: 10},
		{lag: 10 * time.Microsecond, lagMax: 10 * time.Microsecond, events: 10},
	}}
	held := r.overhead(time.Second, 10*time.Millisecond, nil, true)
	if held.Bottleneck || held.Reason != "" {
		t.Errorf("stamps held: bottleneck %v (%q), want none", held.Bottleneck, held.Reason)
	}
	if held.EventLagMaxUs == nil || float64(*held.EventLagMaxUs) != 5000 {
		t.Errorf("event lag max = %v, want 5000 µs recorded all the same", held.EventLagMaxUs)
	}
	moved := r.overhead(time.Second, 10*time.Millisecond, nil, false)
	if !moved.Bottleneck || !strings.Contains(moved.Reason, "an event waited 5ms") {
		t.Errorf("stamps not held: bottleneck %v (%q), want the 5 ms event named", moved.Bottleneck, moved.Reason)
	}
}
