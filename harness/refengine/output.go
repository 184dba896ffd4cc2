package refengine

import (
	"regexp"
	"strconv"
)

// The controlled-output instruction and canary marker, as harness/workload phrases them.
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
	finishStop   = "stop"
	finishLength = "length"
)

// plan is the token sequence of one reply, generated lazily so an instruction asking for a
// huge number of words costs nothing: head tokens, then words copies of word, then extras
// "extraK" words, then the end-of-sequence token (text ""). Only the first tokens of it are
// produced.
type plan struct {
	head   []string
	word   string // the first repeated word when head is empty
	spaced string // " " + word
	words  int
	extras int
	tokens int    // tokens produced, EOS included when reached: min(natural length, maxTokens)
	finish string // finishStop when the EOS is produced, else finishLength
}

// newPlan builds the reply to instruction (the last user message or the prompt), applying
// the faults, capped at maxTokens completion tokens.
func newPlan(instruction string, f Faults, maxTokens int) plan {
	var p plan
	marker := ""
	if m := markerRe.FindStringSubmatch(instruction); m != nil {
		marker = m[1]
		p.head = []string{marker}
	}
	if m := wordsRe.FindStringSubmatch(instruction); m != nil {
		n, err := strconv.Atoi(m[1])
		if err != nil || n > maxWords { // as good as infinite: max_tokens ends it
			n = maxWords
		}
		p.word, p.spaced = m[2], " "+m[2]
		p.words = max(0, n-f.MissingWords)
		p.extras = f.ExtraWords
	} else {
		p.head = append(p.head, defaultReply...)
		if marker != "" {
			p.head[1] = " " + p.head[1]
		}
	}
	natural := len(p.head) + p.words + p.extras + 1
	if maxTokens >= natural {
		p.tokens, p.finish = natural, finishStop
	} else {
		p.tokens, p.finish = max(0, maxTokens), finishLength
	}
	return p
}

// text returns the text of token i (0 <= i < natural length); the EOS token is "".
func (p *plan) text(i int) string {
	if i < len(p.head) {
		return p.head[i]
	}
	i -= len(p.head)
	if i < p.words {
		if i == 0 && len(p.head) == 0 {
			return p.word
		}
		return p.spaced
	}
	i -= p.words
	if i < p.extras {
		w := "extra" + strconv.Itoa(i+1)
		if i == 0 && len(p.head) == 0 && p.words == 0 {
			return w
		}
		return " " + w
	}
	return ""
}
