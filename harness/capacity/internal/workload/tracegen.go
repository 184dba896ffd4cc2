package workload

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
)

// traceShape is what generateTrace draws: an agentic mix where most requests continue an
// earlier conversation (its blocks, then new ones) and the rest start a new one.
type traceShape struct {
	// Lines is the number of requests; MeanGapMs the mean gap between them (exponential).
	Lines     int
	MeanGapMs float64
	// Conversations is how many conversations are open at once; Continue the probability
	// that a request continues one of them rather than replacing one with a new one.
	Conversations int
	Continue      float64
	// FirstTokens bounds a new conversation's first prompt, TurnTokens what a continuation
	// adds, MaxTokens any prompt (a conversation that would outgrow it starts over);
	// OutputTokens bounds the answers.
	FirstTokens, TurnTokens, OutputTokens [2]int
	MaxTokens                             int
	// BlockTokens is what one hash id stands for.
	BlockTokens int
	Seed        uint64
}

// generateTrace writes a Mooncake-format trace of s to w, deterministic in s.Seed. Blocks
// are numbered in order of first use, like Mooncake's, and a continued conversation reuses
// every whole block of its previous prompt, so a prefix cache can serve exactly those.
func generateTrace(w io.Writer, s traceShape) error {
	rng := rand.New(rand.NewPCG(s.Seed, 0x7472616365))
	between := func(r [2]int) int { return r[0] + rng.IntN(r[1]-r[0]+1) }
	type conversation struct {
		ids    []int64
		tokens int
	}
	open := make([]conversation, s.Conversations)
	next := int64(0)
	fresh := func(ids []int64, n int) []int64 {
		for range n {
			ids = append(ids, next)
			next++
		}
		return ids
	}
	bw := bufio.NewWriter(w)
	ts := 0.0
	var line []byte
	for range s.Lines {
		k := rng.IntN(len(open))
		c := &open[k]
		tokens := c.tokens + between(s.TurnTokens)
		if c.tokens == 0 || rng.Float64() >= s.Continue || tokens > s.MaxTokens {
			*c = conversation{}
			tokens = between(s.FirstTokens)
		}
		// Keep the previous prompt's whole blocks; its partial last block and what follows
		// are new.
		whole := c.tokens / s.BlockTokens
		ids := append([]int64(nil), c.ids[:min(whole, len(c.ids))]...)
		ids = fresh(ids, (tokens+s.BlockTokens-1)/s.BlockTokens-len(ids))
		*c = conversation{ids: ids, tokens: tokens}

		line = append(line[:0], `{"timestamp": `...)
		line = strconv.AppendInt(line, int64(ts), 10)
		line = append(line, `, "input_length": `...)
		line = strconv.AppendInt(line, int64(tokens), 10)
		line = append(line, `, "output_length": `...)
		line = strconv.AppendInt(line, int64(between(s.OutputTokens)), 10)
		line = append(line, `, "hash_ids": [`...)
		for j, id := range ids {
			if j > 0 {
				line = append(line, ", "...)
			}
			line = strconv.AppendInt(line, id, 10)
		}
		line = append(line, "]}\n"...)
		if _, err := bw.Write(line); err != nil {
			return fmt.Errorf("write trace: %w", err)
		}
		ts += rng.ExpFloat64() * s.MeanGapMs
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write trace: %w", err)
	}
	return nil
}

// shippedTrace is the shape of testdata/traces/agentic-300.jsonl: 300 requests over about a
// minute, 16 conversations open, two in three requests continuing one.
func shippedTrace() traceShape {
	return traceShape{Lines: 300, MeanGapMs: 200, Conversations: 16, Continue: 0.67,
		FirstTokens: [2]int{600, 3000}, TurnTokens: [2]int{100, 800}, OutputTokens: [2]int{8, 48},
		MaxTokens: 12000, BlockTokens: DefaultTraceBlockTokens, Seed: 20261203}
}
