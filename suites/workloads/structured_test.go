package workloads_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"

	"github.com/anvilbench/anvilbench/harness/anvil"
	"github.com/anvilbench/anvilbench/harness/capacity"
	"github.com/anvilbench/anvilbench/harness/refengine"
	. "github.com/anvilbench/anvilbench/matchers"
)

var _ = Describe("tool calls and structured output", Serial, Label(anvil.LabelSelfTest, "structured"), func() {
	scenario := func(output capacity.Output) capacity.Scenario {
		return capacity.Scenario{Requests: 8, Concurrency: 4, ContextTokens: 2000, MaxTokens: 64, ResponseWords: 24, Output: output,
			Calibrate: true, Policy: capacity.PolicyStrict, Engine: anvil.EmbeddedEngineName}
	}
	quick := refengine.Options{PrefillOverhead: 2 * time.Millisecond, PrefillRate: 2_000_000, ITL: time.Millisecond}

	It("streams one valid call of the tool, with the time to its first fragment", SpecTimeout(time.Minute), func(ctx SpecContext) {
		_, target := anvil.PrivateEngine(quick)
		run := anvil.Run(ctx, "tool-call", target, scenario(capacity.OutputTool))

		Expect(run).To(HaveNoFailedRequests())
		Expect(run).To(HaveValidToolCalls())
		Expect(run).To(AdhereToControlledOutput())
		Expect(run.Extension.StructuredOutput.FirstToolCallMs).To(HaveField("Samples", 8))
	})

	It("answers with JSON of its schema", SpecTimeout(time.Minute), func(ctx SpecContext) {
		_, target := anvil.PrivateEngine(quick)
		run := anvil.Run(ctx, "json-answer", target, scenario(capacity.OutputJSON))

		Expect(run).To(HaveNoFailedRequests())
		Expect(run).To(HaveValidJSONAnswers())
		Expect(run).To(AdhereToControlledOutput())
	})

	DescribeTable("fails a broken engine, naming each request and what was wrong",
		func(ctx SpecContext, name string, output capacity.Output, faults refengine.Faults, check func() types.GomegaMatcher, why string) {
			broken := quick
			broken.Faults = faults
			_, target := anvil.PrivateEngine(broken)
			sc := scenario(output)
			sc.Requests = 4
			run := anvil.Run(ctx, name, target, sc)

			Expect(run.Failed).To(Equal(4))
			Expect(failuresOf(func() { Expect(run).To(check()) })).To(ConsistOf(And(ContainSubstring("of 4"), ContainSubstring("request 0: "+why))))
		},
		Entry("arguments that are not JSON", "tool-call-invalid-json", capacity.OutputTool, refengine.Faults{BadToolArguments: true},
			func() types.GomegaMatcher { return HaveValidToolCalls() }, `the arguments are not valid JSON: unexpected EOF: "{\"words\": \"code code`, SpecTimeout(time.Minute)),
		Entry("arguments a word short", "tool-call-missing-word", capacity.OutputTool, refengine.Faults{MissingWords: 1},
			func() types.GomegaMatcher { return AdhereToControlledOutput() }, "23 code words and 0 other words", SpecTimeout(time.Minute)),
		Entry("an answer that is not JSON", "json-answer-invalid", capacity.OutputJSON, refengine.Faults{BadToolArguments: true},
			func() types.GomegaMatcher { return HaveValidJSONAnswers() }, `the answer is not valid JSON`, SpecTimeout(time.Minute)),
	)
})
