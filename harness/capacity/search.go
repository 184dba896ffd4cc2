package capacity

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/budget"
)

// Search asks for the highest load a scenario's budgets hold at (its SLO): over
// concurrency (a closed loop) or request rate (an open loop), up to Max. Written
// "concurrency:64" (ANVIL_SEARCH) or, in a scenarios file, {"over": "concurrency", "max": 64}.
// The zero Search is a run at the scenario's own load.
type Search struct {
	Over string
	Max  float64
}

// On reports whether a search is asked for.
func (s Search) On() bool { return s.Over != "" }

// String writes s as UnmarshalText reads it; "" when off.
func (s Search) String() string {
	if !s.On() {
		return ""
	}
	return s.Over + ":" + strconv.FormatFloat(s.Max, 'g', -1, 64)
}

// MarshalText writes s as String does.
func (s Search) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads "concurrency:64" or "request_rate:40"; "" is no search.
func (s *Search) UnmarshalText(text []byte) error {
	*s = Search{}
	t := strings.TrimSpace(string(text))
	if t == "" {
		return nil
	}
	over, limit, ok := strings.Cut(t, ":")
	v, err := strconv.ParseFloat(strings.TrimSpace(limit), 64)
	if !ok || err != nil {
		return fmt.Errorf("want over:max, e.g. concurrency:64 or request_rate:40, got %q", t)
	}
	*s = Search{Over: strings.TrimSpace(over), Max: v}
	return s.check()
}

