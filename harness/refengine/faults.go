package refengine

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// FaultsHeader is the request header that overrides Options.Faults for one request. Its value
// is Faults.String's format, e.g. "extra_words=2,missing_words=0,truncate_after=5"; keys left
// out are zero, so the header replaces the server's faults entirely. Several faults may be
// combined ("no_done=1,usage_with_finish=1"). A malformed value gets 400.
const FaultsHeader = "X-Anvil-Faults"

// maxHugeEvent bounds Faults.HugeEvent, in bytes.
const maxHugeEvent = 64 << 20

// Faults is injected misbehaviour, used to prove that clients detect it. The zero value is
// a well-behaved server. "Tokens" below are completion tokens as streamed, reasoning tokens
// included; a fault that acts "after k tokens" acts right after the chunk holding token k (a
// chunk boundary is forced there when TokensPerChunk > 1), and 0 turns it off. Unless noted,
// the wire faults only affect streamed responses.
type Faults struct {
	// ExtraWords appends this many extra non-code words ("extra1", "extra2", ...) to a
	// controlled-output reply, before the end-of-sequence token. Header key extra_words.
	ExtraWords int
	// MissingWords emits this many fewer code words than the instruction asks (not below 0).
	// Header key missing_words.
	MissingWords int
	// TruncateAfter ends the response after this many completion tokens, cleanly at the HTTP
	// level but with no finish_reason, no usage and no [DONE] (a non-streamed response gets a
	// cut JSON body). It has no effect when the reply is not longer. Header key truncate_after.
	TruncateAfter int

	// ReasoningOnly makes a chat request think (see Options.ThinkByDefault) until max_tokens:
	// no content is ever sent and finish_reason is "length". Header key reasoning_only.
	ReasoningOnly bool
	// SwapMarkers makes a reply that should begin with its canary marker begin with the marker
	// of another request in flight instead (the most recent one; else the last request seen;
	// else the own marker with the index plus one). Header key swap_markers.
	SwapMarkers bool
	// LeakMarker keeps the reply's own beginning but inserts another request's marker (chosen
	// as for SwapMarkers) as one extra word in the middle of the reply. Header key leak_marker.
	LeakMarker bool

	// HTTPStatus, when non-zero (400..599), answers at once with that status and an
	// OpenAI-style JSON error body; 429 also carries "Retry-After: 1". Streamed or not.
	// Header key http_status.
	HTTPStatus int
	// Redirect, when set, answers at once with 307 Temporary Redirect to this URL (no commas
	// or blanks; HTTPStatus wins when both are set). Streamed or not. Header key redirect.
	Redirect string
	// ResetAfter resets the TCP connection (RST, no FIN) after this many tokens, so the
	// client sees ECONNRESET or an unexpected EOF. A non-streamed request is reset instead of
	// answered. Header key reset_after.
	ResetAfter int
	// CloseMidEvent, after this many tokens, writes half an event
	// (`data: {"choices":[{"delta":`) and ends the response cleanly. Header key close_mid_event.
	CloseMidEvent int
	// MalformedAfter, after this many tokens, sends one event whose data is not JSON
	// (`data: {not json}`), then continues normally. Header key malformed_after.
	MalformedAfter int
	// StallAfter, after this many tokens, sends nothing for StallFor, then continues (every
	// later deadline moves by StallFor). Streamed or not. Set both or neither. Header key
	// stall_after.
	StallAfter int
	// StallFor is the silence of StallAfter. Header key stall_for, a Go duration ("2s").
	StallFor time.Duration
	// Endless ignores max_tokens and the instruction and streams "code", " code", ...
	// forever: no finish_reason ever comes, the response ends only when the client goes away
	// (or the server closes). Streamed or not (a non-streamed request is never answered).
	// Header key endless.
	Endless bool
	// HugeEvent, when non-zero, sends one extra content event, right after the first token's
	// chunk, whose content is this many 'x' bytes (at most MaxHugeEvent); it does not count
	// in usage. Header key huge_event.
	HugeEvent int
	// InvalidUTF8 puts the raw bytes 0xff 0xfe inside the JSON string of the first content
	// chunk, as broken servers do. Header key invalid_utf8.
	InvalidUTF8 bool
	// HeadersWithFirstToken holds the response headers back until the first token is ready
	// and flushes them with the role chunk and the first token at once, as Ollama and
	// llama.cpp do (by default they go out at once, as vLLM's do). Header key
	// headers_with_first_token.
	HeadersWithFirstToken bool
	// NoUsage drops every usage object even when one was asked for: no final usage chunk, no
	// per-chunk usage (null instead), no "usage" member in a non-streamed body. Header key
	// no_usage.
	NoUsage bool
	// NoDone ends a stream after its finish (and usage) chunk without "data: [DONE]". Header
	// key no_done.
	NoDone bool
	// UsageWithFinish puts the final usage in the chunk carrying finish_reason instead of a
	// separate choices:[] chunk, as some engines do. Header key usage_with_finish.
	UsageWithFinish bool
	// ErrorEvent, after the first token's chunk, sends
	// `data: {"error":{"message":"engine crashed","code":500}}` and ends the response
	// (no finish_reason, no [DONE]). Header key error_event.
	ErrorEvent bool
	// BadToolArguments leaves the closing `"}` off a tool call's arguments or a JSON
	// answer, so they are not valid JSON. Header key bad_tool_arguments.
	BadToolArguments bool
	// DropHistory reads only the last message of a chat request, as an engine that loses a
	// conversation's earlier turns would: fewer prompt tokens, none found cached. Header
	// key drop_history.
	DropHistory bool
}

