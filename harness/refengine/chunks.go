package refengine

import (
	"strconv"
	"unicode/utf8"
)

// doneEvent ends every complete stream.
var doneEvent = []byte("data: [DONE]\n\n")

// chunkEncoder builds the SSE events of one streamed response, vLLM's byte layout, by
// appending into one reused buffer: this is the per-token hot path, so no json.Marshal and,
// after the first chunk, no allocation. The returned slice is valid until the next call.
type chunkEncoder struct {
	buf    []byte
	head   []byte // `data: {"id":...,"object":...,"created":...,"model":...,"choices":[`
	legacy bool   // /v1/completions: choices[].text instead of choices[].delta
	usage  bool   // stream_options.include_usage: every chunk carries "usage":null
}

func newChunkEncoder(id, object, model string, created int64, legacy, usage bool) *chunkEncoder {
	h := make([]byte, 0, 96+len(id)+len(model))
	h = append(h, `data: {"id":`...)
	h = appendJSONString(h, id)
	h = append(h, `,"object":`...)
	h = appendJSONString(h, object)
	h = append(h, `,"created":`...)
	h = strconv.AppendInt(h, created, 10)
	h = append(h, `,"model":`...)
	h = appendJSONString(h, model)
	h = append(h, `,"choices":[`...)
	return &chunkEncoder{buf: make([]byte, 0, len(h)+160), head: h, legacy: legacy, usage: usage}
}

// role is the chat stream's first event, sent just before the first content chunk.
func (e *chunkEncoder) role() []byte {
	b := append(e.buf[:0], e.head...)
	b = append(b, `{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]`...)
	return e.end(b)
}

// content is a chunk carrying text; finish is "" (null) or the finish reason.
func content[T ~string | ~[]byte](e *chunkEncoder, text T, finish string) []byte {
	b := append(e.buf[:0], e.head...)
	if e.legacy {
		b = append(b, `{"index":0,"text":`...)
		b = appendJSONString(b, text)
		b = append(b, `,"logprobs":null,"finish_reason":`...)
	} else {
		b = append(b, `{"index":0,"delta":{"content":`...)
		b = appendJSONString(b, text)
		b = append(b, `},"logprobs":null,"finish_reason":`...)
	}
	if finish == "" {
		b = append(b, "null"...)
	} else {
		b = appendJSONString(b, finish)
	}
	b = append(b, "}]"...)
	return e.end(b)
}

// usageChunk is the final chunk of an include_usage stream: no choices, the token counts.
func (e *chunkEncoder) usageChunk(prompt, completion int) []byte {
	b := append(e.buf[:0], e.head...)
	b = append(b, `],"usage":{"prompt_tokens":`...)
	b = strconv.AppendInt(b, int64(prompt), 10)
	b = append(b, `,"total_tokens":`...)
	b = strconv.AppendInt(b, int64(prompt+completion), 10)
	b = append(b, `,"completion_tokens":`...)
	b = strconv.AppendInt(b, int64(completion), 10)
	b = append(b, `,"prompt_tokens_details":null}}`+"\n\n"...)
	e.buf = b
	return b
}

func (e *chunkEncoder) end(b []byte) []byte {
	if e.usage {
		b = append(b, `,"usage":null`...)
	}
	b = append(b, "}\n\n"...)
	e.buf = b
	return b
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string, escaped like Python's json/pydantic output
// (which vLLM uses): quotes, backslashes and control characters escaped, U+2028/U+2029 escaped,
// other non-ASCII written as UTF-8, invalid UTF-8 bytes replaced by \ufffd. Unlike
// strconv.AppendQuote the result is valid JSON.
func appendJSONString[T ~string | ~[]byte](b []byte, s T) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := decodeRune(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// decodeRune is utf8.DecodeRune for both string and []byte; only non-ASCII text reaches it.
func decodeRune[T ~string | ~[]byte](s T) (rune, int) {
	var p [utf8.UTFMax]byte
	n := copy(p[:], s)
	return utf8.DecodeRune(p[:n])
}
