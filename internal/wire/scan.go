package wire

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// DecodeFast parses the common shapes of a streamed chunk without encoding/json and without
// allocating: an object whose members choices (an array of objects with delta.content,
// delta.reasoning_content, delta.reasoning, a null delta.tool_calls, text and
// finish_reason), usage (prompt_tokens, completion_tokens, total_tokens,
// prompt_tokens_details.cached_tokens), error, object and message are read, every other
// member being skipped but checked to be valid JSON.
//
// It gives up (false, c in an unspecified state) on anything where encoding/json's result
// could differ or which it would reject: invalid JSON, a member of the wrong type, a
// non-integer or too long count, a duplicated member, a key that matches a member only
// case-insensitively (encoding/json's matching) or has escapes or non-ASCII bytes, invalid
// UTF-8 in a kept string, nesting deeper than maxSkipDepth, a top-level value that is not an
// object. decode then falls back to encoding/json, which decides.
//
// Kept strings are views into data when they have no escapes, else into c.scratch;
// escapes are decoded as encoding/json does (an invalid surrogate becomes U+FFFD).
func (c *Chunk) DecodeFast(data []byte) bool {
	choices := c.Choices[:0]
	*c = Chunk{Choices: choices, scratch: c.scratch[:0]}
	s := scanner{data: data, c: c, scratch: &c.scratch}
	s.ws()
	if !s.top() {
		return false
	}
	s.ws()
	return s.i == len(s.data)
}

// maxIntDigits is the longest integer optInt takes: it cannot overflow an int.
const maxIntDigits = 9 + 9*(strconv.IntSize/64)

// maxSkipDepth bounds the nesting of skipped values (encoding/json allows 10000).
const maxSkipDepth = 128

type scanner struct {
	data []byte
	i    int
	c    *Chunk
	// scratch receives unescaped strings: the decoded value's own buffer.
	scratch *[]byte
}

// Member bits, for duplicate detection.
const (
	mChoices = 1 << iota
	mUsage
	mError
	mObject
	mMessage
	mModel
	mMetrics
	mTimings
)

const (
	mDelta = 1 << iota
	mText
	mFinish
)

const (
	mContent = 1 << iota
	mReasoningContent
	mReasoning
	mToolCalls
)

const (
	mPrompt = 1 << iota
	mCompletion
	mTotal
	mDetails
	mCompletionDetails
)

var (
	topMembers               = []string{"choices", "usage", "error", "object", "message", "model", "metrics", "timings"}
	choiceMembers            = []string{"delta", "text", "finish_reason"}
	deltaMembers             = []string{"content", "reasoning_content", "reasoning", "tool_calls"}
	usageMembers             = []string{"prompt_tokens", "completion_tokens", "total_tokens", "prompt_tokens_details", "completion_tokens_details"}
	detailsMembers           = []string{"cached_tokens"}
	completionDetailsMembers = []string{"reasoning_tokens"}
)

func (s *scanner) ws() {
	i, data := s.i, s.data
	for i < len(data) && data[i] <= ' ' && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	s.i = i
}

// Byte classes inside strings.
const (
	plainByte = iota
	stopByte  // '"', '\\' or a control character
	highByte  // part of a non-ASCII character
)

var stringClass = func() (t [256]uint8) {
	for c := range 256 {
		switch {
		case c == '"' || c == '\\' || c < 0x20:
			t[c] = stopByte
		case c >= utf8.RuneSelf:
			t[c] = highByte
		}
	}
	return t
}()

// plainRun returns the end of the run of plain and non-ASCII bytes of data from i, and
// whether it held non-ASCII bytes.
func plainRun(data []byte, i int) (int, bool) {
	high := false
	for i < len(data) {
		switch stringClass[data[i]] {
		case plainByte:
			i++
			continue
		case highByte:
			high = true
			i++
			continue
		}
		break
	}
	return i, high
}

// byte_ consumes c if it is next.
func (s *scanner) byte_(c byte) bool {
	if s.i < len(s.data) && s.data[s.i] == c {
		s.i++
		return true
	}
	return false
}

// literal consumes lit if it is next.
func (s *scanner) literal(lit string) bool {
	if len(s.data)-s.i >= len(lit) && string(s.data[s.i:s.i+len(lit)]) == lit {
		s.i += len(lit)
		return true
	}
	return false
}

func (s *scanner) null() bool { return s.literal("null") }

