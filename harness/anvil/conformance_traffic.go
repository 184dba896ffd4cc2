package anvil

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/gate"
	"github.com/anvilbench/anvilbench/internal/stats"
)

// The conformance of the traffic features: requests the client leaves, images, LoRA
// adapters and priority classes.
const (
	itemStopsLeft  = "stops a request its client leaves"
	itemImages     = "takes images, or refuses them before any request"
	itemAdapters   = "serves the configured LoRA adapters"
	itemPriorities = "honours priorities"
)

// configuredTraffic are the rows the configured scenario's run answers (trafficRows).
var configuredTraffic = []string{itemAdapters, itemPriorities}

// trafficRows records what the configured scenario's run says of its traffic features.
func (c *conformer) trafficRows(b *artifact.Benchmark) {
	GinkgoHelper()
	c.adaptersRow(b)
	c.prioritiesRow(b)
}

// prioritiesRow records whether the engine served the configured scenario's most urgent
// priority class sooner than its least (priorityOrder).
func (c *conformer) prioritiesRow(b *artifact.Benchmark) {
	GinkgoHelper()
	status, detail := priorityOrder(b)
	c.set(itemPriorities, status, detail)
}

// priorityOrder is whether a run's most urgent priority class was served sooner than its
// least: the first's TTFTs below the second's by a one-sided Mann-Whitney test at 5%. An
// engine whose requests never waited for a slot (its waiting gauge at none throughout)
// had nothing to order: n/a; n/a without two classes.
func priorityOrder(b *artifact.Benchmark) (gate.ConformanceStatus, string) {
	classes := b.Extension.Priorities
	if len(classes) < 2 {
		return gate.NotApplicable, "no priority classes configured (ANVIL_PRIORITIES, two at least)"
	}
	first, last := classes[0], classes[0]
	for _, g := range classes {
		if *g.Priority < *first.Priority {
			first = g
		}
		if *g.Priority > *last.Priority {
			last = g
		}
	}
	ttfts := map[string][]float64{}
	for _, s := range b.Extension.Timeline {
		if s.TTFTMs != nil && s.Outcome == "ok" {
			ttfts[s.PriorityClass] = append(ttfts[s.PriorityClass], float64(*s.TTFTMs))
		}
	}
	urgent, patient := ttfts[first.Name], ttfts[last.Name]
	detail := fmt.Sprintf("ttft p50 of %s (priority %d) %s ms over %d, of %s (priority %d) %s ms over %d",
		first.Name, *first.Priority, ms(first.Metrics.TTFT.P50), len(urgent), last.Name, *last.Priority, ms(last.Metrics.TTFT.P50), len(patient))
	_, p := stats.MannWhitneyU(urgent, patient)
	waited := b.Extension.EngineMetrics.WaitingPeak
	switch {
	case p < 0.05:
		return gate.Honoured, fmt.Sprintf("%s: the first sooner (one-sided p %.3f)", detail, p)
	case waited != nil && *waited == 0:
		return gate.NotApplicable, detail + ": no request waited for a slot (its waiting gauge read none), so there was nothing to order"
	}
	return gate.NotHonoured, fmt.Sprintf("%s: the first not sooner (one-sided p %.2f): served first come first served, or too few waited to tell", detail, p)
}

// adaptersRow records whether every configured adapter served its requests in the
// configured scenario; n/a when none is configured.
func (c *conformer) adaptersRow(b *artifact.Benchmark) {
	GinkgoHelper()
	if len(b.Extension.Adapters) == 0 {
		c.set(itemAdapters, gate.NotApplicable, "no adapters configured (ANVIL_ADAPTERS)")
		return
	}
	var parts []string
	served := true
	for _, a := range b.Extension.Adapters {
		parts = append(parts, fmt.Sprintf("%s: %d of %d completed", a.Name, a.Completed, a.Requests))
		served = served && a.Requests > 0 && a.Completed == a.Requests
	}
	c.set(itemAdapters, yesIf(served), strings.Join(parts, "; "))
}

// leaves leaves half of 4 requests after 2 tokens, 2 at a time, and records whether the
// engine stopped them, by its gauges or, without metrics, a probe. The requests ask 64
// words, so a one-slot engine decoding on would hold a probe long enough to tell.
func (c *conformer) leaves(ctx context.Context) {
	GinkgoHelper()
	if c.unserved(itemStopsLeft) {
		return
	}
	sc := c.base.Plain()
	sc.Requests, sc.Concurrency, sc.CancelRate, sc.CancelAfterTokens = 4, 2, 0.5, 2
	sc.ContextTokens, sc.ResponseWords = min(cmp.Or(sc.ContextTokens, 400), 400), 64
	sc.MaxTokens = max(sc.MaxTokens, 2*sc.ResponseWords)
	b := c.runFor(ctx, itemStopsLeft, "left", sc)
	if b == nil {
		return
	}
	cn := b.Extension.Cancellation
	switch {
	case cn == nil || cn.Abandoned == 0:
		c.set(itemStopsLeft, gate.NotApplicable, fmt.Sprintf("no request was left (%d completed, %d failed)", b.Completed, b.Failed))
	case cn.EngineStopped == nil:
		c.set(itemStopsLeft, gate.NotApplicable, fmt.Sprintf("%d left after %d tokens; nothing could tell: %s", cn.Abandoned, cn.AfterTokens, cn.StopSource))
	default:
		c.set(itemStopsLeft, yesIf(*cn.EngineStopped), fmt.Sprintf("%d left after %d tokens: %s", cn.Abandoned, cn.AfterTokens, cn.StopSource))
	}
}

// images sends one 512x512 image with each of 2 requests: a vision model counts it, a text
// model refuses it before any request, naming images; a model that takes it and counts
// nothing ignored it.
func (c *conformer) images(ctx context.Context) {
	GinkgoHelper()
	if c.unserved(itemImages) {
		return
	}
	sc := c.base.Plain()
	sc.Requests, sc.Concurrency, sc.ImagesPerRequest = 2, 2, 1
	sc.ContextTokens = min(cmp.Or(sc.ContextTokens, 400), 400)
	if err := sc.Validate(); err != nil {
		c.set(itemImages, gate.NotApplicable, err.Error())
		return
	}
	b, err := c.run(ctx, "images", sc)
	switch {
	case err != nil && strings.Contains(err.Error(), "does not take images: it accepted"):
		// The run refused it; the engine did not: it took the image and dropped it.
		c.set(itemImages, gate.NotHonoured, "took an image and dropped it, without a word: "+oneLine(err.Error()))
	case err != nil && strings.Contains(err.Error(), "does not take images"):
		c.set(itemImages, gate.Honoured, "refused before any request: "+oneLine(err.Error()))
	case err != nil:
		c.set(itemImages, gate.NotHonoured, "did not start: "+err.Error())
	default:
		n, counted := 0, false
		if im := b.Extension.Images; im != nil {
			n, counted = im.EngineTokens["512x512"]
		}
		detail := fmt.Sprintf("%d of %d requests with an image completed; the engine counts a 512x512 image %d tokens", b.Completed, b.Requests, n)
		if !counted {
			detail = fmt.Sprintf("%d of %d requests with an image completed; the engine reported no prompt tokens to count it by", b.Completed, b.Requests)
		}
		c.set(itemImages, yesIf(counted && n > 0 && b.Failed == 0), detail)
	}
}
