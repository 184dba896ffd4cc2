package main

import (
	"container/heap"
	"regexp"
	"slices"
	"strings"
)

// byteSymbols is GPT-2's byte-level alphabet: each byte as a printable rune. Bytes that
// print as themselves keep their value; the others, in byte order, take the runes from
// 256 on. llama.cpp and Ollama decode a "gpt2" vocabulary through the same table.
var byteSymbols = func() [256]rune {
	var table [256]rune
	next := rune(256)
	for b := range 256 {
		printable := b >= '!' && b <= '~' || b >= 0xa1 && b <= 0xac || b >= 0xae && b <= 0xff
		if printable {
			table[b] = rune(b)
		} else {
			table[b] = next
			next++
		}
	}
	return table
}()

// symbolOf is the vocabulary entry of raw bytes.
func symbolOf(raw string) string {
	var b strings.Builder
	for i := 0; i < len(raw); i++ {
		b.WriteRune(byteSymbols[raw[i]])
	}
	return b.String()
}

// pieces splits text as GPT-2's pre-tokenizer does for ASCII text (contractions, a word, a
// number or a run of punctuation with its leading space, whitespace): merges never cross
// a piece, as the engine's tokenizer never merges across its own.
var pieces = regexp.MustCompile(`'(?:s|t|re|ve|m|ll|d)| ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+`)

// bpe is a trained byte-level BPE: the vocabulary (the 256 byte symbols, then each
// merge's result) and the merges in the order they were learned, "left right".
type bpe struct {
	vocab  []string
	merges []string
}

type symbolPair struct{ left, right int32 }

// candidate is a pair as it was counted when queued; a later count makes it stale.
type candidate struct {
	pair  symbolPair
	count int
	text  string // left + " " + right: ties go to the smaller, so training is deterministic
}

type candidates []candidate

func (c candidates) Len() int { return len(c) }
func (c candidates) Less(i, j int) bool {
	if c[i].count != c[j].count {
		return c[i].count > c[j].count
	}
	return c[i].text < c[j].text
}
func (c candidates) Swap(i, j int) { c[i], c[j] = c[j], c[i] }
func (c *candidates) Push(x any)   { *c = append(*c, x.(candidate)) }
func (c *candidates) Pop() any {
	last := (*c)[len(*c)-1]
	*c = (*c)[:len(*c)-1]
	return last
}

// trainBPE learns up to merges merges from text, most frequent pair first, stopping early
// when no pair occurs twice. Pair counts are kept up to date word by word, so a merge
// costs the words it touches, not the corpus.
func trainBPE(text string, merges int) bpe {
	model := bpe{vocab: make([]string, 0, 256+merges)}
	ids := map[string]int32{}
	for b := range 256 {
		s := string(byteSymbols[b])
		ids[s] = int32(len(model.vocab))
		model.vocab = append(model.vocab, s)
	}

	frequency := map[string]int{}
	for _, p := range pieces.FindAllString(text, -1) {
		frequency[p]++
	}
	distinct := make([]string, 0, len(frequency))
	for p := range frequency {
		distinct = append(distinct, p)
	}
	slices.Sort(distinct)
	words := make([][]int32, len(distinct))
	counts := make([]int, len(distinct))
	pairs := map[symbolPair]int{}
	where := map[symbolPair][]int32{} // words holding a pair; may repeat, may be stale
	for w, p := range distinct {
		words[w] = make([]int32, len(p))
		for i := 0; i < len(p); i++ {
			words[w][i] = int32(p[i]) // byte b is symbol b
		}
		counts[w] = frequency[p]
		for i := 1; i < len(p); i++ {
			sp := symbolPair{words[w][i-1], words[w][i]}
			pairs[sp] += counts[w]
			where[sp] = append(where[sp], int32(w))
		}
	}
	text4 := func(sp symbolPair) string { return model.vocab[sp.left] + " " + model.vocab[sp.right] }
	queue := make(candidates, 0, len(pairs))
	for sp, n := range pairs {
		queue = append(queue, candidate{sp, n, text4(sp)})
	}
	heap.Init(&queue)

	for len(model.merges) < merges && queue.Len() > 0 {
		best := heap.Pop(&queue).(candidate)
		if pairs[best.pair] != best.count {
			continue // counted again since it was queued
		}
		if best.count < 2 {
			break
		}
		merged := model.vocab[best.pair.left] + model.vocab[best.pair.right]
		id, known := ids[merged]
		if !known {
			id = int32(len(model.vocab))
			ids[merged] = id
			model.vocab = append(model.vocab, merged)
		}
		model.merges = append(model.merges, best.text)

		changed := map[symbolPair]bool{}
		holders := where[best.pair]
		slices.Sort(holders)
		for k, w := range holders {
			if k > 0 && holders[k-1] == w {
				continue
			}
			syms := words[w]
			if !slices.ContainsFunc(adjacent(syms), func(sp symbolPair) bool { return sp == best.pair }) {
				continue // stale: an earlier merge took the pair out of this word
			}
			for _, sp := range adjacent(syms) {
				pairs[sp] -= counts[w]
				changed[sp] = true
			}
			out := syms[:0:0]
			for i := 0; i < len(syms); i++ {
				if i+1 < len(syms) && syms[i] == best.pair.left && syms[i+1] == best.pair.right {
					out = append(out, id)
					i++
					continue
				}
				out = append(out, syms[i])
			}
			words[w] = out
			for _, sp := range adjacent(out) {
				pairs[sp] += counts[w]
				where[sp] = append(where[sp], w)
				changed[sp] = true
			}
		}
		delete(where, best.pair)
		for sp := range changed {
			if n := pairs[sp]; n > 0 {
				heap.Push(&queue, candidate{sp, n, text4(sp)})
			} else {
				delete(pairs, sp)
			}
		}
	}
	return model
}

// adjacent lists a word's neighbouring symbol pairs in order.
func adjacent(syms []int32) []symbolPair {
	out := make([]symbolPair, 0, max(len(syms)-1, 0))
	for i := 1; i < len(syms); i++ {
		out = append(out, symbolPair{syms[i-1], syms[i]})
	}
	return out
}

// encode splits text into vocabulary entries as a BPE tokenizer does: within each piece,
// apply the earliest-learned merge present until none is. The engine tokenizes so; the
// test holds the trained merges to it.
func (m bpe) encode(text string) []string {
	rank := make(map[string]int, len(m.merges))
	for i, mg := range m.merges {
		rank[mg] = i
	}
	var out []string
	for _, p := range pieces.FindAllString(text, -1) {
		syms := make([]string, len(p))
		for i := 0; i < len(p); i++ {
			syms[i] = string(byteSymbols[p[i]])
		}
		for {
			best, at := -1, -1
			for i := 1; i < len(syms); i++ {
				if r, ok := rank[syms[i-1]+" "+syms[i]]; ok && (best < 0 || r < best) {
					best, at = r, i
				}
			}
			if best < 0 {
				break
			}
			syms = slices.Replace(syms, at-1, at+1, syms[at-1]+syms[at])
		}
		out = append(out, syms...)
	}
	return out
}
