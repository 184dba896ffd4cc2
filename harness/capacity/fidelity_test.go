package capacity

import (
	"strings"
	"testing"
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