// faultKeys maps each FaultsHeader key to its field, in String's order. The first three are
// always written (the historical format); the others only when set.
var faultKeys = []struct {
	key   string
	field func(f *Faults) any // *int, *bool, *time.Duration or *string
}{
	{"extra_words", func(f *Faults) any { return &f.ExtraWords }},
	{"missing_words", func(f *Faults) any { return &f.MissingWords }},
	{"truncate_after", func(f *Faults) any { return &f.TruncateAfter }},
	{"reasoning_only", func(f *Faults) any { return &f.ReasoningOnly }},
	{"swap_markers", func(f *Faults) any { return &f.SwapMarkers }},
	{"leak_marker", func(f *Faults) any { return &f.LeakMarker }},
	{"http_status", func(f *Faults) any { return &f.HTTPStatus }},
	{"redirect", func(f *Faults) any { return &f.Redirect }},
	{"reset_after", func(f *Faults) any { return &f.ResetAfter }},
	{"close_mid_event", func(f *Faults) any { return &f.CloseMidEvent }},
	{"malformed_after", func(f *Faults) any { return &f.MalformedAfter }},
	{"stall_after", func(f *Faults) any { return &f.StallAfter }},
	{"stall_for", func(f *Faults) any { return &f.StallFor }},
	{"endless", func(f *Faults) any { return &f.Endless }},
	{"huge_event", func(f *Faults) any { return &f.HugeEvent }},
	{"invalid_utf8", func(f *Faults) any { return &f.InvalidUTF8 }},
	{"headers_with_first_token", func(f *Faults) any { return &f.HeadersWithFirstToken }},
	{"no_usage", func(f *Faults) any { return &f.NoUsage }},
	{"no_done", func(f *Faults) any { return &f.NoDone }},
	{"usage_with_finish", func(f *Faults) any { return &f.UsageWithFinish }},
	{"error_event", func(f *Faults) any { return &f.ErrorEvent }},
	{"bad_tool_arguments", func(f *Faults) any { return &f.BadToolArguments }},
	{"drop_history", func(f *Faults) any { return &f.DropHistory }},
}

