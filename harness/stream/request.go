package stream

import (
	"encoding/json"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Paths under the base URL.
const (
	ChatPath        = "/chat/completions"
	CompletionsPath = "/completions"
)

// ChatRequest is the body of one streamed chat completion.
type ChatRequest struct {
	Model     string
	Prompt    string
	MaxTokens int
	// Temperature and TopP are sent when non-nil.
	Temperature, TopP *float64
	// ChatTemplateKwargs is sent as chat_template_kwargs when non-nil.
	ChatTemplateKwargs map[string]any
	// ReasoningEffort is sent as reasoning_effort when non-empty.
	ReasoningEffort string
	// Legacy sends the prompt to the legacy /v1/completions endpoint instead of as a user
	// message to /v1/chat/completions.
	Legacy bool
	// ContinuousUsage asks for usage in every chunk (vLLM's continuous_usage_stats), which
	// attributes tokens to chunks when an engine sends several per chunk.
	ContinuousUsage bool
}

// Path is where the request goes under the base URL.
func (r ChatRequest) Path() string {
	if r.Legacy {
		return CompletionsPath
	}
	return ChatPath
}

type wireMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// Body encodes the request with stream: true and stream_options.include_usage, so the
// final chunk carries the server's token counts.
func (r ChatRequest) Body() ([]byte, error) { return r.AppendBody(nil) }

// AppendBody appends the JSON body (see Body) to dst, so a caller can encode requests
// into a recycled buffer: a 64k-token prompt is some 200 KB each time. It writes what
// json.Marshal of the request would mean, key for key, without its intermediate copies.
func (r ChatRequest) AppendBody(dst []byte) ([]byte, error) {
	dst = slices.Grow(dst, len(r.Prompt)+len(r.Prompt)/16+256)
	dst = append(dst, `{"model":`...)
	dst = appendJSONString(dst, r.Model)
	if r.Legacy {
		if r.Prompt != "" {
			dst = append(dst, `,"prompt":`...)
			dst = appendJSONString(dst, r.Prompt)
		}
	} else {
		dst = append(dst, `,"messages":[{"role":"user","content":`...)
		dst = appendJSONString(dst, r.Prompt)
		dst = append(dst, "}]"...)
	}
	dst = append(dst, `,"max_tokens":`...)
	dst = strconv.AppendInt(dst, int64(r.MaxTokens), 10)
	for _, f := range []struct {
		key string
		v   *float64
	}{{`,"temperature":`, r.Temperature}, {`,"top_p":`, r.TopP}} {
		if f.v == nil {
			continue
		}
		if math.IsNaN(*f.v) || math.IsInf(*f.v, 0) {
			return nil, fmt.Errorf("encode chat request: %s is not a finite number", strings.Trim(f.key, `,":`))
		}
		dst = append(dst, f.key...)
		dst = strconv.AppendFloat(dst, *f.v, 'g', -1, 64)
	}
	dst = append(dst, `,"stream":true,"stream_options":{"include_usage":true`...)
	if r.ContinuousUsage {
		dst = append(dst, `,"continuous_usage_stats":true`...)
	}
	dst = append(dst, '}')
	if len(r.ChatTemplateKwargs) > 0 {
		kwargs, err := json.Marshal(r.ChatTemplateKwargs)
		if err != nil {
			return nil, fmt.Errorf("encode chat request: %w", err)
		}
		dst = append(dst, `,"chat_template_kwargs":`...)
		dst = append(dst, kwargs...)
	}
	if r.ReasoningEffort != "" {
		dst = append(dst, `,"reasoning_effort":`...)
		dst = appendJSONString(dst, r.ReasoningEffort)
	}
	return append(dst, '}'), nil
}

// plainPrefix is how many leading bytes of s (all but the last few, which the caller
// tests one by one) are ASCII that JSON carries as they are: no control character, quote
// or backslash. It tests eight at a time: a prompt of 64,000 tokens is 256 KB to encode
// before its request is sent.
func plainPrefix(s string) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	n := 0
	for len(s) >= 8 {
		_ = s[7]
		x := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
		quote, backslash := x^('"'*ones), x^('\\'*ones)
		// Each term sets a byte's high bit where it is below 0x20, a quote or a backslash;
		// exact whenever no byte of x has its own high bit set, which x itself tests.
		special := (x - 0x20*ones) & ^x
		special |= (quote - ones) & ^quote
		special |= (backslash - ones) & ^backslash
		if stop := (special | x) & highs; stop != 0 {
			// A borrow only runs upwards from a true hit, so the lowest flag is exact.
			return n + bits.TrailingZeros64(stop)/8
		}
		s, n = s[8:], n+8
	}
	return n
}

// appendJSONString appends s as a JSON string: quotes, backslashes and control characters
// escaped, invalid UTF-8 replaced by U+FFFD, as encoding/json does (it also escapes <, >
// and &, which means the same).
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if i += plainPrefix(s[i:]); i == len(s) {
			break
		}
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
