package anvil

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/capacity"
	"github.com/anvilbench/anvilbench/harness/gate"
	"github.com/anvilbench/anvilbench/internal/runrecord"
)

// labelConformance marks the conformance specs (DescribeConformance).
const labelConformance = "conformance"

// The rows of the conformance table, in its order.
const (
	itemModelServed     = "model served (preflight)"
	itemStreams         = "streams the configured scenario"
	itemUsage           = "reports usage"
	itemPlannedContext  = "counts the planned context (within 3%)"
	itemExactWords      = "follows the controlled output"
	itemSession         = "carries a session's history"
	itemTools           = "accepts a tool"
	itemToolCall        = "calls the tool"
	itemSchema          = "accepts a JSON schema"
	itemJSON            = "answers JSON of the schema"
	itemWindow          = "window discovered"
	itemRefusesOverPlan = "a fixed plan over the window refused before any request"
	itemTruncation      = "a prompt over the window under a wrong declared window"
	itemAlias           = "an unlisted alias served"
	itemWrongModel      = "a wrong model refused in the preflight"
	itemAccounted       = "every request accounted"
)

// conformanceMaxRequests caps the configured scenario's requests on each API: the
// conformance asks what the engine honours, not how fast it serves.
const conformanceMaxRequests = 8

// conformanceSpecs is true once DescribeConformance registered its specs, so the suite's
// selected specs read the configured scenario's variables.
var conformanceSpecs bool

// DescribeConformance registers the conformance of the endpoint under test: for each API
// (every one the harness speaks when none is named), a container of ordered specs that ask
// the engine what anvilbench asks of one: the model served, the configured scenario (at
// most 8 requests, policy observe) with its usage, planned context and controlled output;
// a short session, a tool and a JSON schema under observe; the window discovered, a fixed
// plan over it refused, a prompt over it under a declared window twice its size (the
// engine truncates it, which the run must name, or refuses it); an alias the engine serves
// but does not list (a listed name without its ":tag"); a wrong model refused; and every
// request accounted.
//
// What the engine did is a table per API, yes, no or n/a with what was seen, in gate.json
// (conformance) and the report. A spec fails only where the harness would be wrong: a
// request not accounted, a plan over the window sent, a truncation not named. An engine
// that does not honour an item (no usage, no tool call, an unknown model answered) is a
// "no" in the table, for whoever depends on it to read.
func DescribeConformance(apis ...capacity.API) bool {
	if len(apis) == 0 {
		for _, a := range capacity.APIChat.Choices() {
			apis = append(apis, capacity.API(a))
		}
	}
	conformanceSpecs = true
	columns := make([]string, len(apis))
	for i, a := range apis {
		columns[i] = string(a)
	}
	conformanceLeft.Add(int32(len(apis)))
	Describe("conformance", Label(labelConformance), func() {
		for _, api := range apis {
			describeConformanceOf(api, columns)
		}
	})
	return true
}

func describeConformanceOf(api capacity.API, columns []string) {
	Describe("on "+string(api), Ordered, func() {
		c := &conformer{api: api, columns: columns}
		BeforeAll(func(ctx SpecContext) { c.start(ctx) }, NodeTimeout(2*time.Minute))

		It("serves the model and streams the configured scenario with usage", func(ctx SpecContext) { c.configured(ctx) }, SpecTimeout(5*time.Minute))
		It("carries a session's history", func(ctx SpecContext) { c.session(ctx) }, SpecTimeout(5*time.Minute))
		It("accepts a tool and a JSON schema", func(ctx SpecContext) { c.structured(ctx) }, SpecTimeout(5*time.Minute))
		It("refuses a fixed plan over the window before any request", func(ctx SpecContext) { c.overPlan(ctx) }, SpecTimeout(2*time.Minute))
		It("names a truncated prompt under a wrong declared window", func(ctx SpecContext) { c.truncation(ctx) }, SpecTimeout(10*time.Minute))
		It("serves an unlisted alias and refuses a wrong model", func(ctx SpecContext) { c.models(ctx) }, SpecTimeout(2*time.Minute))
		It("stops a request its client leaves", func(ctx SpecContext) { c.leaves(ctx) }, SpecTimeout(3*time.Minute))
		It("takes images or refuses them clearly", func(ctx SpecContext) { c.images(ctx) }, SpecTimeout(2*time.Minute))
		It("accounts for every request", func() { c.account() })
		// The table on the console once every column is filled (Ginkgo may run the APIs'
		// containers in any order): a run of minutes that printed only progress dots
		// should end with what it found.
		AfterAll(func() {
			if conformanceLeft.Add(-1) == 0 {
				printConformance()
			}
		})
	})
}