// String formats f as a FaultsHeader value: extra_words, missing_words and truncate_after
// always, every other key only when set (booleans as 1, StallFor as a Go duration).
func (f Faults) String() string {
	var sb strings.Builder
	for i, k := range faultKeys {
		var val string
		switch p := k.field(&f).(type) {
		case *int:
			if *p != 0 || i < 3 {
				val = strconv.Itoa(*p)
			}
		case *bool:
			if *p {
				val = "1"
			}
		case *time.Duration:
			if *p != 0 {
				val = p.String()
			}
		case *string:
			val = *p
		}
		if val == "" {
			continue
		}
		if sb.Len() > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(k.key)
		sb.WriteByte('=')
		sb.WriteString(val)
	}
	return sb.String()
}

// parseFaults parses a FaultsHeader value: comma-separated key=value pairs, the keys listed
// on the Faults fields. Counts are non-negative integers, booleans 1/0/true/false, stall_for
// a Go duration, redirect a URL. An empty value is the zero Faults; a key given twice takes
// its last value.
func parseFaults(s string) (Faults, error) {
	var f Faults
	for field := range strings.SplitSeq(s, ",") {
		field = strings.TrimSpace(field)
		if field == "" {
			continue
		}
		key, val, ok := strings.Cut(field, "=")
		if !ok {
			return Faults{}, fmt.Errorf("parse faults %q: %q is not key=value", s, field)
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if err := f.set(key, val); err != nil {
			return Faults{}, fmt.Errorf("parse faults %q: %w", s, err)
		}
	}
	if err := f.validate(); err != nil {
		return Faults{}, fmt.Errorf("parse faults %q: %w", s, err)
	}
	return f, nil
}

// set assigns val to the field of key.
func (f *Faults) set(key, val string) error {
	for _, k := range faultKeys {
		if k.key != key {
			continue
		}
		var err error
		switch p := k.field(f).(type) {
		case *int:
			*p, err = strconv.Atoi(val)
		case *bool:
			*p, err = strconv.ParseBool(val)
		case *time.Duration:
			*p, err = time.ParseDuration(val)
		case *string:
			*p = val
		}
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		return nil
	}
	return fmt.Errorf("unknown key %q", key)
}

func (f Faults) validate() error {
	var errs []error
	if f.ExtraWords < 0 || f.MissingWords < 0 || f.TruncateAfter < 0 || f.ResetAfter < 0 ||
		f.CloseMidEvent < 0 || f.MalformedAfter < 0 || f.StallAfter < 0 || f.HugeEvent < 0 {
		errs = append(errs, errors.New("fault counts must not be negative"))
	}
	if f.HTTPStatus != 0 && (f.HTTPStatus < 400 || f.HTTPStatus > 599) {
		errs = append(errs, fmt.Errorf("fault http_status %d is not in 400..599", f.HTTPStatus))
	}
	if f.StallFor < 0 || (f.StallAfter > 0) != (f.StallFor > 0) {
		errs = append(errs, fmt.Errorf("fault stall_after %d and stall_for %v must be set together (stall_for positive)",
			f.StallAfter, f.StallFor))
	}
	if f.HugeEvent > maxHugeEvent {
		errs = append(errs, fmt.Errorf("fault huge_event %d exceeds %d bytes", f.HugeEvent, maxHugeEvent))
	}
	if f.Redirect != "" {
		if err := validRedirect(f.Redirect); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// validRedirect accepts a URL that fits in a Location header and in a FaultsHeader value.
func validRedirect(s string) error {
	if strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r == ',' || r == 0x7f }) {
		return fmt.Errorf("fault redirect %q: commas, blanks and control characters are not allowed", s)
	}
	if _, err := url.Parse(s); err != nil {
		return fmt.Errorf("fault redirect: %w", err)
	}
	return nil
}

// immediateStatus is the status an HTTPStatus or Redirect fault answers with (0 = none).
func (f Faults) immediateStatus() int {
	switch {
	case f.HTTPStatus != 0:
		return f.HTTPStatus
	case f.Redirect != "":
		return http.StatusTemporaryRedirect
	}
	return 0
}