// optObject opens an object that may be null: open is true after its '{', false for null
// (which leaves the destination as it is, as encoding/json does) or anything else, and ok
// is false only for anything else.
func (s *scanner) optObject() (open, ok bool) {
	if s.null() {
		return false, true
	}
	open = s.byte_('{')
	return open, open
}

// members parses an object's members after its '{', calling member for each key with the
// scanner at the value (whitespace skipped); member returns false to give up.
func (s *scanner) members(member func(key []byte) bool) bool {
	s.ws()
	if s.byte_('}') {
		return true
	}
	for {
		key, ok := s.key()
		if !ok {
			return false
		}
		s.ws()
		if !s.byte_(':') {
			return false
		}
		s.ws()
		if !member(key) {
			return false
		}
		s.ws()
		if s.byte_(',') {
			s.ws()
			continue
		}
		return s.byte_('}')
	}
}

// key parses an object key: plain ASCII without escapes, else gives up.
func (s *scanner) key() ([]byte, bool) {
	data := s.data
	i := s.i
	if i >= len(data) || data[i] != '"' {
		return nil, false
	}
	i++
	start := i
	for i < len(data) && stringClass[data[i]] == plainByte {
		i++
	}
	if i >= len(data) || data[i] != '"' {
		return nil, false // an escape, a control or non-ASCII character, or no end
	}
	s.i = i + 1
	return data[start:i], true
}

// unknown skips the value of a key that is no member, unless encoding/json would match the
// key to a member case-insensitively.
func (s *scanner) unknown(key []byte, members []string) bool {
	for _, m := range members {
		if len(m) == len(key) && asciiEqualFold(key, m) {
			return false
		}
	}
	return s.skip(0)
}

func asciiEqualFold(b []byte, s string) bool {
	for i := range len(b) {
		x, y := b[i], s[i]
		if x == y {
			continue
		}
		if x|0x20 != y|0x20 || x|0x20 < 'a' || x|0x20 > 'z' {
			return false
		}
	}
	return true
}

// once records member bit m in seen, false when it was already there.
func once(seen *int, m int) bool {
	if *seen&m != 0 {
		return false
	}
	*seen |= m
	return true
}

func (s *scanner) top() bool {
	if !s.byte_('{') {
		return false
	}
	c := s.c
	seen := 0
	return s.members(func(key []byte) bool {
		switch string(key) {
		case "choices":
			return once(&seen, mChoices) && s.choices()
		case "usage":
			return once(&seen, mUsage) && s.usage()
		case "error":
			return once(&seen, mError) && s.raw(&c.Error)
		case "object":
			return once(&seen, mObject) && s.optString(&c.Object)
		case "message":
			return once(&seen, mMessage) && s.optString(&c.Message)
		case "model":
			return once(&seen, mModel) && s.lenientString(&c.Model)
		case "metrics":
			return once(&seen, mMetrics) && s.raw(&c.Metrics)
		case "timings":
			return once(&seen, mTimings) && s.raw(&c.Timings)
		}
		return s.unknown(key, topMembers)
	})
}

// raw points dst at a value's bytes, as encoding/json fills a json.RawMessage; null leaves
// it nil.
func (s *scanner) raw(dst *json.RawMessage) bool {
	if s.null() {
		return true
	}
	start := s.i
	if !s.skip(0) {
		return false
	}
	*dst = s.data[start:s.i]
	return true
}

func (s *scanner) choices() bool {
	if s.null() {
		return true
	}
	if !s.byte_('[') {
		return false
	}
	c := s.c
	s.ws()
	if !s.byte_(']') {
		for {
			c.Choices = append(c.Choices, Choice{})
			if !s.null() && !s.choice(&c.Choices[len(c.Choices)-1]) {
				return false
			}
			s.ws()
			if s.byte_(',') {
				s.ws()
				continue
			}
			if !s.byte_(']') {
				return false
			}
			break
		}
	}
	for i := range c.Choices {
		if ch := &c.Choices[i]; ch.FinishReason != nil {
			ch.FinishReason = &ch.finish // after the last append moved the array
		}
	}
	return true
}

func (s *scanner) choice(ch *Choice) bool {
	if !s.byte_('{') {
		return false
	}
	seen := 0
	return s.members(func(key []byte) bool {
		switch string(key) {
		case "delta":
			return once(&seen, mDelta) && s.delta(ch)
		case "text":
			return once(&seen, mText) && s.optString(&ch.Text)
		case "finish_reason":
			if !once(&seen, mFinish) {
				return false
			}
			if s.null() {
				return true
			}
			v, ok := s.string_()
			ch.finish, ch.FinishReason = v, &ch.finish
			return ok
		}
		return s.unknown(key, choiceMembers)
	})
}

