package capacity

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/capacity/internal/stream"
	"github.com/anvilbench/anvilbench/harness/capacity/internal/workload"
)

// outcome is one request's end: exactly one of row and failure is set.
type outcome struct {
	row     *artifact.RequestTiming
	failure *artifact.Failure
	// cachedTokens is usage.prompt_tokens_details.cached_tokens and promptTokens
	// usage.prompt_tokens, of a success or a failure (a failure's still shows whether the
	// endpoint reports them, and what it was sent).
	cachedTokens, promptTokens *int
	// sent is the request start; zero when the request was never sent. due is an open-loop
	// request's intended start; zero in a closed loop. ready is when it could have started
	// (see artifact.ClientOverhead's StartLag); end is when it ended: the arrival of its
	// last bytes, or the moment it failed.
	sent, due, ready, end time.Time
	// firstOutput is when its first output arrived; zero when none did.
	firstOutput time.Time
	// answer is a session turn's visible answer, which the next turn sends back.
	answer string
	// structureProblem is what was wrong with a kept tool call or JSON answer (observe).
	structureProblem string
	// firstToolCall is when its first tool-call fragment arrived; zero when none did.
	firstToolCall time.Time
	// transmitted is when the request's last byte left this host; zero without a stamp.
	transmitted time.Time
	// usage and reasoning record what the stream showed of the endpoint's capabilities.
	usage, reasoning bool
	// dispatch is from when the request was due to its start; lag, lagMax and events are
	// the client's per-event processing (see stream.Result).
	dispatch, lag, lagMax time.Duration
	events                int
	// kernelReads and userReads count the body's reads stamped by the kernel or on return.
	kernelReads, userReads int
	// model is the model the response's chunks named; "" when none did.
	model string
	// arrivals and arrivalTokens of a success feed the pooled ITL.
	arrivals      []time.Duration
	arrivalTokens []int
	// firstChunkTokens is set when per-chunk usage counted the first chunk's tokens.
	firstChunkTokens *int
	// reasoningTokens is the usage's reasoning tokens; nil when it split none.
	reasoningTokens *int
	// phases is the engine's own account of the request's time; nil when its API gave none.
	phases *artifact.EnginePhases
	// abandoned is set for a request the client left as planned: neither row nor failure.
	abandoned bool
}

// Harness-raised error types and messages (the messages are the original tool's).
const (
	kindPrompt           = "prompt_error"
	kindNoVisibleContent = "no_visible_content"
	kindControlledOutput = "controlled_output_mismatch"
	kindCanary           = "request_canary_mismatch"
	kindStructuredOutput = "structured_output_mismatch"
	msgNoVisibleContent  = "stream completed without visible content"
)

// requestUnits are the units of the kinds whose requests stand alone (independent
// prompts, a trace's lines): unit k is request indices[k], its prompt built by prompt.
type requestUnits struct {
	r      *run
	prompt func(dst []byte, r *run, i int) ([]byte, error)
}

// start sends request indices[k] and judges it (see startFunc): stream validity, then the
// canary, then the strict controlled-output gate.
func (u requestUnits) start(ctx context.Context, k int, due, ready time.Time) time.Time {
	r := u.r
	i, began := r.indices[k], time.Now()
	o := u.send(ctx, i, began, cmp.Or(due, began))
	o.due, o.ready = due, ready
	r.outcomes[k] = o
	r.progress.record(o)
	return o.end
}

// send builds request i and sends it, due at due; a run already interrupted sends nothing.
func (u requestUnits) send(ctx context.Context, i int, began, due time.Time) outcome {
	if err := ctx.Err(); err != nil {
		return u.r.requestError(i, u.r.plan[i].context, began, stream.KindCancelled, "not sent: run interrupted: "+context.Cause(ctx).Error())
	}
	body, failed := u.prepare(i, began)
	if failed != nil {
		return *failed
	}
	return u.r.send(ctx, i, began, due, body)
}

// Prompts and bodies are built in recycled buffers: at a 64k-token context each is some
// 200 KB per request, garbage the request phase would otherwise pile up.
var prompts, bodies = sync.Pool{New: newBuffer}, sync.Pool{New: newBuffer}

func newBuffer() any {
	b := make([]byte, 0, 16<<10)
	return &b
}

func recycle(pool *sync.Pool, buf *[]byte) {
	*buf = (*buf)[:0]
	pool.Put(buf)
}