// conformer asks the engine, on one API, what the table records.
type conformer struct {
	api     capacity.API
	columns []string // every API's, in the table's order
	target  capacity.Target
	// base is the configured scenario on this API with the model the preflight found.
	base capacity.Scenario
	ep   capacity.Endpoint
	// served is false when the engine served no request of the configured scenario: the
	// API is not served, and the rows after it say so.
	served bool
	// runs, requests and accounted count what the conformance sent.
	runs, requests, counted int
	unaccounted             []string
}

func (c *conformer) start(ctx context.Context) {
	env := Current()
	c.target = env.Target()
	sc := env.WithIdentity(env.Configured())
	sc.API = c.api
	sc.Requests = min(cmp.Or(sc.Requests, conformanceMaxRequests), conformanceMaxRequests)
	sc.WarmupRequests, sc.Repeats = 0, 1
	sc.Policy = capacity.PolicyObserve
	sc.ResponseWords = cmp.Or(sc.ResponseWords, 8)
	sc.MaxTokens = max(sc.MaxTokens, sc.ResponseWords+8)
	sc.Progress = nil
	c.base = sc
	var err error
	c.ep, err = capacity.Preflight(ctx, c.target, capacity.PreflightOptions{Model: sc.Model, Window: sc.MaxContextTokens, API: c.api})
	if err != nil {
		c.set(itemModelServed, gate.NotHonoured, err.Error())
		return
	}
	c.base.Model = c.ep.Model
	how := "listed by GET /models"
	if c.ep.Alias {
		how = "not listed, answered"
	}
	c.set(itemModelServed, gate.Honoured, fmt.Sprintf("%s (%s)", c.ep.Model, how))
}

// set records one cell of this API's column in the run's gate.json.
func (c *conformer) set(item string, status gate.ConformanceStatus, detail string) {
	GinkgoHelper()
	env := Current()
	_, err := gate.UpdateSummary(env.OutDir, env.RunID, func(s *gate.Summary) {
		if s.Conformance == nil {
			s.Conformance = &gate.Conformance{APIs: slices.Clone(c.columns)}
		}
		s.Conformance.Model = cmp.Or(c.base.Model, s.Conformance.Model)
		s.Conformance.Endpoint = c.target.BaseURL
		s.Conformance.Set(string(c.api), item, gate.ConformanceCell{Status: status, Detail: detail})
	})
	if err != nil {
		Fail(fmt.Sprintf("record the conformance: %v", err))
	}
	GinkgoWriter.Printf("%s / %s: %s %s\n", c.api, item, status, detail)
}

// unserved marks items n/a when the API or the model is not served; it reports whether it did.
func (c *conformer) unserved(items ...string) bool {
	GinkgoHelper()
	why := ""
	switch {
	case c.base.Model == "":
		why = "the preflight found no model to request"
	case !c.served:
		why = "the engine served no request on this API"
	default:
		return false
	}
	for _, item := range items {
		c.set(item, gate.NotApplicable, why)
	}
	return true
}

// run runs sc, accounts for its requests and returns its artifact; nil with the reason
// when it did not start.
func (c *conformer) run(ctx context.Context, name string, sc capacity.Scenario) (*artifact.Benchmark, error) {
	GinkgoHelper()
	sc.Name = "conformance-" + string(c.api) + "-" + name
	b, err := capacity.Run(ctx, c.target, sc)
	if err != nil {
		return nil, err
	}
	c.runs++
	c.requests += b.Requests
	if verr := capacity.Verify(b); verr != nil {
		c.unaccounted = append(c.unaccounted, fmt.Sprintf("%s: %v", name, verr))
	} else {
		c.counted += b.Requests
	}
	return b, nil
}

// runFor runs sc for item and returns its artifact; nil once the item says why there is
// none: n/a for a scenario the API cannot carry, no for one that did not start.
func (c *conformer) runFor(ctx context.Context, item, name string, sc capacity.Scenario) *artifact.Benchmark {
	GinkgoHelper()
	if err := sc.Validate(); err != nil {
		c.set(item, gate.NotApplicable, err.Error())
		return nil
	}
	b, err := c.run(ctx, name, sc)
	if err != nil {
		c.set(item, gate.NotHonoured, "did not start: "+err.Error())
		return nil
	}
	return b
}

