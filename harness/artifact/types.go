// Package artifact is the anvil-serving.benchmark/v1 schema: the Go types of one capacity
// artifact, its Python-compatible encoding, an atomic writer and a tolerant reader.
//
// The types mirror testdata/reference/benchmark-v1-example.json key for key. Keys are
// written sorted at every level and absent values are null, never omitted, except where the
// original format itself omits a key (the optional members of a failure record).
package artifact

// Schema is the value of the top-level "schema" key.
const Schema = "anvil-serving.benchmark/v1"

// Measurement protocols. ProtocolReasoning is used when any successful request streamed
// reasoning deltas.
const (
	ProtocolV3        = "capacity-v3"
	ProtocolReasoning = "capacity-v4-reasoning"
)

// Float is a float64 that encodes like Python's repr(float): always with a fraction or an
// exponent ("33.0", "1e+16"), so integral statistics keep their float type in JSON.
type Float float64

// F returns a pointer to f as a Float, for the nullable fields.
func F(f float64) *Float { v := Float(f); return &v }

// Benchmark is one capacity artifact (41 top-level keys).
type Benchmark struct {
	BaseURL                  string            `json:"base_url"`
	ClockDomainID            *string           `json:"clock_domain_id"`
	Completed                int               `json:"completed"`
	Concurrency              int               `json:"concurrency"`
	ConfigurationFingerprint *string           `json:"configuration_fingerprint"`
	ContextDistribution      map[string]int    `json:"context_distribution"`
	ContextSeed              int64             `json:"context_seed"`
	ContextTokens            *int              `json:"context_tokens"`
	ControlledOutputPolicy   string            `json:"controlled_output_policy"`
	Engine                   *string           `json:"engine"`
	Failed                   int               `json:"failed"`
	Failures                 []Failure         `json:"failures"`
	FinishedAt               string            `json:"finished_at"`
	FinishedAtUnixNs         int64             `json:"finished_at_unix_ns"`
	GPU                      *string           `json:"gpu"`
	Manifest                 *string           `json:"manifest"`
	MaxContextTokens         *int              `json:"max_context_tokens"`
	MaxTokens                int               `json:"max_tokens"`
	MeasurementProtocol      string            `json:"measurement_protocol"`
	MetricPopulation         MetricPopulation  `json:"metric_population"`
	Metrics                  Metrics           `json:"metrics"`
	Model                    string            `json:"model"`
	PerformanceEligible      bool              `json:"performance_eligible"`
	PromptCacheMode          string            `json:"prompt_cache_mode"`
	RequestCanaries          bool              `json:"request_canaries"`
	RequestTimings           []RequestTiming   `json:"request_timings"`
	Requests                 int               `json:"requests"`
	ResponseWords            int               `json:"response_words"`
	ResponsesReceived        int               `json:"responses_received"`
	RunID                    string            `json:"run_id"`
	Sampling                 Sampling          `json:"sampling"`
	Schema                   string            `json:"schema"`
	ServeFlags               ServeFlags        `json:"serve_flags"`
	SharedPrefixTokens       int               `json:"shared_prefix_tokens"`
	SourceRecipe             *string           `json:"source_recipe"`
	StartedAt                string            `json:"started_at"`
	StartedAtUnixNs          int64             `json:"started_at_unix_ns"`
	Tier                     *string           `json:"tier"`
	TimestampPrecision       string            `json:"timestamp_precision"`
	TimingMethodology        TimingMethodology `json:"timing_methodology"`
	WallClockMs              Float             `json:"wall_clock_ms"`

	// Extension is anvilbench's own block (key "anvilbench"), omitted when nil; see Extension.
	Extension *Extension `json:"anvilbench,omitempty"`
}

