package artifact

// SendSplit splits each successful request's TTFT where its last byte left this host: the
// client's send before (connection, writing the request, the kernel's send path), the
// network, the engine's queue and prefill after.
type SendSplit struct {
	// Source is "kernel-transmit" (the kernel's software transmit stamp, SO_TIMESTAMPING)
	// or "none", with Note saying why.
	Source string `json:"source"`
	Note   string `json:"note"`
	// Stamped counts the successful requests with a stamp.
	Stamped int `json:"stamped"`
	// ClientSendMs is from each request's start to its stamp; ServerTTFTMs is its TTFT
	// after the stamp. Null without stamps.
	ClientSendMs *Percentiles `json:"client_send_ms"`
	ServerTTFTMs *Percentiles `json:"server_ttft_ms"`
}

// Send sources.
const (
	SendKernelTransmit = "kernel-transmit"
	SendNone           = "none"
)

// Clock records how a run's events were stamped: Source is "kernel-receive" (the kernel's
// receive timestamp of the bytes, SO_TIMESTAMPNS), "user-space-read" (when the read that
// delivered them returned) or "mixed", with the reads of response bodies stamped each way.
type Clock struct {
	Source             string `json:"source"`
	KernelStampedReads int    `json:"kernel_stamped_reads"`
	UserStampedReads   int    `json:"user_stamped_reads"`
}

// Arrival models.
const (
	ArrivalClosedLoop = "closed-loop" // each of concurrency workers starts its next request when one ends
	ArrivalBurst      = "burst"       // every request released at one instant
	ArrivalPoisson    = "poisson"     // open loop, exponential gaps at a mean rate
	ArrivalConstant   = "constant"    // open loop, evenly spaced at a rate
)

// Arrival records the arrival model. For an open loop, the v1 latencies stay service
// latencies (from each request's actual start); IntendedTTFT and IntendedE2E are measured
// from the intended start, so queueing in the client is not hidden, and ScheduleLag is the
// difference.
type Arrival struct {
	Model      string `json:"model"`
	RatePerSec *Float `json:"rate_per_sec"`
	Seed       *int64 `json:"seed"`
	// MaxInFlight caps concurrent requests (the concurrency); 0 for none.
	MaxInFlight     int          `json:"max_in_flight"`
	ScheduleLagMs   *Percentiles `json:"schedule_lag_ms"`
	IntendedTTFTMs  *Percentiles `json:"intended_ttft_ms"`
	IntendedE2EMs   *Percentiles `json:"intended_e2e_ms"`
	ServiceTTFTMs   *Percentiles `json:"service_ttft_ms"`
	AchievedRateSec *Float       `json:"achieved_rate_per_sec"`
}

// Percentiles is a nearest-rank summary of one latency.
type Percentiles struct {
	Samples int   `json:"samples"`
	P50     Float `json:"p50"`
	P95     Float `json:"p95"`
	P99     Float `json:"p99"`
	Max     Float `json:"max"`
}

// ITL bases.
const (
	ITLPerChunk = "per-chunk"
	ITLPerToken = "per-token"
)

// ITLSummary pools the gaps between consecutive output chunks of the successful requests
// (the first output excluded). Basis is "per-chunk" when a gap is one sample whatever the
// chunk held, or "per-token" when the engine reported usage in every chunk: a gap of a
// chunk with k tokens then gives k samples of gap/k.
type ITLSummary struct {
	Basis   string `json:"basis"`
	Samples int    `json:"samples"`
	// SharedReadGaps counts the gaps between two chunks that one read delivered, pooled as
	// 0: the engine sent them together, or the second arrived before the client read the
	// first, and then the first one's arrival is unknown. A read has one stamp; the
	// kernel's is that of its newest bytes, as segments queued unread merge and keep the
	// later stamp.
	SharedReadGaps int    `json:"shared_read_gaps"`
	MeanMs         *Float `json:"mean_ms"`
	P50Ms          *Float `json:"p50_ms"`
	P90Ms          *Float `json:"p90_ms"`
	P95Ms          *Float `json:"p95_ms"`
	P99Ms          *Float `json:"p99_ms"`
	MaxMs          *Float `json:"max_ms"`
	// TokensPerChunk is the mean completion tokens per output chunk, from usage; null
	// without usage.
	TokensPerChunk *Float `json:"tokens_per_chunk"`
	// ChunkTokens counts the output chunks by the completion tokens each carried ("1": 40,
	// "3": 260): a speculative decoder's accepted lengths as the client saw them. Only with
	// usage in every chunk (continuous usage stats); null otherwise.
	ChunkTokens map[string]int `json:"chunk_tokens,omitempty"`
	// Note says, when chunks carried several tokens and the engine did not say how many
	// came with the first, how far tpot may read low; "" otherwise.
	Note string `json:"note"`
}

// ClientOverhead is what the harness itself cost during the request phase.
type ClientOverhead struct {
	// DispatchDelay is, per request, from the moment it was due (its worker took it, or the
	// burst was released) to its start: prompt building and encoding.
	DispatchDelayP50Ms *Float `json:"dispatch_delay_p50_ms"`
	DispatchDelayMaxMs *Float `json:"dispatch_delay_max_ms"`
	// EventLag is, per event, from the read that delivered it to the end of its processing.
	EventLagMeanUs *Float `json:"event_lag_mean_us"`
	EventLagMaxUs  *Float `json:"event_lag_max_us"`
	// CPUSharePct is the process's CPU time over the wall time of the Cores it may use, in
	// percent: 100 is every one of them busy for the whole request phase.
	CPUSharePct *Float `json:"cpu_share_pct"`
	// Cores is how many cores the process may use: its CPU affinity, at most GOMAXPROCS.
	Cores int `json:"cores"`
	// CPUWaitPct is how long the process's threads waited, runnable, for a core (Linux
	// schedstat run-queue time) over the wall time of its Cores, in percent: beside
	// CPUSharePct it is the CPU the client wanted and did not get. Null where the kernel
	// does not say.
	CPUWaitPct *Float `json:"cpu_wait_pct"`
	// StartLag is, per request, from when it could start to when it did: in a closed loop
	// from the arrival of the last bytes of its worker's previous response (or the start of
	// the request phase), in an open loop from its scheduled instant (or, when the cap on
	// requests in flight held it back, from the moment a slot freed), in a burst from the
	// release. It is the client's own delay: reading, judging and building the next request,
	// and waiting for a core. Null when no request was sent.
	StartLagP99Ms   *Float `json:"start_lag_p99_ms"`
	StartLagMaxMs   *Float `json:"start_lag_max_ms"`
	StartLagSamples int    `json:"start_lag_samples"`
	// StartLagSharePct is the start lag summed over the sent requests, over the same sum
	// plus their time from start to end, in percent: how much of the time the workload
	// meant a request to be in flight it was waiting on the client instead. A closed loop
	// then held fewer requests in flight than its concurrency; an open loop fell behind its
	// schedule.
	StartLagSharePct *Float `json:"start_lag_share_pct"`
	// GCCycles counts the garbage collections during the request phase; the collector is
	// held off then (up to a memory limit), so it is 0 unless the run allocated a lot.
	GCCycles *int `json:"gc_cycles"`
	// Bottleneck is set when the client, not the engine, may have limited the figures
	// (CPU share above 80%, or an event lag above 1 ms where it can have delayed a stamp:
	// user-space stamps, or a read that carried several chunks); Reason says which.
	Bottleneck bool   `json:"bottleneck"`
	Reason     string `json:"reason"`
}
