// Package workload builds the requests of a capacity run: seeded prompts of a planned token
// size, the controlled-output instruction, request canary markers, and the scorers that
// check a response against them.
package workload

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
)

// DefaultCharsPerToken is the client's estimate of prompt characters per server token,
// used to size prompts without a tokenizer (the original tool's constant).
const DefaultCharsPerToken = 3.0

// codeWord is the word a controlled-output response must repeat.
const codeWord = "code"

// promptVersion names the prompt text; it changes whenever the bytes of a prompt change, so
// prompt-token counts are comparable only between runs of the same version.
const promptVersion = "anvil-prompt/3"

// MinPromptTokens is the smallest planned context a prompt is built for.
const MinPromptTokens = 32

// errContextTooSmall is returned when the planned size cannot hold the instruction.
var errContextTooSmall = errors.New("context target is too small for the benchmark prompt envelope")

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
	// IndexWidth is the number of digits of the run's largest request index. A prompt whose
	// index has fewer is shorter by the difference, so the filler after its first line is
	// the same bytes, cut at the same place, in every request: only the index's own digits
	// set two requests' token counts apart. (Cut one byte apart, a filler line can lose two
	// tokens on a BPE.)
	IndexWidth int
	// Output is what the response is asked to hold the words in: the text (the default), a
	// call of RecordWordsTool, or a JSON object.
	Output Output
	// Nonce, when set, follows the seed and index on every prompt's first line and heads the
	// shared prefix: one per run, so no run or scenario finds its prompts in a prefix cache
	// another one warmed (see Prompt). Lowercase letters, the same for every request of a
	// run, so it shifts every request's token count alike.
	Nonce string
}

// Chars is the number of characters a prompt of the planned tokens has.
func (p Prompts) Chars(tokens int) int {
	return int((float64(tokens) - p.OverheadTokens) * p.CharsPerToken)
}

// Prompt returns request index's prompt for a planned context of tokens: Chars(tokens)
// bytes (less the digits its index has fewer than IndexWidth), all ASCII. After the shared
// prefix (if any) its first line names the seed, index and run nonce, and that line alone
// makes it unique: prefix caches (vLLM's hashed blocks, SGLang's radix tree, llama.cpp's
// slot reuse) match a prompt from its first token and each block's key covers everything
// before it, so once the first line differs no later block can be served from another
// request, however alike the rest is. The filler after it is the same for every request,
// so every request of one planned size has the same token count on any tokenizer (the
// first line differs by a few digits): one calibration holds for all of them. Where it
// would not hold: a cache that reuses chunks at any position (LMCache's CacheBlend,
// position-independent caching) would find the filler of one request in another's;
// HaveColdPrefixCache, and the run's summary, catch such an engine when it reports cached
// tokens.
func (p Prompts) Prompt(index, tokens int) (string, error) {
	buf, err := p.AppendPrompt(nil, index, tokens)
	return string(buf), err
}

// AppendPrompt appends request index's prompt (see Prompt) to dst, so that a caller can
// build prompts in a recycled buffer.
func (p Prompts) AppendPrompt(dst []byte, index, tokens int) ([]byte, error) {
	total := p.Chars(tokens)
	tail := p.Instruction(index)
	var lineBuf [64]byte
	line := append(lineBuf[:0], requestLine...)
	line = strconv.AppendInt(line, p.Seed, 10)
	line = append(line, ':')
	before := len(line)
	line = strconv.AppendInt(line, int64(index), 10)
	total -= max(p.IndexWidth-(len(line)-before), 0)
	if p.Nonce != "" {
		line = append(line, " run "...)
		line = append(line, p.Nonce...)
	}
	line = append(line, '\n')
	if envelope := len(p.SharedPrefix) + len(line) + len(tail); total < envelope {
		return dst, fmt.Errorf("%w: %d tokens (%d characters) cannot hold %d characters", errContextTooSmall, tokens, total, envelope)
	}
	base := len(dst)
	dst = slices.Grow(dst, total+len(fillerLine)) // room for the last filler line before it is cut
	dst = append(dst, p.SharedPrefix...)
	dst = append(dst, line...)
	for len(dst)-base < total-len(tail) {
		dst = append(dst, fillerLine...)
	}
	return append(dst[:base+total-len(tail)], tail...), nil
}