func (c *conformer) configured(ctx context.Context) {
	items := append([]string{itemStreams, itemUsage, itemPlannedContext, itemExactWords}, configuredTraffic...)
	if c.base.Model == "" {
		c.unserved(items...)
		return
	}
	b, err := c.run(ctx, "configured", c.base)
	if err != nil {
		c.set(itemStreams, gate.NotHonoured, "did not start: "+err.Error())
		c.unserved(items[1:]...)
		return
	}
	c.served = b.Completed > 0
	detail := fmt.Sprintf("%d of %d completed", b.Completed, b.Requests)
	if b.Completed > 0 {
		detail += fmt.Sprintf("; ttft p50 %s ms, tpot p50 %s ms", ms(b.Metrics.TTFT.P50), ms(b.Metrics.TPOT.P50))
	}
	if b.Failed > 0 {
		f := b.Failures[0]
		detail += fmt.Sprintf("; request %d: %s: %s", f.RequestIndex, f.ErrorType, oneLine(f.ErrorMessage))
	}
	c.set(itemStreams, yesIf(b.Failed == 0 && b.Completed > 0), detail)
	if c.unserved(items[1:]...) {
		return
	}
	usage, exact := 0, 0
	for _, r := range b.RequestTimings {
		if r.PromptTokens != nil && r.OutputTokens != nil && r.OutputTokenSource == "usage" {
			usage++
		}
		if r.ControlledOutput != nil && r.ControlledOutput.ExactAdherence != nil && *r.ControlledOutput.ExactAdherence {
			exact++
		}
	}
	c.set(itemUsage, yesIf(usage == b.Completed), fmt.Sprintf("prompt and completion tokens on %d of %d responses", usage, b.Completed))
	c.contextRow(itemPlannedContext, b)
	c.set(itemExactWords, yesIf(exact == b.Completed), fmt.Sprintf("exactly %d code words in %d of %d answers", c.base.ResponseWords, exact, b.Completed))
	c.trafficRows(b)
}

// contextRow records how far the engine's prompt tokens were from the plan.
func (c *conformer) contextRow(item string, b *artifact.Benchmark) {
	GinkgoHelper()
	acc := b.Extension.ContextAccuracy
	if acc.MaxAbsErrorPct == nil {
		c.set(item, gate.NotHonoured, "no response reported its prompt tokens")
		return
	}
	detail := fmt.Sprintf("%.1f%% off the plan at worst over %d requests (calibration %s)", float64(*acc.MaxAbsErrorPct), acc.Samples, b.Extension.Calibration.Method)
	if acc.Diagnosis != "" {
		detail += "; " + acc.Diagnosis
	}
	c.set(item, yesIf(*acc.MaxAbsErrorPct <= 3), detail)
}

func (c *conformer) session(ctx context.Context) {
	if c.unserved(itemSession) {
		return
	}
	// A session's turns carry no traffic feature: no images, adapters or priorities, and
	// none is left.
	sc := c.base.Plain()
	sc.Sessions = capacity.Sessions{Count: 2, Turns: 3, TurnTokens: 200}
	sc.ContextTokens = min(cmp.Or(sc.ContextTokens, 1000), 1000)
	b := c.runFor(ctx, itemSession, "session", sc)
	if b == nil {
		return
	}
	var turns []string
	grows := true
	if s := b.Extension.Sessions; s != nil {
		for i, t := range s.ByTurn {
			if t.PromptTokensMean == nil {
				grows = false
				turns = append(turns, "?")
				continue
			}
			turns = append(turns, fmt.Sprintf("%.0f", float64(*t.PromptTokensMean)))
			if i > 0 && s.ByTurn[i-1].PromptTokensMean != nil && *t.PromptTokensMean <= *s.ByTurn[i-1].PromptTokensMean {
				grows = false
			}
		}
	}
	acc := b.Extension.ContextAccuracy
	held := b.Failed == 0 && grows && len(turns) == 3 && acc.MaxAbsErrorPct != nil && *acc.MaxAbsErrorPct <= 3
	detail := fmt.Sprintf("%d of %d turns completed; prompt tokens by turn %s", b.Completed, b.Requests, strings.Join(turns, ", "))
	if acc.MaxAbsErrorPct != nil {
		detail += fmt.Sprintf(", %.1f%% off the plan at worst", float64(*acc.MaxAbsErrorPct))
	}
	c.set(itemSession, yesIf(held), detail)
}

