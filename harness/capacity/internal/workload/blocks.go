package workload

import (
	"fmt"
	"hash/fnv"
	"strconv"
)

// blockWords are the words a block's first line is made of: four letters each, so that a
// block's first line has the same tokens whatever its id (a BPE holds such words whole,
// and the tokenizers of the reference engine count each as one token). "code", the
// controlled output's word, is not among them.
var blockWords = [64]string{
	"able", "acid", "aged", "also", "area", "army", "away", "baby", "back", "ball", "band", "bank",
	"base", "bath", "bear", "beat", "bell", "belt", "bird", "blue", "boat", "body", "bone", "book",
	"boot", "born", "bowl", "burn", "cake", "call", "calm", "camp", "card", "care", "cart", "case",
	"cash", "cast", "cell", "chat", "chip", "city", "club", "coal", "coat", "cold", "cook", "cool",
	"copy", "corn", "cost", "crew", "crop", "dark", "data", "date", "dawn", "deal", "dear", "deep",
	"desk", "dish", "door", "down",
}

// blockHeadWords is how many words a block's first line has: 30 bits of its id's hash.
const blockHeadWords = 5

// MinBlockChars is the bytes of a block's first line, which the last block of a trace
// request must have room for.
const MinBlockChars = 4*blockHeadWords + blockHeadWords

// AppendBlockHead appends the first line of block id: words drawn from a hash of the seed,
// the nonce and the id, so two blocks differ from their first token on (a prefix cache
// shares nothing past where two prompts' blocks part) and one run's blocks differ from
// another's.
func (p Prompts) AppendBlockHead(dst []byte, id int64) []byte {
	h := fnv.New64a()
	_, _ = h.Write(strconv.AppendInt(strconv.AppendInt(nil, p.Seed, 10), id, 10))
	_, _ = h.Write([]byte(p.Nonce))
	x := h.Sum64()
	for k := range blockHeadWords {
		if k > 0 {
			dst = append(dst, ' ')
		}
		dst = append(dst, blockWords[x%64]...)
		x /= 64
	}
	return append(dst, '\n')
}

// AppendBlock appends block id's text cut to chars bytes: its first line, then filler. A
// shorter cut of a block is a prefix of a longer one. With whole, the last byte is a line
// break instead, so the next block starts a line: a block then has the same tokens alone
// and inside a prompt.
func (p Prompts) AppendBlock(dst []byte, id int64, chars int, whole bool) []byte {
	base := len(dst)
	dst = p.AppendBlockHead(dst, id)
	dst = appendFiller(dst, base+chars)
	dst = dst[:base+chars]
	if whole && chars > 0 {
		dst[len(dst)-1] = '\n'
	}
	return dst
}

// BlockPlan sizes the prompts of a trace: its full blocks have BlockChars bytes (fitted so
// the endpoint counts the trace's block tokens in each), the last block takes what the
// planned size leaves after the full blocks and the instruction.
type BlockPlan struct {
	Prompts
	BlockChars int
}

// LastBlockChars is the bytes left for the last of blocks blocks of a prompt of tokens
// planned tokens that asks for words words: negative when the instruction does not fit.
func (b BlockPlan) LastBlockChars(index, blocks, tokens, words int) int {
	return b.Chars(tokens) - (blocks-1)*b.BlockChars - len(b.instruction(index, words))
}

// AppendTracePrompt appends request index's prompt: its blocks ids (all but the last of
// BlockChars bytes), then the instruction to answer with exactly words code words.
func (b BlockPlan) AppendTracePrompt(dst []byte, index int, ids []int64, tokens, words int) ([]byte, error) {
	if len(ids) == 0 {
		return dst, fmt.Errorf("%w: a trace request with no hash ids", errContextTooSmall)
	}
	last := b.LastBlockChars(index, len(ids), tokens, words)
	if last < MinBlockChars {
		return dst, fmt.Errorf("%w: %d tokens leave %d characters for the last block and the instruction, want %d",
			errContextTooSmall, tokens, last, MinBlockChars)
	}
	for _, id := range ids[:len(ids)-1] {
		dst = b.AppendBlock(dst, id, b.BlockChars, true)
	}
	dst = b.AppendBlock(dst, ids[len(ids)-1], last, false)
	return append(dst, b.instruction(index, words)...), nil
}
