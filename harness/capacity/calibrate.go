package capacity

import (
	"context"
	"errors"
	"math"

	"github.com/anvilbench/anvilbench/harness/capacity/internal/stream"
	"github.com/anvilbench/anvilbench/harness/capacity/internal/workload"
)

// Calibration methods.
const (
	calibrationTokenize = "tokenize"    // the server's /tokenize counted two probe prompts
	calibrationUsage    = "usage-probe" // two one-token requests reported usage.prompt_tokens
	calibrationNone     = "none"        // the fixed estimate of characters per token
)

// calibration is how prompts were sized (see artifact.calibration).
type calibration struct {
	Method                        string
	CharsPerToken, OverheadTokens float64
	// Fitted maps a planned size to the size its prompts are built for, so the server counts
	// the plan (see fitSizes); nil when prompts are built from the linear fit alone.
	Fitted map[int]int
	// Note says why a calibration fell back to the estimate.
	Note string
}

// probeIndex numbers the probe prompts apart from every request of a run, so a usage probe
// cannot warm the prefix cache for them.
const probeIndex = 990_000

// calibrate fits characters per token and the per-prompt overhead from two probe prompts:
// a small one and one near the largest planned size. /tokenize is preferred (it runs no
// model); otherwise each probe is a one-token request whose usage gives its prompt tokens.
// On any failure the estimate stays and the note says why.
func calibrate(ctx context.Context, client *stream.Client, sc Scenario, p workload.Prompts, largest int) calibration {
	fallback := calibration{Method: calibrationNone, CharsPerToken: p.CharsPerToken}
	sizes := [2]int{512, min(max(largest, 2048), 16384)}
	var chars, tokens [2]float64
	method := calibrationTokenize
	if sc.Output == OutputTool {
		// The tools' definitions are prompt tokens /tokenize of the prompt alone misses.
		method = calibrationUsage
	}
	for k, size := range sizes {
		prompt, err := p.Prompt(probeIndex+k, size)
		if err != nil {
			fallback.Note = err.Error()
			return fallback
		}
		var n int
		if method == calibrationTokenize {
			n, err = client.Tokenize(ctx, sc.Model, prompt, sc.API.supports().Conversation)
			if err != nil && k == 0 {
				method = calibrationUsage
			}
		}
		if method == calibrationUsage {
			n, err = usageProbe(ctx, client, sc, prompt)
		}
		if err != nil {
			fallback.Note = method + ": " + err.Error()
			return fallback
		}
		chars[k], tokens[k] = float64(len(prompt)), float64(n)
	}
	slope := (tokens[1] - tokens[0]) / (chars[1] - chars[0])
	if !(slope > 0) || math.IsInf(slope, 0) {
		fallback.Note = "probe token counts do not grow with prompt size"
		return fallback
	}
	return calibration{Method: method, CharsPerToken: 1 / slope, OverheadTokens: tokens[0] - chars[0]*slope}
}

var errNoUsage = errors.New("the response carried no usage.prompt_tokens")

// usageProbe sends prompt for one token and returns the prompt tokens the server counted.
func usageProbe(ctx context.Context, client *stream.Client, sc Scenario, prompt string) (int, error) {
	req := sc.request(prompt)
	req.MaxTokens = sc.API.supports().ProbeTokens
	body, err := req.Body()
	if err != nil {
		return 0, err
	}
	res, err := client.Stream(ctx, req.API, body, req.MaxTokens)
	if err != nil {
		return 0, err
	}
	if res.Usage == nil || res.Usage.PromptTokens == nil {
		return 0, errNoUsage
	}
	return *res.Usage.PromptTokens, nil
}

// maxFittedSizes bounds fitSizes to a few calls of /tokenize per distinct planned size.
const maxFittedSizes = 64

// fitSizes counts, with /tokenize, one prompt of each planned size the run sends and finds
// the size to build it for so that the server counts the plan. The linear fit is a few
// tokens off where the filler's cut splits a token (on a byte-level BPE, 3 of 1,500), and
// every request of a size has the same filler (Prompts.IndexWidth), so one count per size
// holds for all of them. It returns nil, and the fit alone sizes the prompts, when there
// are too many sizes or a count fails.
func fitSizes(ctx context.Context, client *stream.Client, sc Scenario, p workload.Prompts, plan, indices []int) map[int]int {
	first := map[int]int{} // planned size -> the first index planned at it
	for _, i := range indices {
		if _, seen := first[plan[i]]; !seen {
			first[plan[i]] = i
		}
	}
	if len(first) > maxFittedSizes {
		return nil
	}
	fitted := make(map[int]int, len(first))
	for size, i := range first {
		build, best, bestOff := size, size, math.MaxInt
		for range 3 {
			prompt, err := p.Prompt(i, build)
			if err != nil {
				break
			}
			n, err := client.Tokenize(ctx, sc.Model, prompt, sc.API.supports().Conversation)
			if err != nil {
				return nil
			}
			off := n - size
			if abs(off) < abs(bestOff) {
				best, bestOff = build, off
			}
			if off == 0 {
				break
			}
			build -= off
		}
		fitted[size] = best
	}
	return fitted
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