// UnmarshalJSON reads the text form or {"over": "concurrency", "max": 64}.
func (s *Search) UnmarshalJSON(data []byte) error {
	if bytes.HasPrefix(bytes.TrimSpace(data), []byte(`"`)) {
		var text string
		if err := json.Unmarshal(data, &text); err != nil {
			return err
		}
		return s.UnmarshalText([]byte(text))
	}
	var o struct {
		Over string  `json:"over"`
		Max  float64 `json:"max"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		return fmt.Errorf(`want {"over": "concurrency" or "request_rate", "max": a number}: %w`, err)
	}
	*s = Search{Over: o.Over, Max: o.Max}
	return s.check()
}

// check refuses an unknown load or a bound out of its range.
func (s Search) check() error {
	switch s.Over {
	case searchConcurrency:
		if s.Max < 1 || s.Max > 1024 || s.Max != math.Trunc(s.Max) {
			return fmt.Errorf("a search over concurrency wants a whole max in [1,1024], got %g", s.Max)
		}
	case searchRequestRate:
		if !(s.Max > 0 && s.Max <= 100000) {
			return fmt.Errorf("a search over request_rate wants a max in (0,100000] per second, got %g", s.Max)
		}
	default:
		return fmt.Errorf("a search goes over %q or %q, not %q", searchConcurrency, searchRequestRate, s.Over)
	}
	return nil
}

// searchProblems: a search sets the load of independent requests, in one block, on one
// client.
func (sc Scenario) searchProblems(k kind) []error {
	if !sc.Search.On() {
		return nil
	}
	var errs []error
	add := problemsInto(&errs)
	if err := sc.Search.check(); err != nil {
		add("Search", sc.Search.String(), err.Error())
	}
	independentOnly(k, add, "Search", sc.Search.String(), "a trace keeps its own times and a session its turns")
	if sc.Shard.sharded() {
		add("Search", sc.Search.String(), "a search runs on one client: its probes are not sharded")
	}
	if sc.Burst > 0 {
		add("Search", sc.Search.String(), "sets the load itself: unset %s", "Burst")
	}
	return errs
}

// Loads a search goes over, and a probe's verdicts (artifact.SearchProbe).
const (
	searchConcurrency = "concurrency"
	searchRequestRate = "request_rate"
	searchHeld        = "held"
	searchBroke       = "broke"
	searchUnresolved  = "unresolved"
	searchInterrupted = "interrupted"
)

// searchAttempts is how many runs a load gets, each with twice the requests of the one
// before, until its verdict resolves.
const searchAttempts = 3

// searchRatePrecision is how close a rate search brackets its capacity: the broken load
// at most 10% above the held one.
const searchRatePrecision = 1.10

// SearchCapacity searches the highest load within slo, the budgets a load must hold (every
// one, with no failed request; a budget on the capacity itself is no part of it): the load doubles from its
// lowest (concurrency 1; a rate of Max/32) until a probe breaks, then the bracket is
// bisected (to one request in flight; to 10% of a rate). A probe holds when every SLO
// budget holds at the upper end of its figure's 95% interval (for a budget that bounds
// from above), breaks when one fails at the lower end, and is run again with twice the
// requests while neither: after three runs it is decided by its point figures and
// counted unresolved. A search that stops early (interrupted, or a probe that could not
// start) returns what it found with the error, the search saying why it stopped. It returns
// the engine's run at its capacity (at the lowest load when
// none held) carrying the search (artifact.Search), and the baseline build's likewise (nil
// without one). With a baseline build, each load is probed on both, the order alternating
// from load to load, so that what drifts with time falls on both.
func SearchCapacity(ctx context.Context, target Target, base Scenario, search Search, slo []budget.Budget, with *Interleaving) (current, baseline *artifact.Benchmark, err error) {
	return searchWith(ctx, target, base, search, slo, with, Run)
}

// searchWith is SearchCapacity with each probe run by runAt: Run, or a simulation.
func searchWith(ctx context.Context, target Target, base Scenario, search Search, slo []budget.Budget, with *Interleaving,
	runAt func(context.Context, Target, Scenario) (*artifact.Benchmark, error)) (current, baseline *artifact.Benchmark, err error) {
	if err := search.check(); err != nil {
		return nil, nil, fmt.Errorf("invalid search of scenario %q: %w", base.Name, err)
	}
	slo = slices.DeleteFunc(slices.Clone(slo), func(b budget.Budget) bool { return strings.HasPrefix(b.Metric, "capacity_") })
	if len(slo) == 0 {
		return nil, nil, fmt.Errorf("invalid search of scenario %q: no budget to hold the load to (a search needs an SLO, e.g. ttft_p95_ms<=200)", base.Name)
	}
	s := &searcher{ctx: ctx, runAt: runAt, search: search, slo: slo, base: base.withDefaults()}
	s.sides = []*searchSide{{target: target, sc: s.base}}
	if with != nil {
		bsc := s.base
		bsc.Model = cmp.Or(with.Model, bsc.Model)
		s.sides = append(s.sides, &searchSide{target: with.Baseline, sc: bsc, baseline: true})
	}
	s.result = artifact.Search{Over: search.Over, Max: artifact.Float(search.Max)}
	for _, b := range slo {
		s.result.SLO = append(s.result.SLO, b.String())
	}
	if err := s.run(); err != nil {
		// What was probed is kept: the artifact says the search stopped, and why.
		s.result.Stopped = err.Error()
		if current, baseline, ferr := s.finish(); ferr == nil {
			return current, baseline, err
		}
		return nil, nil, err
	}
	return s.finish()
}

type searcher struct {
	ctx    context.Context
	runAt  func(context.Context, Target, Scenario) (*artifact.Benchmark, error)
	search Search
	slo    []budget.Budget
	base   Scenario
	sides  []*searchSide
	result artifact.Search
	probes int
}

// searchSide is one engine's search: its bracket and the runs kept for the result.
type searchSide struct {
	target   Target
	sc       Scenario
	baseline bool
	held     float64 // highest load held, 0 none
	broke    float64 // lowest load broken, 0 none
	atHeld   *artifact.Benchmark
	atLowest *artifact.Benchmark
	lowest   float64
	out      artifact.SearchSide
}

func (s *searcher) run() error {
	load := s.lowest()
	for {
		var open []*searchSide
		for _, side := range s.sides {
			if side.broke == 0 {
				open = append(open, side)
			}
		}
		if len(open) == 0 {
			break
		}
		if err := s.probe(load, open); err != nil {
			return err
		}
		if load >= s.search.Max {
			break
		}
		load = min(load*2, s.search.Max)
	}
	for {
		mid, sides := s.nextBisection()
		if sides == nil {
			return nil
		}
		if err := s.probe(mid, sides); err != nil {
			return err
		}
	}
}

// lowest is the first load probed.
func (s *searcher) lowest() float64 {
	if s.search.Over == searchConcurrency {
		return 1
	}
	return s.search.Max / 32
}

// nextBisection is the next load to probe and the sides whose bracket it lies in; nil when
// every bracket is resolved. A load inside two sides' brackets is probed on both.
func (s *searcher) nextBisection() (float64, []*searchSide) {
	for _, side := range s.sides {
		if side.broke == 0 || !s.open(side.held, side.broke) {
			continue
		}
		mid := (side.held + side.broke) / 2
		if s.search.Over == searchConcurrency {
			mid = math.Floor(mid)
		}
		if side.held == 0 && s.search.Over == searchRequestRate {
			mid = side.broke / 2
		}
		var in []*searchSide
		for _, other := range s.sides {
			if other.broke != 0 && other.held < mid && mid < other.broke {
				in = append(in, other)
			}
		}
		return mid, in
	}
	return 0, nil
}

// open reports whether a bracket is still worth bisecting.
func (s *searcher) open(held, broke float64) bool {
	if s.search.Over == searchConcurrency {
		return broke-held > 1
	}
	return held == 0 && broke > s.lowest()/8 || held > 0 && broke/held > searchRatePrecision
}

// probe runs load on each side, alternating which goes first, until each verdict resolves.
func (s *searcher) probe(load float64, sides []*searchSide) error {
	if s.probes%2 == 1 {
		sides = slices.Clone(sides)
		slices.Reverse(sides)
	}
	s.probes++
	for _, side := range sides {
		if err := s.probeSide(load, side); err != nil {
			return err
		}
	}
	return nil
}

func (s *searcher) probeSide(load float64, side *searchSide) error {
	requests := s.requests(load)
	for attempt := 1; ; attempt++ {
		sc := side.sc
		sc.Repeats, sc.Burst = 1, 0
		if s.search.Over == searchConcurrency {
			sc.Concurrency, sc.RequestRate = int(load), 0
		} else {
			sc.RequestRate = load
			sc.Concurrency = max(sc.Concurrency, int(math.Ceil(load)))
		}
		sc.Requests = requests
		sc.Name = fmt.Sprintf("%s-%s%g", s.base.Name, map[bool]string{true: "baseline-", false: ""}[side.baseline], load)
		run, err := s.runAt(s.ctx, side.target, sc)
		if err != nil {
			return fmt.Errorf("search probe at %s %g: %w", s.search.Over, load, err)
		}
		p, brokeBy := s.judge(run, load, attempt)
		s.result.Requests += run.Requests
		if err := s.ctx.Err(); err != nil {
			// An interrupted probe is recorded and judges nothing: its requests were cut.
			p.Verdict, p.Decided = searchInterrupted, searchInterrupted
			side.out.Probes = append(side.out.Probes, p)
			if side.atLowest == nil {
				side.atLowest, side.lowest = run, load // its rows are all there is to keep
			}
			return fmt.Errorf("interrupted at %s %g: %w", s.search.Over, load, context.Cause(s.ctx))
		}
		last := attempt >= searchAttempts || requests*2 > 10000
		if p.Verdict == searchUnresolved && !last {
			side.out.Probes = append(side.out.Probes, p)
			requests *= 2
			continue
		}
		if p.Verdict == searchUnresolved {
			side.out.Unresolved++
		}
		side.out.Probes = append(side.out.Probes, p)
		if side.atLowest == nil || load < side.lowest {
			side.atLowest, side.lowest = run, load
		}
		if p.Decided == searchHeld {
			if load > side.held {
				side.held, side.atHeld = load, run
			}
		} else if side.broke == 0 || load < side.broke {
			side.broke, side.out.BrokeFirst = load, brokeBy
		}
		return s.ctx.Err()
	}
}

// requests is a probe's first request count: the scenario's, and at least what the SLO's
// percentiles need for a 95% interval (a p95's upper end needs 72) and four per slot.
func (s *searcher) requests(load float64) int {
	n := max(s.base.Requests, int(4*math.Ceil(load)))
	for _, b := range s.slo {
		b.Bound = budget.Upper95
		n = max(n, b.RequiredSamples(), b.BoundSamples()+8)
	}
	return min(n, 10000)
}

// judge is a probe's verdict: each SLO budget at the ends of its figure's 95% interval (a
// figure without one at its point), and any failed request breaks it.
func (s *searcher) judge(run *artifact.Benchmark, load float64, attempt int) (artifact.SearchProbe, []string) {
	p := artifact.SearchProbe{Load: artifact.Float(load), Attempt: attempt, Requests: run.Requests, Failed: run.Failed}
	if wall := float64(run.WallClockMs) / 1000; wall > 0 {
		p.ThroughputRPS = artifact.Float(float64(run.Completed) / wall)
	}
	p.SLOAttainment, p.GoodputRPS = run.SLOOf(s.result.SLO)
	held, broke, pointHeld := true, false, run.Failed == 0
	var brokeBy, pointBrokeBy []string
	if run.Failed > 0 {
		broke, brokeBy = true, []string{fmt.Sprintf("%d of %d requests failed", run.Failed, run.Requests)}
	}
	for _, b := range s.slo {
		f, point := s.judgeFigure(b, run)
		p.Figures = append(p.Figures, f)
		switch f.Verdict {
		case searchBroke:
			broke, brokeBy = true, append(brokeBy, b.String())
		case searchUnresolved:
			held = false
		}
		if point.Err != nil || !point.Pass {
			pointHeld, pointBrokeBy = false, append(pointBrokeBy, b.String())
		}
	}
	switch {
	case broke:
		p.Verdict, p.Decided = searchBroke, searchBroke
	case held:
		p.Verdict, p.Decided = searchHeld, searchHeld
	default:
		p.Verdict, p.Decided = searchUnresolved, map[bool]string{true: searchHeld, false: searchBroke}[pointHeld]
		brokeBy = pointBrokeBy
	}
	return p, brokeBy
}

// judgeFigure is one budget at a probe: held when it holds at the far end of its 95%
// interval, broken when it fails at the near end, unresolved between. A budget that names
// its own bound, or a figure without an interval, is judged as written. point is the
// budget on the figure itself, which decides a load that stays unresolved.
func (s *searcher) judgeFigure(b budget.Budget, run *artifact.Benchmark) (f artifact.SearchFigure, point budget.Verdict) {
	f = artifact.SearchFigure{Budget: b.String()}
	point = budget.Judge(b, run)
	if point.Err == nil {
		f.Value = artifact.F(point.Point)
	}
	if (b.Bound != "" && b.Bound != budget.Point) || point.Err != nil {
		f.Verdict = map[bool]string{true: searchHeld, false: searchBroke}[point.Err == nil && point.Pass]
		return f, point
	}
	far, near := budget.Upper95, budget.Lower95
	if b.Op == budget.AtLeast || b.Op == budget.Above {
		far, near = near, far
	}
	hi, lo := b, b
	hi.Bound, lo.Bound = far, near
	strict, lenient := budget.Judge(hi, run), budget.Judge(lo, run)
	if strict.Err != nil || lenient.Err != nil {
		f.Verdict = map[bool]string{true: searchHeld, false: searchBroke}[point.Pass]
		return f, point
	}
	f.High95, f.Low95 = artifact.F(max(strict.Value, lenient.Value)), artifact.F(min(strict.Value, lenient.Value))
	switch {
	case strict.Pass:
		f.Verdict = searchHeld
	case !lenient.Pass:
		f.Verdict = searchBroke
	default:
		f.Verdict = searchUnresolved
	}
	return f, point
}

// finish states each side's capacity and returns its run at it.
func (s *searcher) finish() (current, baseline *artifact.Benchmark, err error) {
	var runs []*artifact.Benchmark
	for _, side := range s.sides {
		side.out.Capacity = artifact.Float(side.held)
		if side.broke > 0 {
			side.out.Broke = artifact.F(side.broke)
		}
		run := side.atHeld
		if run == nil {
			run = side.atLowest
		}
		if run == nil {
			return nil, nil, errors.New("the search probed no load")
		}
		runs = append(runs, run)
	}
	result := s.result
	result.SearchSide = s.sides[0].out
	if len(s.sides) > 1 {
		result.Baseline = &s.sides[1].out
	}
	for k, run := range runs {
		if run.Extension == nil {
			continue
		}
		r := result
		if k == 1 {
			r.SearchSide, r.Baseline = s.sides[1].out, nil
		}
		// The run stands for the scenario: its name is the scenario's, its load in the search.
		run.Extension.Search, run.Extension.Scenario = &r, s.base.Name
	}
	if len(runs) > 1 {
		// The two capacities read as a pair, as an interleaved run's two artifacts do.
		for k, role := range []string{artifact.RoleCurrent, artifact.RoleBaseline} {
			partner := s.sides[1-k]
			if x := runs[k].Extension; x != nil {
				x.Interleaved = &artifact.Interleaved{Role: role, Pairing: s.base.Name + "-search-" + s.base.PromptNonce,
					PartnerBaseURL: partner.target.BaseURL, PartnerModel: runs[1-k].Model}
			}
		}
		return runs[0], runs[1], nil
	}
	return runs[0], nil, nil
}