// requestLine starts the line that makes a prompt unique:
// "# anvil request <seed>:<index>[ run <nonce>]".
const requestLine = "# anvil request "

// SharedPrefixText is the byte-identical prefix of a shared-prefix run: tokens planned
// tokens of filler (0 gives ""), unique to the seed, ending in a newline.
func (p Prompts) SharedPrefixText(tokens int) string {
	if tokens <= 0 {
		return ""
	}
	total := int(float64(tokens) * p.CharsPerToken)
	head := "# anvil shared prefix " + strconv.FormatInt(p.Seed, 10)
	if p.Nonce != "" {
		head += " run " + p.Nonce
	}
	head += "\n"
	buf := append(make([]byte, 0, total+len(fillerLine)), head...)
	buf = appendFiller(buf, total-1)
	return string(append(buf[:max(total-1, len(head))], '\n'))
}

// fillerLine is the code-like text every prompt is padded with. It holds no digits and no
// request number: digit runs are where real tokenizers differ most (a BPE merges a run of
// zeros unlike other digits), and one line repeated gives a token count linear in its
// length on any tokenizer, which is what a two-point calibration fits.
const fillerLine = "def helper(context, value):\n    return compute(context, value)  # routine specialist context\n"

// appendFiller appends filler lines until buf holds at least limit bytes.
func appendFiller(buf []byte, limit int) []byte {
	for len(buf) < limit {
		buf = append(buf, fillerLine...)
	}
	return buf
}

// Instruction is the closing instruction of request index's prompt.
func (p Prompts) Instruction(index int) string { return p.instruction(index, p.ResponseWords) }

// instruction is the closing instruction of request index's prompt, asking for words code
// words in the form p.Output names.
func (p Prompts) instruction(index, words int) string {
	if words <= 0 {
		return "\n# request " + strconv.Itoa(index) + ": summarize the above in one line."
	}
	s := "\n\nIgnore the code above. "
	if p.Canaries {
		s += "Begin your reply with the marker " + Marker(p.Seed, index) + " followed by a space. "
	}
	exactly := "exactly " + strconv.Itoa(words) + ` words, each the lowercase word "` + codeWord + `", separated by single spaces`
	switch p.Output {
	case OutputToolCall:
		return s + "Call the function " + RecordWordsTool + " once, with its " + wordsMember + " argument holding " + exactly + ", and reply with nothing else."
	case OutputJSON:
		return s + "Reply with a JSON object whose " + wordsMember + " member holds " + exactly + ", and nothing else."
	}
	return s + "Reply with " + exactly + ", and nothing else."
}

// Marker is request index's canary marker, ANVIL_REQ_{seed}_{index:05d}.
func Marker(seed int64, index int) string {
	return fmt.Sprintf("ANVIL_REQ_%d_%05d", seed, index)
}

// SessionSystem is session's system message: its first line names the seed, the session
// and the run's nonce, so no session shares a prefix with another, then filler to chars
// bytes.
func (p Prompts) SessionSystem(session, chars int) string {
	head := "# anvil session " + strconv.FormatInt(p.Seed, 10) + ":" + strconv.Itoa(session)
	if p.Nonce != "" {
		head += " run " + p.Nonce
	}
	buf := appendFiller(append(make([]byte, 0, chars+len(fillerLine)), head+"\n"...), chars)
	return string(buf[:max(chars, len(head)+1)])
}

// SessionTurn is the user message of a session's turn: its session and number, filler to
// chars bytes in all, then the instruction of request index to answer with words code
// words. Naming the session keeps one session's turn from sharing a prefix with
// another's even where the history before it is lost.
func (p Prompts) SessionTurn(index, session, turn, chars, words int) string {
	tail := p.instruction(index, words)
	head := "# session " + strconv.Itoa(session) + " turn " + strconv.Itoa(turn+1) + "\n"
	buf := appendFiller(append(make([]byte, 0, chars+len(fillerLine)), head...), chars-len(tail))
	buf = buf[:max(chars-len(tail), len(head))]
	return string(append(buf, tail...))
}
