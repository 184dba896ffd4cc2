package gate

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// imageMarkerTokens is how far an engine's count of an image may lie from the rule's: the
// markers a template puts around an image (Qwen2.5-VL's vision start and end).
const imageMarkerTokens = 4

// imagesByRule checks that the engine counted an image of each planned size as the rule
// configured (image_patch) says, within imageMarkerTokens: an engine that resized, tiled or
// dropped the images served another workload than the plan. Skipped without images, without
// a rule, or when the engine reported no usage to count by.
func imagesByRule() Check {
	return Check{Name: "counts images as the rule says", Kind: KindContext, judge: func(a *artifact.Benchmark) Result {
		var im *artifact.Images
		if a.Extension != nil {
			im = a.Extension.Images
		}
		switch {
		case im == nil:
			return skipped("the run sent no images")
		case im.Patch == 0:
			return skipped(fmt.Sprintf("no rule to hold the engine's count to (image_patch): %s", imageCounts(im)))
		}
		var off, ok []string
		for _, size := range slices.Sorted(maps.Keys(im.RuleTokens)) {
			engine, counted := im.EngineTokens[size]
			rule := im.RuleTokens[size]
			line := fmt.Sprintf("%s: %d tokens, the rule %d", size, engine, rule)
			switch {
			case !counted:
				return skipped(fmt.Sprintf("the engine reported no prompt tokens for the image probe of %s", size))
			case abs(engine-rule) > imageMarkerTokens:
				off = append(off, line)
			default:
				ok = append(ok, line)
			}
		}
		if len(off) > 0 {
			return found(RunFailed, fmt.Sprintf("the engine counted an image otherwise than the rule of %d-pixel patches (%s): it resized, tiled or dropped images, and the run measured another workload than planned",
				im.Patch, strings.Join(off, "; ")))
		}
		return held(fmt.Sprintf("the engine counted each image as %d-pixel patches: %s", im.Patch, strings.Join(ok, "; ")))
	}}
}

// imageCounts says what the engine counted an image of each size.
func imageCounts(im *artifact.Images) string {
	if len(im.EngineTokens) == 0 {
		return "the engine reported no prompt tokens to count an image by"
	}
	var parts []string
	for _, size := range slices.Sorted(maps.Keys(im.EngineTokens)) {
		parts = append(parts, fmt.Sprintf("%s: %d tokens", size, im.EngineTokens[size]))
	}
	return "the engine counted an image of " + strings.Join(parts, "; ")
}

func abs(x int) int { return max(x, -x) }
