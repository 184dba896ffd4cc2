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
	// OverheadTokens is what the server adds to every prompt (the chat template); it is
	// taken off the planned size before converting to characters.
	OverheadTokens float64
	// ResponseWords is the number of code words each response is told to give; 0 asks for a
	// one-line summary instead.
	ResponseWords int
	// Canaries tells each response to begin with its request's marker.
	Canaries bool
	// SharedPrefix, when set (see SharedPrefix), starts every prompt byte for byte.
	SharedPrefix string
}

// Chars is the number of characters a prompt of the planned tokens has.
func (p Prompts) Chars(tokens int) int {
	return int((float64(tokens) - p.OverheadTokens) * p.CharsPerToken)
}

// Prompt returns request index's prompt for a planned context of tokens: exactly
// Chars(tokens) bytes, all ASCII. After the shared prefix (if any) it is unique from its
// first line on: that line names the seed and index, so no prefix cache can serve one
// request from another beyond the shared prefix.
func (p Prompts) Prompt(index, tokens int) (string, error) {
	total := p.Chars(tokens)
	tail := p.Instruction(index)
	head := p.SharedPrefix + "# anvil request " + strconv.FormatInt(p.Seed, 10) + ":" + strconv.Itoa(index) + "\n"
	if total < len(head)+len(tail) {
		return "", fmt.Errorf("%w: %d tokens (%d characters) cannot hold %d characters", ErrContextTooSmall, tokens, total, len(head)+len(tail))
	}
	buf := make([]byte, 0, total+128) // room for the last filler line before it is cut
	buf = append(buf, head...)
	buf = appendFiller(buf, total-len(tail), index)
	buf = append(buf[:total-len(tail)], tail...)
	return string(buf), nil
}

// SharedPrefixText is the byte-identical prefix of a shared-prefix run: tokens planned
// tokens of filler (0 gives ""), unique to the seed, ending in a newline.
func (p Prompts) SharedPrefixText(tokens int) string {
	if tokens <= 0 {
		return ""
	}
	total := int(float64(tokens) * p.CharsPerToken)
	head := "# anvil shared prefix " + strconv.FormatInt(p.Seed, 10) + "\n"
	buf := append(make([]byte, 0, total+128), head...)
	buf = appendFiller(buf, total-1, sharedPrefixIndex)
	return string(append(buf[:max(total-1, len(head))], '\n'))
}

// sharedPrefixIndex numbers the shared prefix's filler apart from every request's.
const sharedPrefixIndex = 999_999

// appendFiller appends code-like lines until buf holds at least limit bytes. Numbers are
// zero-padded so every line has the same length and the same token shape whatever the
// request index: a calibration measured on one prompt then holds for all of them.
func appendFiller(buf []byte, limit, index int) []byte {
	for k := 0; len(buf) < limit; k++ {
		buf = append(buf, "def helper_"...)
		buf = appendPadded(buf, index%1_000_000)
		buf = append(buf, '_')
		buf = appendPadded(buf, k%1_000_000)
		buf = append(buf, "():\n    return compute("...)
		buf = appendPadded(buf, k%1_000_000)
		buf = append(buf, ")  # routine specialist context\n"...)
	}
	return buf
}

// appendPadded appends v (0 <= v < 1e6) as six digits.
func appendPadded(buf []byte, v int) []byte {
	for d := 100_000; d > 0; d /= 10 {
		buf = append(buf, byte('0'+v/d%10))
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