func (c *conformer) structured(ctx context.Context) {
	if c.unserved(itemTools, itemToolCall, itemSchema, itemJSON) {
		return
	}
	sc := c.base
	// Room for the words in their JSON, so a cut answer is not what is judged.
	sc.Requests, sc.ContextTokens, sc.MaxTokens = 2, min(cmp.Or(sc.ContextTokens, 800), 800), max(sc.MaxTokens, 4*sc.ResponseWords+32)
	tool, answer := sc, sc
	tool.Output, answer.Output = capacity.OutputTool, capacity.OutputJSON
	if err := tool.Validate(); err != nil {
		c.set(itemTools, gate.NotApplicable, err.Error())
		c.set(itemToolCall, gate.NotApplicable, err.Error())
	} else if b, err := c.run(ctx, "tool", tool); err != nil {
		c.set(itemTools, gate.NotHonoured, "did not start: "+err.Error())
		c.set(itemToolCall, gate.NotApplicable, "no request was sent")
	} else {
		c.set(itemTools, yesIf(b.Failed == 0), requestsServed(b))
		valid := validStructures(b)
		c.set(itemToolCall, yesIf(valid == b.Requests), fmt.Sprintf("one valid call of the tool in %d of %d answers%s", valid, b.Requests, firstProblem(b)))
	}
	if err := answer.Validate(); err != nil {
		c.set(itemSchema, gate.NotApplicable, err.Error())
		c.set(itemJSON, gate.NotApplicable, err.Error())
	} else if b, err := c.run(ctx, "json", answer); err != nil {
		c.set(itemSchema, gate.NotHonoured, "did not start: "+err.Error())
		c.set(itemJSON, gate.NotApplicable, "no request was sent")
	} else {
		c.set(itemSchema, yesIf(b.Failed == 0), requestsServed(b))
		valid := validStructures(b)
		c.set(itemJSON, yesIf(valid == b.Requests), fmt.Sprintf("JSON of the schema in %d of %d answers%s", valid, b.Requests, firstProblem(b)))
	}
}

// requestsServed says how many requests completed, and the first failure's reason.
func requestsServed(b *artifact.Benchmark) string {
	s := fmt.Sprintf("%d of %d requests completed", b.Completed, b.Requests)
	for _, f := range b.Failures {
		if f.FailureClass != "controlled_output" {
			return s + fmt.Sprintf("; request %d: %s: %s", f.RequestIndex, f.ErrorType, oneLine(f.ErrorMessage))
		}
	}
	return s
}

// firstProblem is "; request i: why" for the first answer whose structure did not hold.
func firstProblem(b *artifact.Benchmark) string {
	for _, span := range b.Extension.Timeline {
		if span.StructureProblem != nil {
			return fmt.Sprintf("; request %d: %s", span.RequestIndex, oneLine(*span.StructureProblem))
		}
	}
	return ""
}

func validStructures(b *artifact.Benchmark) int {
	if s := b.Extension.StructuredOutput; s != nil {
		return s.Valid
	}
	return 0
}

func (c *conformer) overPlan(ctx context.Context) {
	GinkgoHelper()
	if c.unserved(itemWindow, itemRefusesOverPlan) {
		return
	}
	if c.ep.Window == 0 || c.ep.WindowSource == capacity.WindowConfigured {
		c.set(itemWindow, gate.NotHonoured, "neither GET /models nor the engine's own endpoints give it")
		c.set(itemRefusesOverPlan, gate.NotApplicable, "no window to plan over")
		return
	}
	c.set(itemWindow, gate.Honoured, fmt.Sprintf("%d tokens (%s)", c.ep.Window, c.ep.WindowSource))
	sc := c.base
	sc.MaxContextTokens, sc.ContextTokens, sc.Requests = 0, c.ep.Window+1, 1
	b, err := c.run(ctx, "over-the-window", sc)
	if err == nil {
		Fail(fmt.Sprintf("a %d-token plan over the %d-token window was sent: %d requests", sc.ContextTokens, c.ep.Window, b.Requests))
	}
	c.set(itemRefusesOverPlan, gate.Honoured, "refused: "+err.Error())
}