// prepare builds request i's body in a recycled buffer, which send gives back; a prompt
// that cannot be built is its outcome.
func (u requestUnits) prepare(i int, began time.Time) (*[]byte, *outcome) {
	r := u.r
	promptBuf := prompts.Get().(*[]byte)
	defer recycle(&prompts, promptBuf)
	prompt, err := u.prompt((*promptBuf)[:0], r, i)
	*promptBuf = prompt
	if err == nil {
		body := bodies.Get().(*[]byte)
		// The request reads the prompt through a view: AppendBody copies it before the
		// prompt's buffer goes back.
		req := r.sc.request(unsafe.String(unsafe.SliceData(prompt), len(prompt)))
		req.MaxTokens = r.plan[i].maxTokens
		for _, f := range r.features {
			if err = f.body(r, i, &req); err != nil {
				break
			}
		}
		if err == nil {
			*body, err = req.AppendBody((*body)[:0])
		}
		if err == nil {
			return body, nil
		}
		recycle(&bodies, body)
	}
	o := r.requestError(i, r.plan[i].context, began, kindPrompt, err.Error())
	return nil, &o
}

// send streams a prepared request and judges it. due is when it should have started. The
// body's buffer is recycled once the transport is done with it.
func (r *run) send(ctx context.Context, i int, began, due time.Time, body *[]byte) outcome {
	if err := ctx.Err(); err != nil {
		recycle(&bodies, body)
		return r.requestError(i, r.plan[i].context, began, stream.KindCancelled, "not sent: run interrupted: "+context.Cause(ctx).Error())
	}
	call := stream.Call{TraceParent: r.traceParent(i)}
	for _, f := range r.features {
		if !r.warming {
			f.call(r, i, &call)
		}
	}
	res, err := r.client.StreamRecycled(ctx, r.sc.API.wire(), *body, r.plan[i].maxTokens, call, func() { recycle(&bodies, body) })
	o := r.judge(i, r.plan[i].context, began, res, err)
	o.end = time.Now()
	if !res.Start.IsZero() && res.End > 0 {
		o.end = res.Start.Add(res.End)
	}
	if r.keepAnswers && o.row != nil {
		o.answer = strings.Clone(res.Content) // before Release gives the capture away
	}
	res.Release() // the content is judged: its capture serves the next stream
	o.sent, o.usage, o.reasoning = res.Start, res.Usage != nil, res.ReasoningChunks > 0
	if res.Usage != nil && res.Usage.ReasoningTokens != nil {
		o.reasoningTokens = new(*res.Usage.ReasoningTokens)
	}
	if res.HasFirstOutput {
		o.firstOutput = res.Start.Add(res.FirstOutput)
	}
	if res.HasFirstToolCall {
		o.firstToolCall = res.Start.Add(res.FirstToolCall)
	}
	if res.HasSent {
		o.transmitted = res.Start.Add(res.Sent)
	}
	if p := res.Phases; p != nil {
		o.phases = enginePhases(*p)
	}
	o.lag, o.lagMax, o.events = res.EventLag, res.EventLagMax, res.Events
	o.kernelReads, o.userReads, o.model = res.KernelStampedReads, res.UserStampedReads, res.Model
	if !res.Start.IsZero() {
		o.dispatch = res.Start.Sub(due)
	}
	if len(res.ArrivalTokens) > 0 {
		o.firstChunkTokens = new(firstChunkTokens(res))
	}
	if o.row != nil {
		o.arrivals, o.arrivalTokens = res.Arrivals, res.ArrivalTokens
	}
	if res.Usage != nil {
		o.cachedTokens, o.promptTokens = res.Usage.CachedTokens, nonNegative(res.Usage.PromptTokens)
	}
	return o
}

// judge turns a finished stream into the request's outcome.
func (r *run) judge(i, planned int, began time.Time, res *stream.Result, err error) outcome {
	if err == nil && res.Abandoned {
		return outcome{abandoned: true}
	}
	if err != nil {
		kind := stream.KindRead
		var se *stream.Error
		if errors.As(err, &se) {
			kind = se.Kind
		}
		if !res.Streamed {
			return r.requestError(i, planned, began, kind, err.Error())
		}
		return r.responseFailure(i, planned, began, res, artifact.FailureStreamValidation, kind, err.Error(), nil, nil)
	}
	if !res.HasFirstContent {
		return r.responseFailure(i, planned, began, res, artifact.FailureStreamValidation, kindNoVisibleContent, msgNoVisibleContent, nil, nil)
	}
	if r.sc.Output != OutputText {
		return r.judgeStructured(i, planned, began, res)
	}

	complete := !res.ContentTruncated
	var marker string
	var canary *artifact.RequestCanary
	if r.sc.RequestCanaries {
		marker = workload.Marker(r.sc.ContextSeed, i)
		c := workload.CheckCanary(res.Content, complete, marker)
		canary = &c
	}
	var co *artifact.ControlledOutput
	if words := r.plan[i].words; words > 0 {
		c := workload.ScoreControlledOutput(res.Content, complete, words, workload.Policy(r.sc.Policy), marker)
		co = &c
	}
	if canary != nil && !canary.Passed {
		return r.responseFailure(i, planned, began, res, artifact.FailureRequestCanary, kindCanary, canaryMessage(canary), co, canary)
	}
	if co != nil && r.sc.Policy == PolicyStrict && !co.Passed {
		return r.responseFailure(i, planned, began, res, artifact.FailureControlledOutput, kindControlledOutput, controlledOutputMessage(co), co, canary)
	}
	row := timingRow(res, i, planned)
	if row == nil {
		return r.responseFailure(i, planned, began, res, artifact.FailureStreamValidation, stream.KindMalformed, "stream timing is inconsistent (first output after first content or after the end)", co, canary)
	}
	row.ControlledOutput, row.RequestCanary = co, canary
	return outcome{row: row}
}

