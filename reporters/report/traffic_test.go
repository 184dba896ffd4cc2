package report

import (
	"strings"
	"testing"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// The report says what went beside the text: the images and the engine's count of them, and
// each adapter's and priority class's share and figures.
func TestTheReportShowsImagesAdaptersAndPriorityClasses(t *testing.T) {
	x := &artifact.Extension{
		Images: &artifact.Images{PerRequest: 2, Sizes: "512x512", Format: "png", Sent: 16, Distinct: 16, Patch: 28,
			EngineTokens: map[string]int{"512x512": 361}, RuleTokens: map[string]int{"512x512": 361}},
	}
	x.Adapters = []artifact.Group{
		{Name: "lora-a", Weight: 3, Share: 0.75, Requests: 30, Completed: 30, Metrics: artifact.Metrics{TPOT: artifact.Distribution{P50: artifact.F(2)}}},
		{Name: "lora-b", Weight: 1, Share: 0.25, Requests: 10, Completed: 9, Failed: 1, Metrics: artifact.Metrics{TPOT: artifact.Distribution{P50: artifact.F(3)}}},
	}
	x.Priorities = []artifact.Group{{Name: "interactive", Weight: 1, Priority: new(0), Share: 0.25, Requests: 20, Completed: 20,
		Metrics: artifact.Metrics{TTFT: artifact.Distribution{P95: artifact.F(101)}}}}
	var got []string
	for _, f := range trafficFields(x) {
		got = append(got, f.Label+": "+f.Value)
	}
	text := strings.Join(got, "\n")
	for _, want := range []string{
		"images: 2 per request of 512x512 (png), 16 sent, 16 distinct; the engine counts a 512x512 image 361 tokens (the rule of 28-pixel patches: 361)",
		"adapter lora-a: 30 requests (75% of them planned), 30 completed, 0 failed; tpot p50 2",
		"adapter lora-b: 10 requests (25% of them planned), 9 completed, 1 failed; tpot p50 3",
		"priority class interactive: priority 0; 20 requests (25% of them planned), 20 completed, 0 failed; ttft p95 101",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the report holds\n%s\nwant %q", text, want)
		}
	}
}
