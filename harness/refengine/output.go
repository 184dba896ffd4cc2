package refengine

import (
	"math"
	"regexp"
	"strconv"
)

// The controlled-output instruction and canary marker, as internal/workload phrases them.
var (
	wordsRe  = regexp.MustCompile(`exactly (\d+) words, each the lowercase word "([^"]+)"`)
	markerRe = regexp.MustCompile(`Begin your reply with the marker (ANVIL_REQ_-?\d+_\d+) followed by a space\.`)
)

// defaultReply is the answer to a prompt without a controlled-output instruction: 12 tokens.
var defaultReply = []string{"Hello", "!", " This", " is", " the", " anvil", " reference",
	" engine", " speaking", " to", " you", "."}

// maxWords caps the requested word count so token arithmetic cannot overflow.
const maxWords = 1 << 30

// Finish reasons.
const (
	finishStop      = "stop"
	finishLength    = "length"
	finishToolCalls = "tool_calls"
)

// plan is the token sequence of one reply, generated lazily so an instruction asking for a
// huge number of words costs nothing: reasoning tokens, then head tokens, then words copies
// of word, then extras "extraK" words, then the end-of-sequence token (text ""); a leaked
// marker may be inserted among the head and word tokens. Only the first tokens of it are
// produced.
type plan struct {
	reasoning int // reasoning tokens before the reply
	head      []string
	word      string // the first repeated word when head is empty
	spaced    string // " " + word
	words     int
	extras    int
	bare      bool     // the first word follows the head without a space (a JSON string's start)
	tail      []string // tokens after the words and extras, before the EOS (a JSON object's end)
	leak      string   // the token of a leaked marker ("" = none), at reply position leakAt
	leakAt    int
	endless   bool   // "code", " code", ... forever after the reasoning
	tokens    int    // tokens produced, EOS included when reached: min(natural length, maxTokens)
	finish    string // finishStop when the EOS is produced, finishLength when cut, "" when endless
}

// planSpec is what a reply depends on.
type planSpec struct {
	instruction string // the last user message or the prompt
	own         string // the request's marker in instruction (requestMarker), "" for none
	faults      Faults
	maxTokens   int
	reasoning   int                     // reasoning tokens before the reply (0 = no thinking)
	other       func(own string) string // another request's marker (SwapMarkers, LeakMarker)
	json        bool                    // the reply is {"words": "..."} (a tool call's arguments, or a JSON answer)
}

// The JSON object a structured reply is, around its words.
const (
	jsonHead = `{"words": "`
	jsonTail = `"}`
)

// newPlan builds the reply to instruction, applying the faults, capped at maxTokens
// completion tokens, without reasoning.
func newPlan(instruction string, f Faults, maxTokens int) plan {
	return buildPlan(planSpec{instruction: instruction, own: requestMarker(instruction), faults: f, maxTokens: maxTokens})
}

// requestMarker is the marker instruction asks the reply to begin with, "" for none. The
// instruction can hold the whole prompt, so it is searched once per request.
func requestMarker(instruction string) string {
	if m := markerRe.FindStringSubmatch(instruction); m != nil {
		return m[1]
	}
	return ""
}

// buildPlan builds the reply of sp.
func buildPlan(sp planSpec) plan {
	p := plan{reasoning: sp.reasoning}
	f := sp.faults
	other := sp.other
	if other == nil {
		other = nextMarker
	}
	if f.Endless {
		p.endless, p.tokens = true, math.MaxInt
		return p
	}
	own := sp.own
	if own != "" {
		marker := own
		if f.SwapMarkers {
			marker = other(own)
		}
		p.head = []string{marker}
	}
	if sp.json {
		p.head, p.bare = []string{jsonHead}, true
		if !f.BadToolArguments {
			p.tail = []string{jsonTail}
		}
	}
	if m := wordsRe.FindStringSubmatch(sp.instruction); m != nil {
		n, err := strconv.Atoi(m[1])
		if err != nil || n > maxWords { // as good as infinite: max_tokens ends it
			n = maxWords
		}
		p.word, p.spaced = m[2], " "+m[2]
		p.words = max(0, n-f.MissingWords)
		p.extras = f.ExtraWords
	} else {
		p.head = append(p.head, defaultReply...)
		if own != "" {
			p.head[1] = " " + p.head[1]
		}
	}
	reply := len(p.head) + p.words + p.extras + len(p.tail)
	if f.LeakMarker {
		p.leakAt = min(reply, max(1, reply/2))
		p.leak = other(own)
		if p.leakAt > 0 {
			p.leak = " " + p.leak
		}
		reply++
	}
	natural := p.reasoning + reply + 1
	if sp.maxTokens >= natural {
		p.tokens, p.finish = natural, finishStop
	} else {
		p.tokens, p.finish = max(0, sp.maxTokens), finishLength
	}
	return p
}

// isReasoning tells whether token i is a reasoning token.
func (p *plan) isReasoning(i int) bool { return i < p.reasoning }

// reasoningProduced is the number of reasoning tokens among the first n tokens.
func (p *plan) reasoningProduced(n int) int { return min(n, p.reasoning) }

// text returns the text of token i (0 <= i < natural length); the EOS token is "".
func (p *plan) text(i int) string {
	if i < p.reasoning {
		return reasoningToken(i)
	}
	i -= p.reasoning
	if p.endless {
		if i == 0 {
			return "code"
		}
		return " code"
	}
	if p.leak != "" {
		if i == p.leakAt {
			return p.leak
		}
		if i > p.leakAt {
			i--
		}
	}
	if i < len(p.head) {
		return p.head[i]
	}
	i -= len(p.head)
	if i < p.words {
		if i == 0 && (len(p.head) == 0 || p.bare) {
			return p.word
		}
		return p.spaced
	}
	i -= p.words
	if i < p.extras {
		w := "extra" + strconv.Itoa(i+1)
		if i == 0 && (len(p.head) == 0 || p.bare) && p.words == 0 {
			return w
		}
		return " " + w
	}
	i -= p.extras
	if i < len(p.tail) {
		return p.tail[i]
	}
	return ""
}
