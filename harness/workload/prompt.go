// Package workload builds the requests of a capacity run: seeded prompts of a planned token
// size, the controlled-output instruction, request canary markers, and the scorers that
// check a response against them.
package workload

import (
	"errors"
	"fmt"
	"strconv"
)

// DefaultCharsPerToken is the client's estimate of prompt characters per server token,
// used to size prompts without a tokenizer (the original tool's constant).
const DefaultCharsPerToken = 3.0

// CodeWord is the word a controlled-output response must repeat.
const CodeWord = "code"

// PromptVersion names the prompt text; it changes whenever the bytes of a prompt change, so
// prompt-token counts are comparable only between runs of the same version.
const PromptVersion = "anvil-prompt/1"

// MinPromptTokens is the smallest planned context a prompt is built for.
const MinPromptTokens = 32

// ErrContextTooSmall is returned when the planned size cannot hold the instruction.
var ErrContextTooSmall = errors.New("context target is too small for the benchmark prompt envelope")

// Prompts builds the prompt of each request. The zero value is not usable; set
// CharsPerToken (DefaultCharsPerToken when unsure).
type Prompts struct {
	// Seed makes every prompt of a run distinct from every prompt of a run with another seed.
	Seed int64
	// CharsPerToken converts planned tokens to characters.
	CharsPerToken float64
	// ResponseWords is the number of code words each response is told to give; 0 asks for a
	// one-line summary instead.
	ResponseWords int
	// Canaries tells each response to begin with its request's marker.
	Canaries bool
}

// Prompt returns request index's prompt for a planned context of tokens. Its length is
// exactly int(tokens*CharsPerToken) bytes (all ASCII). It is unique from its first line on:
// the first line names the seed and index, so no prefix cache can serve one request from
// another.
func (p Prompts) Prompt(index, tokens int) (string, error) {
	total := int(float64(tokens) * p.CharsPerToken)
	tail := p.Instruction(index)
	head := "# anvil request " + strconv.FormatInt(p.Seed, 10) + ":" + strconv.Itoa(index) + "\n"
	if total < len(head)+len(tail) {
		return "", fmt.Errorf("%w: %d tokens (%d characters) cannot hold %d characters", ErrContextTooSmall, tokens, total, len(head)+len(tail))
	}
	buf := make([]byte, 0, total+128) // room for the last filler line before it is cut
	buf = append(buf, head...)
	buf = appendFiller(buf, total-len(tail), index)
	buf = append(buf[:total-len(tail)], tail...)
	return string(buf), nil
}

// appendFiller appends code-like lines until buf holds at least limit bytes. The helper
// numbering starts at the request's own offset so filler differs between requests too.
func appendFiller(buf []byte, limit, index int) []byte {
	offset := index * 1_000_003
	for k := 0; len(buf) < limit; k++ {
		buf = append(buf, "def helper_"...)
		buf = strconv.AppendInt(buf, int64(offset+k), 10)
		buf = append(buf, "():\n    return compute("...)
		buf = strconv.AppendInt(buf, int64(k), 10)
		buf = append(buf, ")  # routine specialist context\n"...)
	}
	return buf
}

// Instruction is the closing instruction of request index's prompt.
func (p Prompts) Instruction(index int) string {
	if p.ResponseWords <= 0 {
		return "\n# request " + strconv.Itoa(index) + ": summarize the above in one line."
	}
	s := "\n\nIgnore the code above. "
	if p.Canaries {
		s += "Begin your reply with the marker " + Marker(p.Seed, index) + " followed by a space. "
	}
	return s + "Reply with exactly " + strconv.Itoa(p.ResponseWords) + ` words, each the lowercase word "` + CodeWord + `", separated by single spaces, and nothing else.`
}

// Marker is request index's canary marker, ANVIL_REQ_{seed}_{index:05d}.
func Marker(seed int64, index int) string {
	return fmt.Sprintf("ANVIL_REQ_%d_%05d", seed, index)
}