// judgeStructured judges a tool-call or JSON answer: its structure (one call of the tool,
// valid JSON, the schema's one member), then its words. Under strict either miss fails
// the request, naming what was wrong.
func (r *run) judgeStructured(i, planned int, began time.Time, res *stream.Result) outcome {
	words := r.plan[i].words
	var co artifact.ControlledOutput
	var problem string
	if r.sc.Output == OutputTool {
		calls := make([]workload.Call, len(res.ToolCalls))
		for k, c := range res.ToolCalls {
			calls[k] = workload.Call{Name: c.Name, Arguments: c.Arguments, Truncated: c.ArgumentsTruncated}
		}
		co, problem = workload.ScoreToolCalls(calls, res.Content, words, workload.Policy(r.sc.Policy))
	} else {
		co, problem = workload.ScoreJSONAnswer(res.Content, !res.ContentTruncated, words, workload.Policy(r.sc.Policy))
	}
	if problem != "" && slices.Contains(res.FinishReasons, "length") {
		problem += fmt.Sprintf(" (the response ended at max_tokens %d: finish_reason length)", r.plan[i].maxTokens)
	}
	strict := r.sc.Policy == PolicyStrict
	switch {
	case problem != "" && strict:
		return r.responseFailure(i, planned, began, res, artifact.FailureControlledOutput, kindStructuredOutput,
			"structured output validation failed: "+problem, &co, nil)
	case !co.Passed:
		return r.responseFailure(i, planned, began, res, artifact.FailureControlledOutput, kindControlledOutput, controlledOutputMessage(&co), &co, nil)
	}
	row := timingRow(res, i, planned)
	if row == nil {
		return r.responseFailure(i, planned, began, res, artifact.FailureStreamValidation, stream.KindMalformed, "stream timing is inconsistent (first output after first content or after the end)", &co, nil)
	}
	row.ControlledOutput = &co
	return outcome{row: row, structureProblem: problem}
}

func controlledOutputMessage(co *artifact.ControlledOutput) string {
	if !co.CaptureComplete {
		return fmt.Sprintf("controlled output validation failed: response longer than the %d-character capture, adherence unobservable", stream.CaptureLimit)
	}
	return fmt.Sprintf("controlled output validation failed: %d code words and %d other words, want exactly %d code words",
		co.ObservedCodeWords, co.ObservedExtraWords, co.RequestedWords)
}

func canaryMessage(c *artifact.RequestCanary) string {
	return fmt.Sprintf("request canary validation failed: marker %s at start %t, own markers %d, foreign markers %d, capture complete %t",
		c.Marker, c.MarkerAtStart, c.ObservedMarkerCount, c.ForeignMarkerCount, c.CaptureComplete)
}

// requestError records a request that got no stream to read.
func (r *run) requestError(i, planned int, began time.Time, kind, msg string) outcome {
	f := r.failure(i, planned, began, artifact.FailureRequestError, kind, msg)
	return outcome{failure: f, end: time.Now()}
}

// responseFailure records a request whose stream was read, keeping its sanitized timing
// and metadata for diagnosis.
func (r *run) responseFailure(i, planned int, began time.Time, res *stream.Result, class, kind, msg string, co *artifact.ControlledOutput, canary *artifact.RequestCanary) outcome {
	f := r.failure(i, planned, began, class, kind, msg)
	f.ResponseReceived = true
	f.ControlledOutput, f.RequestCanary = co, canary
	f.ResponseMetadata = metadata(res)
	f.ResponseTiming = artifact.OptionalTiming{Present: true, Row: timingRow(res, i, planned)}
	if f.ResponseTiming.Row != nil {
		f.ResponseTiming.Row.ControlledOutput, f.ResponseTiming.Row.RequestCanary = co, canary
	}
	return outcome{failure: f}
}

func (r *run) failure(i, planned int, began time.Time, class, kind, msg string) *artifact.Failure {
	msg, truncated := r.san.message(msg)
	return &artifact.Failure{
		ElapsedMs:             artifact.F(time.Since(began).Seconds() * 1000),
		ErrorMessage:          msg,
		ErrorMessageTruncated: truncated,
		ErrorType:             kind,
		FailureClass:          class,
		PlannedContextTokens:  new(planned),
		RequestIndex:          i,
	}
}

