package capacity

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// Interleaving names the baseline build an interleaved run alternates with.
type Interleaving struct {
	// Baseline is the baseline build's endpoint.
	Baseline Target
	// Model is the baseline's model; empty sends the scenario's (or takes the one the
	// baseline serves, when the scenario names none).
	Model string
}

// RunInterleaved runs the scenario against the endpoint under test and a baseline build in
// one measured phase, alternating their blocks in ABBA order (A the baseline): block p of
// each, the scenario's requests under a nonce of its own on each engine, for the
// scenario's Repeats pairs. Each engine is prepared (model, window, calibration) and warmed
// on its own first. What moves with time (drift, the host's other work, the GPU's clocks)
// falls on both alike, and a linear drift cancels between the pairs, so a comparison of
// the two needs no allowance for it: this is how a pull request is gated on one machine,
// main's build beside the branch's. It returns each engine's artifact, both marked
// (anvilbench.interleaved) with their roles, a shared pairing and the blocks' sequence.
func RunInterleaved(ctx context.Context, target Target, sc Scenario, with Interleaving) (current, baseline *artifact.Benchmark, err error) {
	if err := errors.Join(target.Validate(), with.Baseline.Validate(), sc.Validate()); err != nil {
		return nil, nil, fmt.Errorf("invalid scenario %q: %w", sc.Name, err)
	}
	if sc.Shard.sharded() {
		return nil, nil, fmt.Errorf("invalid scenario %q: an interleaved run is not sharded: its blocks alternate on one client", sc.Name)
	}
	sc = sc.withDefaults()
	base := sc
	base.Name = sc.Name + " baseline" // its progress lines say which engine
	if with.Model != "" {
		base.Model = with.Model
	}
	targets := [2]Target{with.Baseline.withDefaults(), target.withDefaults()}
	runs := [2]*run{newRun(base, targets[0]), newRun(sc, targets[1])}
	for _, r := range runs {
		defer r.client.Close()
	}
	for i, r := range runs {
		if err := r.prepare(ctx); err != nil {
			return nil, nil, fmt.Errorf("the %s: %w", roleNames[i], err)
		}
	}
	warm := [2]warmed{runs[0].begin(ctx, targets[0]), runs[1].begin(ctx, targets[1])}
	c := startCounting()
	seq, err := interleave(ctx, runs)
	cost := c.stop()
	if err != nil {
		warm[0].watch()
		warm[1].watch()
		return nil, nil, err
	}
	var out [2]*artifact.Benchmark
	for i, r := range runs {
		out[i] = r.finish(ctx, targets[i], warm[i], cost, r.blocks[0].started, r.blocks[len(r.blocks)-1].finished)
		out[i].Extension.Scenario = sc.Name
	}
	mark(out, seq, runs[1].nonce+"-"+runs[0].nonce)
	return out[1], out[0], nil
}

// roles and roleNames of RunInterleaved's two runs, the baseline first.
var (
	roles     = [2]string{artifact.RoleBaseline, artifact.RoleCurrent}
	roleNames = [2]string{"baseline build", "endpoint under test"}
)

// interleave runs the two runs' blocks in ABBA order and returns the sequence they ran in.
func interleave(ctx context.Context, runs [2]*run) ([]artifact.InterleavedBlock, error) {
	var seq []artifact.InterleavedBlock
	for p := range runs[1].sc.Repeats {
		order := [2]int{0, 1}
		if p%2 == 1 {
			order = [2]int{1, 0}
		}
		for _, i := range order {
			r := runs[i]
			if err := r.prepareBlock(ctx, p); err != nil {
				return nil, fmt.Errorf("the %s: %w", roleNames[i], err)
			}
			if p == 0 {
				defer r.progress.start(r.sc, r.sc.Repeats*len(r.indices))()
			}
			r.runBlock(ctx)
			bl := r.blocks[len(r.blocks)-1]
			seq = append(seq, artifact.InterleavedBlock{Role: roles[i], Block: p,
				StartedAtUnixNs: bl.started.UnixNano(), FinishedAtUnixNs: bl.finished.UnixNano()})
		}
	}
	return seq, nil
}

// mark records the interleaving in both artifacts, the baseline's first.
func mark(out [2]*artifact.Benchmark, seq []artifact.InterleavedBlock, pairing string) {
	var order strings.Builder
	for _, b := range seq {
		if b.Role == artifact.RoleBaseline {
			order.WriteByte('A')
		} else {
			order.WriteByte('B')
		}
	}
	for i, b := range out {
		partner := out[1-i]
		b.Extension.Interleaved = &artifact.Interleaved{Role: roles[i], Pairing: pairing, Order: order.String(),
			PartnerBaseURL: partner.BaseURL, PartnerModel: partner.Model, Sequence: seq}
	}
}
