package main

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// shape is a llama's size.
type shape struct {
	layers, width, heads, kvHeads, feedForward, context int
}

// controlTokens follow the learned vocabulary: begin and end of text, then the chat
// template's role markers.
var controlTokens = []string{"<s>", "</s>", "<|system|>", "<|user|>", "<|assistant|>", "<|end|>"}

// Token types of a GGUF vocabulary.
const (
	tokenNormal  int32 = 1
	tokenControl int32 = 3
	tokenUnused  int32 = 5
)

// vocabulary is the learned entries, the control tokens, and unused ones up to a multiple
// of 64 (the row count ggml's kernels like).
type vocabulary struct {
	tokens  []string
	types   []int32
	learned int // tokens[:learned] are the BPE's
}

func vocabularyOf(m bpe) vocabulary {
	v := vocabulary{learned: len(m.vocab)}
	v.tokens = append(append(v.tokens, m.vocab...), controlTokens...)
	for i := range v.tokens {
		v.types = append(v.types, tokenNormal)
		if i >= v.learned {
			v.types[i] = tokenControl
		}
	}
	for len(v.tokens)%64 != 0 {
		v.tokens = append(v.tokens, fmt.Sprintf("<|unused%d|>", len(v.tokens)))
		v.types = append(v.types, tokenUnused)
	}
	return v
}

func (v vocabulary) bos() int32 { return int32(v.learned) }
func (v vocabulary) eos() int32 { return int32(v.learned + 1) }

// speakable reports whether the model may emit token t: learned text, not a control or
// unused token, and not a byte that would leave the answer invalid UTF-8 or unprintable.
func (v vocabulary) speakable(t int) bool {
	if t >= v.learned {
		return false
	}
	if t < 256 {
		return t == '\n' || t >= 0x20 && t < 0x7f
	}
	return true
}

// The residual stream's first channel carries a constant: the embedding sets it, no layer
// writes it (their output projections' first rows are zero), and the output layer reads
// it to push every token the model must not say (end of text, control, unprintable
// bytes) far down. So a random model answers printable text until max_tokens, as a
// benchmark wants, and still costs every matmul a real one does.
const (
	carrierValue = 4.0
	unsaidWeight = -100.0
)

// weights draws a random llama of shape s over vocabulary v: Gaussian weights scaled by
// 1/sqrt(fan-in) (residual branches by a further 1/sqrt(2 layers)), norms of ones.
func weights(s shape, v vocabulary, seed uint64) []tensor {
	rng := rand.New(rand.NewPCG(seed, seed^0x5851f42d4c957f2d))
	gaussian := func(n int, sd float64) []float32 {
		out := make([]float32, n)
		for i := range out {
			out[i] = float32(rng.NormFloat64() * sd)
		}
		return out
	}
	ones := func(n int) []float32 {
		out := make([]float32, n)
		for i := range out {
			out[i] = 1
		}
		return out
	}
	n := len(v.tokens)
	headDim := s.width / s.heads
	q, kv := s.heads*headDim, s.kvHeads*headDim
	fanIn := func(k int) float64 { return 1 / math.Sqrt(float64(k)) }
	residual := 1 / math.Sqrt(2*float64(s.layers))
	dims := func(d ...int) []uint64 {
		out := make([]uint64, len(d))
		for i, x := range d {
			out[i] = uint64(x)
		}
		return out
	}
	// writesNoCarrier zeroes the first output row of a [in, out] projection.
	writesNoCarrier := func(w []float32, in int) []float32 {
		clear(w[:in])
		return w
	}

	embedding := gaussian(s.width*n, 1)
	for t := range n {
		embedding[t*s.width] = carrierValue
	}
	ts := []tensor{{"token_embd.weight", dims(s.width, n), ggmlF16, embedding}}
	for l := range s.layers {
		p := fmt.Sprintf("blk.%d.", l)
		ts = append(ts,
			tensor{p + "attn_norm.weight", dims(s.width), ggmlF32, ones(s.width)},
			tensor{p + "attn_q.weight", dims(s.width, q), ggmlF16, gaussian(s.width*q, fanIn(s.width))},
			tensor{p + "attn_k.weight", dims(s.width, kv), ggmlF16, gaussian(s.width*kv, fanIn(s.width))},
			tensor{p + "attn_v.weight", dims(s.width, kv), ggmlF16, gaussian(s.width*kv, fanIn(s.width))},
			tensor{p + "attn_output.weight", dims(q, s.width), ggmlF16, writesNoCarrier(gaussian(q*s.width, residual*fanIn(q)), q)},
			tensor{p + "ffn_norm.weight", dims(s.width), ggmlF32, ones(s.width)},
			tensor{p + "ffn_gate.weight", dims(s.width, s.feedForward), ggmlF16, gaussian(s.width*s.feedForward, fanIn(s.width))},
			tensor{p + "ffn_up.weight", dims(s.width, s.feedForward), ggmlF16, gaussian(s.width*s.feedForward, fanIn(s.width))},
			tensor{p + "ffn_down.weight", dims(s.feedForward, s.width), ggmlF16,
				writesNoCarrier(gaussian(s.feedForward*s.width, residual*fanIn(s.feedForward)), s.feedForward)},
		)
	}
	output := gaussian(s.width*n, 3*fanIn(s.width))
	for t := range n {
		row := output[t*s.width : (t+1)*s.width]
		if v.speakable(t) {
			row[0] = 0
			continue
		}
		clear(row)
		row[0] = unsaidWeight
	}
	return append(ts,
		tensor{"output_norm.weight", dims(s.width), ggmlF32, ones(s.width)},
		tensor{"output.weight", dims(s.width, n), ggmlF16, output})
}

// metadata describes a llama of shape s with a "gpt2" (byte-level BPE) tokenizer.
func metadata(name string, s shape, v vocabulary, m bpe) []meta {
	headDim := uint32(s.width / s.heads)
	return []meta{
		{"general.architecture", "llama"},
		{"general.name", name},
		{"general.file_type", uint32(1)}, // mostly F16
		{"general.quantization_version", uint32(2)},
		{"llama.context_length", uint32(s.context)},
		{"llama.embedding_length", uint32(s.width)},
		{"llama.block_count", uint32(s.layers)},
		{"llama.feed_forward_length", uint32(s.feedForward)},
		{"llama.attention.head_count", uint32(s.heads)},
		{"llama.attention.head_count_kv", uint32(s.kvHeads)},
		{"llama.attention.key_length", headDim},
		{"llama.attention.value_length", headDim},
		{"llama.attention.layer_norm_rms_epsilon", float32(1e-5)},
		{"llama.rope.freq_base", float32(10000)},
		{"llama.rope.dimension_count", headDim},
		{"llama.vocab_size", uint32(len(v.tokens))},
		{"tokenizer.ggml.model", "gpt2"},
		{"tokenizer.ggml.pre", "gpt-2"},
		{"tokenizer.ggml.tokens", v.tokens},
		{"tokenizer.ggml.token_type", v.types},
		{"tokenizer.ggml.merges", m.merges},
		{"tokenizer.ggml.bos_token_id", uint32(v.bos())},
		{"tokenizer.ggml.eos_token_id", uint32(v.eos())},
		{"tokenizer.ggml.padding_token_id", uint32(v.eos())},
		{"tokenizer.ggml.add_bos_token", true},
		{"tokenizer.ggml.add_eos_token", false},
	}
}