func metadata(res *stream.Result) *artifact.ResponseMetadata {
	m := &artifact.ResponseMetadata{
		ContentChunks:           res.ContentChunks,
		FinishReasons:           append([]string{}, res.FinishReasons...),
		OutputTokenSource:       outputTokenSource(res),
		ReasoningChunks:         res.ReasoningChunks,
		StreamTerminalObserved:  res.Terminal,
		VisibleContentTruncated: res.ContentTruncated,
	}
	if res.Usage != nil {
		m.Usage = artifact.Usage{
			CompletionTokens: nonNegative(res.Usage.CompletionTokens),
			PromptTokens:     nonNegative(res.Usage.PromptTokens),
			TotalTokens:      nonNegative(res.Usage.TotalTokens),
		}
	}
	return m
}

// structuredSummary counts what a tool-call or JSON-schema run's responses held.
func (r *run) structuredSummary(spans []artifact.RequestSpan) *artifact.StructuredOutput {
	if r.sc.Output == OutputText {
		return nil
	}
	out := &artifact.StructuredOutput{Output: string(r.sc.Output)}
	if r.sc.Output == OutputTool {
		out.Tool = workload.RecordWordsTool
	}
	for _, o := range r.outcomes {
		received := o.row != nil || (o.failure != nil && o.failure.ResponseReceived)
		if !received {
			continue
		}
		out.Responses++
		invalid := o.structureProblem != "" ||
			(o.failure != nil && (o.failure.ErrorType == kindStructuredOutput || o.failure.ErrorType == kindNoVisibleContent))
		if !invalid {
			out.Valid++
		}
	}
	if r.sc.Output == OutputTool {
		out.FirstToolCallMs = firstToolCalls(spans)
	}
	return out
}

// firstToolCalls summarizes the time to each request's first tool-call fragment, from the
// timeline.
func firstToolCalls(spans []artifact.RequestSpan) *artifact.Percentiles {
	var first []float64
	for _, s := range spans {
		if s.FirstToolCallMs != nil {
			first = append(first, float64(*s.FirstToolCallMs))
		}
	}
	return percentiles(first)
}

// noTransmitStamps says why a run's TTFT is not split.
const noTransmitStamps = "no transmit stamps: the kernel stamps a request's last byte on Linux only, with kernel timestamps on (ANVIL_KERNEL_TIMESTAMPS) and transmit stamps on (ANVIL_TRANSMIT_STAMPS)"

// sendSplit splits the successful requests' TTFT at their transmit stamps, from the
// timeline.
func sendSplit(spans []artifact.RequestSpan) artifact.SendSplit {
	var client, server []float64
	for _, s := range spans {
		if s.Outcome == "ok" && s.SentMs != nil && s.TTFTMs != nil {
			client = append(client, float64(*s.SentMs))
			server = append(server, float64(*s.TTFTMs)-float64(*s.SentMs))
		}
	}
	if len(client) == 0 {
		return artifact.SendSplit{Source: artifact.SendNone, Note: noTransmitStamps}
	}
	return artifact.SendSplit{Source: artifact.SendKernelTransmit, Stamped: len(client),
		ClientSendMs: percentiles(client), ServerTTFTMs: percentiles(server)}
}

// enginePhases is an engine's account of a request's time in the artifact's milliseconds.
func enginePhases(p stream.Phases) *artifact.EnginePhases {
	ms := func(d time.Duration) *artifact.Float {
		if d < 0 {
			return nil
		}
		return artifact.F(d.Seconds() * 1000)
	}
	return &artifact.EnginePhases{Source: p.Source, QueueMs: ms(p.Queue), LoadMs: ms(p.Load), PromptEvalMs: ms(p.PromptEval),
		EvalMs: ms(p.Eval), FirstTokenMs: ms(p.FirstToken), TotalMs: ms(p.Total)}
}

// beyondEngine is a request's TTFT less the engine's own account of it: its first token
// when stated, else the sum of the queue, load and prompt evaluation it states; nil when it
// states none of them.
func beyondEngine(ttftMs float64, p *artifact.EnginePhases) *artifact.Float {
	if p.FirstTokenMs != nil {
		return artifact.F(ttftMs - float64(*p.FirstTokenMs))
	}
	engine, stated := 0.0, false
	for _, f := range []*artifact.Float{p.QueueMs, p.LoadMs, p.PromptEvalMs} {
		if f != nil {
			engine, stated = engine+float64(*f), true
		}
	}
	if !stated {
		return nil
	}
	return artifact.F(ttftMs - engine)
}