func (c *conformer) truncation(ctx context.Context) {
	GinkgoHelper()
	if c.unserved(itemTruncation) {
		return
	}
	if c.ep.Window == 0 {
		c.set(itemTruncation, gate.NotApplicable, "no window to plan over")
		return
	}
	sc := c.base
	sc.MaxContextTokens, sc.ContextTokens, sc.Requests, sc.Concurrency = 2*c.ep.Window, c.ep.Window+c.ep.Window/8, 1, 1
	sc.MaxTokens, sc.ResponseWords = 8, 0
	b, err := c.run(ctx, "truncation", sc)
	if err != nil {
		c.set(itemTruncation, gate.NotHonoured, "did not start: "+err.Error())
		return
	}
	plan := fmt.Sprintf("a %d-token plan declared to fit a %d-token window", sc.ContextTokens, sc.MaxContextTokens)
	if b.Failed > 0 {
		f := b.Failures[0]
		if f.ResponseMetadata == nil || f.ResponseMetadata.Usage.PromptTokens == nil {
			c.set(itemTruncation, gate.Honoured, fmt.Sprintf("%s: refused: %s: %s", plan, f.ErrorType, oneLine(f.ErrorMessage)))
			return
		}
	}
	acc := b.Extension.ContextAccuracy
	if acc.MaxAbsErrorPct == nil {
		c.set(itemTruncation, gate.NotHonoured, plan+": served, without its prompt tokens")
		return
	}
	if *acc.MaxAbsErrorPct <= 3 {
		c.set(itemTruncation, gate.Honoured, fmt.Sprintf("%s: served whole (%.1f%% off): the window is larger than found", plan, float64(*acc.MaxAbsErrorPct)))
		return
	}
	if acc.TruncatedAt == nil {
		Fail(fmt.Sprintf("%s was served short (%.1f%% off) and the run did not name the truncation: %q", plan, float64(*acc.MaxAbsErrorPct), acc.Diagnosis))
	}
	c.set(itemTruncation, gate.NotHonoured, fmt.Sprintf("%s: truncated silently, named by the run: %s", plan, acc.Diagnosis))
}

func (c *conformer) models(ctx context.Context) {
	GinkgoHelper()
	if c.unserved(itemAlias, itemWrongModel) {
		return
	}
	listed, _, tagged := strings.Cut(c.ep.Model, ":")
	switch {
	case c.ep.Alias:
		c.set(itemAlias, gate.Honoured, fmt.Sprintf("%s, not listed, was answered", c.ep.Model))
	case !tagged:
		c.set(itemAlias, gate.NotApplicable, fmt.Sprintf("the model's listed id %s has no :tag to leave out", c.ep.Model))
	default:
		ep, err := capacity.Preflight(ctx, c.target, capacity.PreflightOptions{Model: listed, Window: c.base.MaxContextTokens, API: c.api})
		switch {
		case err != nil:
			c.set(itemAlias, gate.NotHonoured, err.Error())
		case !ep.Alias:
			c.set(itemAlias, gate.NotApplicable, fmt.Sprintf("%s is listed too", listed))
		default:
			c.set(itemAlias, gate.Honoured, fmt.Sprintf("%s answered for the listed %s", listed, c.ep.Model))
		}
	}
	wrong := listed + "-anvil-nonexistent"
	_, err := capacity.Preflight(ctx, c.target, capacity.PreflightOptions{Model: wrong, Window: c.base.MaxContextTokens, API: c.api})
	if err == nil {
		c.set(itemWrongModel, gate.NotHonoured, fmt.Sprintf("a request for %s was answered", wrong))
		return
	}
	c.set(itemWrongModel, gate.Honoured, err.Error())
}

func (c *conformer) account() {
	GinkgoHelper()
	if len(c.unaccounted) > 0 {
		Fail("requests not accounted for: " + strings.Join(c.unaccounted, "; "))
	}
	if c.runs == 0 {
		c.set(itemAccounted, gate.NotApplicable, "no scenario ran")
		return
	}
	c.set(itemAccounted, gate.Honoured, fmt.Sprintf("%d of %d requests over %d runs, each in request_timings, failures or (left as planned) the timeline once", c.counted, c.requests, c.runs))
}

func yesIf(held bool) gate.ConformanceStatus {
	if held {
		return gate.Honoured
	}
	return gate.NotHonoured
}

func ms(p *artifact.Float) string {
	if p == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f", float64(*p))
}

// oneLine is the first line of s, at most 160 characters.
func oneLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(line); len(r) > 160 {
		line = string(r[:160]) + "…"
	}
	return line
}

// conformanceLeft counts the APIs' containers still to finish in this process.
var conformanceLeft atomic.Int32

// printConformance writes the run's conformance table to the console (a report entry
// Ginkgo always prints), as gate.json and the report hold it.
func printConformance() {
	env := Current()
	s, err := gate.ReadSummary(filepath.Join(env.OutDir, runrecord.SummaryFile))
	if err != nil || s.Conformance == nil {
		return
	}
	AddReportEntry("conformance", s.Conformance.Text(), ReportEntryVisibilityAlways)
}