// RequestTiming is one successful request's row in request_timings (20 keys). Durations
// are client-observed milliseconds on one monotonic clock from the request start.
type RequestTiming struct {
	ContentChunks            int               `json:"content_chunks"`
	ControlledOutput         *ControlledOutput `json:"controlled_output"`
	DecodeTokS               *Float            `json:"decode_tok_s"`
	E2EMs                    Float             `json:"e2e_ms"`
	EffectivePrefillTokS     *Float            `json:"effective_prefill_tok_s"`
	GenerationMs             Float             `json:"generation_ms"`
	MeanInterTokenLatencyMs  *Float            `json:"mean_inter_token_latency_ms"`
	MeanTimePerOutputTokenMs *Float            `json:"mean_time_per_output_token_ms"`
	OutputTokenSource        string            `json:"output_token_source"`
	OutputTokens             *int              `json:"output_tokens"`
	PlannedContextTokens     int               `json:"planned_context_tokens"`
	PromptTokens             *int              `json:"prompt_tokens"`
	ReasoningChunks          int               `json:"reasoning_chunks"`
	RequestCanary            *RequestCanary    `json:"request_canary"`
	RequestIndex             int               `json:"request_index"`
	TimeToFirstOutputMs      Float             `json:"time_to_first_output_ms"`
	TPOTMs                   *Float            `json:"tpot_ms"`
	TTFTMs                   Float             `json:"ttft_ms"`
	VisibleContentTruncated  bool              `json:"visible_content_truncated"`
	VisibleGenerationMs      Float             `json:"visible_generation_ms"`
}

// ControlledOutput is the score of one response against the "exactly N code words"
// instruction (7 keys).
type ControlledOutput struct {
	CaptureComplete    bool   `json:"capture_complete"`
	ExactAdherence     *bool  `json:"exact_adherence"`
	ObservedCodeWords  int    `json:"observed_code_words"`
	ObservedExtraWords int    `json:"observed_extra_words"`
	Passed             bool   `json:"passed"`
	Policy             string `json:"policy"`
	RequestedWords     int    `json:"requested_words"`
}

// RequestCanary is the check that a response begins with its own ANVIL_REQ marker and
// carries no other request's marker (6 keys).
type RequestCanary struct {
	CaptureComplete     bool   `json:"capture_complete"`
	ForeignMarkerCount  int    `json:"foreign_marker_count"`
	Marker              string `json:"marker"`
	MarkerAtStart       bool   `json:"marker_at_start"`
	ObservedMarkerCount int    `json:"observed_marker_count"`
	Passed              bool   `json:"passed"`
}

// Failure classes, as in the original tool.
const (
	FailureRequestError     = "request_error"
	FailureStreamValidation = "stream_validation_failed"
	FailureRequestCanary    = "request_canary_failed"
	FailureControlledOutput = "controlled_output_failed"
	FailureRunnerError      = "runner_error"
)

// Failure is one failed request. The optional members are omitted, as the original does,
// when they were not observed; ResponseTiming is absent without a response and null when a
// response arrived but no timing row could be formed from it.
type Failure struct {
	ControlledOutput      *ControlledOutput `json:"controlled_output,omitempty"`
	ElapsedMs             *Float            `json:"elapsed_ms,omitempty"`
	ErrorMessage          string            `json:"error_message"`
	ErrorMessageTruncated bool              `json:"error_message_truncated"`
	ErrorType             string            `json:"error_type"`
	FailureClass          string            `json:"failure_class,omitempty"`
	PerformanceEligible   bool              `json:"performance_eligible"`
	PlannedContextTokens  *int              `json:"planned_context_tokens,omitempty"`
	RequestCanary         *RequestCanary    `json:"request_canary,omitempty"`
	RequestIndex          int               `json:"request_index"`
	ResponseMetadata      *ResponseMetadata `json:"response_metadata,omitempty"`
	ResponseReceived      bool              `json:"response_received"`
	ResponseTiming        OptionalTiming    `json:"response_timing,omitzero"`
}

// OptionalTiming is a failure's response_timing: absent (Present false), null (Present with
// a nil Row) or a full row.
type OptionalTiming struct {
	Present bool
	Row     *RequestTiming
}

