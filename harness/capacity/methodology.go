package capacity

import "github.com/anvilbench/anvilbench/harness/artifact"

// methodologyText states what each figure of an artifact measures, as this code measures it.
// The keys are the original tool's; the sentences describe anvilbench, so a figure never
// claims a method it was not produced by.
var methodologyText = artifact.TimingMethodology{
	ArtifactTimestamps:    "Go time.Now Unix nanoseconds read together with the monotonic start and end of the request phase; independent artifacts may align them only when the operator supplied the same explicit clock_domain_id",
	Clock:                 clockUserSpace,
	ControlledOutput:      "ANVIL_RESPONSE_WORDS adherence is recorded by counting whitespace-separated words equal to the lowercase word code against all other words; observe keeps every response while strict rejects non-exact or truncated completions; visible response capture is capped at 8192 characters",
	Decode:                "usage completion tokens after the first output chunk's tokens (one token unless the engine reported usage in every chunk) divided by client-observed generation time; completion tokens may include reasoning tokens",
	Distributions:         "request-level mean of the exactly summed values, sample standard deviation (n-1, exact, rounded once), normal-approximation 95% confidence interval for the mean (mean +- 1.96 * stddev / sqrt(n)), min, p25, p50, p75, p90, p95, p99, and max using the nearest-rank percentile method (the ceil(p/100*n)-th smallest value)",
	EffectivePrefill:      "usage.prompt_tokens divided by client-observed time to first output; includes connection setup, queueing, scheduling, prefill, and first-token work",
	Generation:            "client-observed E2E minus time to first output; E2E ends at the read that delivered data: [DONE], or at the end of the body when the stream ended with a finish_reason but no [DONE]",
	MeanInterTokenLatency: "legacy key for a TPOT proxy: client-observed generation time divided by completion tokens after the first output chunk's tokens; not raw per-token ITL (see anvilbench.itl for pooled chunk or token gaps)",
	P99:                   "numeric nearest-rank p99 is always retained for compatibility; it is descriptive only below 100 eligible samples",
	RequestCanaries:       "when enabled, each response must begin with its own synthetic marker and contain no other ANVIL_REQ marker; bounded/truncated captures fail closed and are excluded from performance metrics",
	TimeToFirstOutput:     "request start (just before the HTTP request is handed to the client, connection setup included) through the read that delivered the first non-empty streamed reasoning or content delta",
	TPOT:                  "client-observed generation time divided by the completion tokens after the first output chunk's tokens (one token unless the engine reported usage in every chunk, so coalesced first chunks do not shorten it); identical to the legacy mean_inter_token_latency key",
	TTFT:                  "request start through the read that delivered the first non-empty streamed content delta",
}

// The Clock sentences, by how the run's events were stamped.
const (
	clockUserSpace = "client Go monotonic clock; each streamed event is stamped when the socket read that delivered its bytes returned (the read of the response headers when the engine sent the first event with them), before the event is parsed or decoded; events delivered by one read share its stamp"
	clockKernel    = "client Go monotonic clock; each streamed event is stamped with the kernel's receive timestamp (SO_TIMESTAMPNS, CLOCK_REALTIME placed on the monotonic clock at the read) of the socket read that delivered its bytes (the read of the response headers when the engine sent the first event with them): when the bytes reached the socket, however late the process read them; events delivered by one read share the stamp of its last bytes"
	clockMixed     = "client Go monotonic clock; each streamed event is stamped with the kernel's receive timestamp (SO_TIMESTAMPNS) of the socket read that delivered its bytes where the kernel gave one, else when that read returned (see anvilbench.clock for how many reads each way); events delivered by one read share its stamp"
)

// Clock sources recorded in the extension.
const (
	clockSourceKernel    = "kernel-receive"
	clockSourceUserSpace = "user-space-read"
	clockSourceMixed     = "mixed"
)

// methodology is methodologyText with the Clock sentence of how the run was stamped.
func methodology(source string) artifact.TimingMethodology {
	m := methodologyText
	switch source {
	case clockSourceKernel:
		m.Clock = clockKernel
	case clockSourceMixed:
		m.Clock = clockMixed
	}
	return m
}