func (s *scanner) delta(ch *Choice) bool {
	if open, ok := s.optObject(); !open {
		return ok
	}
	seen := 0
	return s.members(func(key []byte) bool {
		switch string(key) {
		case "content":
			return once(&seen, mContent) && s.optString(&ch.Delta.Content)
		case "reasoning_content":
			return once(&seen, mReasoningContent) && s.optString(&ch.Delta.ReasoningContent)
		case "reasoning":
			return once(&seen, mReasoning) && s.optString(&ch.Delta.Reasoning)
		case "tool_calls":
			// null is common (SGLang sends it with every delta); a call is rare enough
			// to leave to encoding/json.
			return once(&seen, mToolCalls) && s.null()
		}
		return s.unknown(key, deltaMembers)
	})
}

func (s *scanner) usage() bool {
	if open, ok := s.optObject(); !open {
		return ok
	}
	c := s.c
	u := &c.usage
	c.Usage = u
	seen := 0
	return s.members(func(key []byte) bool {
		switch string(key) {
		case "prompt_tokens":
			return once(&seen, mPrompt) && s.optInt(&u.PromptTokens, &c.counts[0])
		case "completion_tokens":
			return once(&seen, mCompletion) && s.optInt(&u.CompletionTokens, &c.counts[1])
		case "total_tokens":
			return once(&seen, mTotal) && s.optInt(&u.TotalTokens, &c.counts[2])
		case "completion_tokens_details":
			if !once(&seen, mCompletionDetails) {
				return false
			}
			if open, ok := s.optObject(); !open {
				return ok
			}
			d := &c.completionDetails
			u.CompletionTokensDetails = d
			dseen := 0
			return s.members(func(key []byte) bool {
				if string(key) == "reasoning_tokens" {
					return once(&dseen, 1) && s.optInt(&d.ReasoningTokens, &c.counts[4])
				}
				return s.unknown(key, completionDetailsMembers)
			})
		case "prompt_tokens_details":
			if !once(&seen, mDetails) {
				return false
			}
			if open, ok := s.optObject(); !open {
				return ok
			}
			d := &c.details
			u.PromptTokensDetails = d
			dseen := 0
			return s.members(func(key []byte) bool {
				if string(key) == "cached_tokens" {
					return once(&dseen, 1) && s.optInt(&d.CachedTokens, &c.counts[3])
				}
				return s.unknown(key, detailsMembers)
			})
		}
		return s.unknown(key, usageMembers)
	})
}

// optString parses a string or null (which leaves dst as it is, as encoding/json does).
func (s *scanner) optString(dst *string) bool {
	if s.null() {
		return true
	}
	v, ok := s.string_()
	*dst = v
	return ok
}

// lenientString reads a string into dst and skips any other value, as Name's
// UnmarshalJSON does. A string the fast path cannot take gives up: encoding/json decides.
func (s *scanner) lenientString(dst *Name) bool {
	if s.i < len(s.data) && s.data[s.i] == '"' {
		v, ok := s.string_()
		*dst = Name(v)
		return ok
	}
	return s.skip(0)
}

// optInt parses an integer into slot and points dst at it, or null, which sets dst nil.
// Numbers with a fraction or exponent, and integers of more than maxIntDigits digits, give up:
// encoding/json decides whether they fit.
func (s *scanner) optInt(dst **int, slot *int) bool {
	if s.null() {
		*dst = nil
		return true
	}
	neg := s.byte_('-')
	start := s.i
	v := 0
	for s.i < len(s.data) && s.data[s.i] >= '0' && s.data[s.i] <= '9' {
		v = v*10 + int(s.data[s.i]-'0')
		s.i++
	}
	n := s.i - start
	if n == 0 || n > maxIntDigits || (n > 1 && s.data[start] == '0') {
		return false
	}
	if s.i < len(s.data) {
		if c := s.data[s.i]; c == '.' || c == 'e' || c == 'E' {
			return false
		}
	}
	if neg {
		v = -v
	}
	*slot, *dst = v, slot
	return true
}

// view is b as a string without a copy; b must not change while the string is in use.
func view(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// object scans the whole of the data as one JSON object whose members member takes one by
// one (false gives up); it reports whether all of it was taken.
func (s *scanner) object(member func(key []byte) bool) bool {
	s.ws()
	if !s.byte_('{') || !s.members(member) {
		return false
	}
	s.ws()
	return s.i == len(s.data)
}