// IsZero reports whether the key is to be omitted.
func (o OptionalTiming) IsZero() bool { return !o.Present }

// ResponseMetadata describes what a failed request's stream carried (7 keys).
type ResponseMetadata struct {
	ContentChunks           int      `json:"content_chunks"`
	FinishReasons           []string `json:"finish_reasons"`
	OutputTokenSource       string   `json:"output_token_source"`
	ReasoningChunks         int      `json:"reasoning_chunks"`
	StreamTerminalObserved  bool     `json:"stream_terminal_observed"`
	Usage                   Usage    `json:"usage"`
	VisibleContentTruncated bool     `json:"visible_content_truncated"`
}

// Usage is the subset of the server's usage block kept in failure metadata; absent counts
// are omitted.
type Usage struct {
	CompletionTokens *int `json:"completion_tokens,omitempty"`
	PromptTokens     *int `json:"prompt_tokens,omitempty"`
	TotalTokens      *int `json:"total_tokens,omitempty"`
}

// MetricPopulation says which requests the metrics were computed from (10 keys).
type MetricPopulation struct {
	AggregateThroughputEligible  bool              `json:"aggregate_throughput_eligible"`
	AttemptedRequests            int               `json:"attempted_requests"`
	ExcludedRequests             int               `json:"excluded_requests"`
	FailurePolicy                string            `json:"failure_policy"`
	P99Interpretation            string            `json:"p99_interpretation"`
	P99InterpretationByMetric    map[string]string `json:"p99_interpretation_by_metric"`
	P99MinimumRecommendedSamples int               `json:"p99_minimum_recommended_samples"`
	P99SamplesByMetric           map[string]int    `json:"p99_samples_by_metric"`
	PerformanceEligibleRequests  int               `json:"performance_eligible_requests"`
	SuccessfulRequests           int               `json:"successful_requests"`
}

// P99MinimumSamples is the count from which a p99 is a tail estimate rather than the
// nearest rank of too few samples (metric_population).
const P99MinimumSamples = 100

// Sampling records what was asked for and what was sent for each sampling parameter.
type Sampling struct {
	Temperature SamplingParam `json:"temperature"`
	TopP        SamplingParam `json:"top_p"`
}

// SamplingParam is one sampling parameter: the operator's value (null when not
// configured), whether the field was in the request body, and the value sent.
type SamplingParam struct {
	EffectiveRequest *Float `json:"effective_request"`
	Requested        *Float `json:"requested"`
	Sent             bool   `json:"sent"`
}

// ServeFlags are the serving-side controls of the run (4 keys).
type ServeFlags struct {
	NoThinking        bool    `json:"no_thinking"`
	ReasoningEffort   *string `json:"reasoning_effort"`
	SharedPrefixBurst bool    `json:"shared_prefix_burst"`
	ThinkingMode      string  `json:"thinking_mode"`
}

// TimingMethodology holds one sentence per figure saying exactly what it measures (13 keys).
type TimingMethodology struct {
	ArtifactTimestamps    string `json:"artifact_timestamps"`
	Clock                 string `json:"clock"`
	ControlledOutput      string `json:"controlled_output"`
	Decode                string `json:"decode"`
	Distributions         string `json:"distributions"`
	EffectivePrefill      string `json:"effective_prefill"`
	Generation            string `json:"generation"`
	MeanInterTokenLatency string `json:"mean_inter_token_latency"`
	P99                   string `json:"p99"`
	RequestCanaries       string `json:"request_canaries"`
	TimeToFirstOutput     string `json:"time_to_first_output"`
	TPOT                  string `json:"tpot"`
	TTFT                  string `json:"ttft"`
}

// Run is the run the artifact belongs to as the verdict names it: anvilbench's run id
// (anvilbench.run_id, "run-..."), else the v1 run_id ("benchmark-...") of an artifact
// written outside a run.
func (b *Benchmark) Run() string {
	if b.Extension != nil && b.Extension.RunID != "" {
		return b.Extension.RunID
	}
	return b.RunID
}
