package refengine

import (
	"container/list"
	"hash/maphash"
	"sync"
	"time"
)

// maxSegmentBytes bounds a content segment without a line break to cut it at.
const maxSegmentBytes = 1024

// segment is one unit the prefix cache keys: a run of a message's content, a message's
// chat-template header, or the generation prompt. key hashes the prompt up to and including
// it, so equal keys mean equal prefixes (up to 64-bit collisions); tokens counts the
// prompt's tokens up to and including it.
type segment struct {
	key    uint64
	tokens int
}

// The chat template's parts as the cache sees them: each message begins with a header of
// templateTokensPerMessage tokens, and the generation prompt that ends a prompt is the
// first templateTokensPerPrompt tokens of an assistant header, as in real templates
// (ChatML's "<|im_start|>assistant\n" is both). So the next turn of a conversation, which
// holds this turn's prompt and then the assistant's answer, finds all of this turn's
// prompt cached, generation prompt included.
const (
	markGeneration    = "\x00gen\x00"
	markAssistantRest = "\x00assistant-rest\x00"
)

// segmenter builds the segments of one prompt.
type segmenter struct {
	h        maphash.Hash
	tokenize func(string) int
	tokens   int
	out      []segment
}

func newSegmenter(seed maphash.Seed, tokenize func(string) int) *segmenter {
	s := &segmenter{tokenize: tokenize}
	s.h.SetSeed(seed)
	return s
}

// mark appends a template segment of tokens tokens.
func (s *segmenter) mark(text string, tokens int) {
	_, _ = s.h.WriteString(text)
	s.tokens += tokens
	s.out = append(s.out, segment{key: s.h.Sum64(), tokens: s.tokens})
}

// header appends a message's template header.
func (s *segmenter) header(role string) {
	if role == "assistant" {
		s.mark(markGeneration, templateTokensPerPrompt)
		s.mark(markAssistantRest, templateTokensPerMessage-templateTokensPerPrompt)
		return
	}
	s.mark("\x00"+role+"\x00", templateTokensPerMessage)
}

// content appends a message's text, cut after each line break that a non-blank character
// follows (and every maxSegmentBytes without one): on a BPE, and on the tokenizers here, no
// token spans such a cut, so the segments' tokens add up to the text's.
func (s *segmenter) content(text string) {
	for len(text) > 0 {
		end := segmentEnd(text)
		_, _ = s.h.WriteString(text[:end])
		s.tokens += s.tokenize(text[:end])
		s.out = append(s.out, segment{key: s.h.Sum64(), tokens: s.tokens})
		text = text[end:]
	}
}

// segmentEnd is the length of text's first segment (see content).
func segmentEnd(text string) int {
	limit := min(len(text), maxSegmentBytes)
	for i := 0; i < limit-1; i++ {
		if text[i] == '\n' && !isBlank(text[i+1]) {
			return i + 1
		}
	}
	return limit
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// chatSegments are the segments of a chat prompt: each message's header and content, then
// the generation prompt.
func chatSegments(seed maphash.Seed, tokenize func(string) int, msgs []chatMessage) []segment {
	s := newSegmenter(seed, tokenize)
	for _, m := range msgs {
		s.header(m.Role)
		s.content(m.Content.text)
	}
	s.mark(markGeneration, templateTokensPerPrompt)
	return s.out
}

// textSegments are the segments of a /v1/completions prompt, which has no template.
func textSegments(seed maphash.Seed, tokenize func(string) int, prompt string) []segment {
	s := newSegmenter(seed, tokenize)
	s.content(prompt)
	return s.out
}

// prefixCache is a bounded LRU set of prompt segments, each usable from the time the
// prefill that computed it completes.
type prefixCache struct {
	capacity int
	mu       sync.Mutex
	lru      *list.List // of *cacheBlock, most recently used first
	blocks   map[uint64]*list.Element
}

type cacheBlock struct {
	key   uint64
	ready time.Time // when the first prefill holding it completed (or will)
}

func newPrefixCache(capacity int) *prefixCache {
	return &prefixCache{capacity: capacity, lru: list.New(), blocks: make(map[uint64]*list.Element)}
}

// lookup returns how many leading segments of keys are cached and ready at the time at,
// and marks them used.
func (c *prefixCache) lookup(keys []segment, at time.Time) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for n < len(keys) {
		e, ok := c.blocks[keys[n].key]
		if !ok || e.Value.(*cacheBlock).ready.After(at) {
			break
		}
		n++
	}
	// Touch the deepest block first, so a prefix's first blocks are evicted last.
	for k := n - 1; k >= 0; k-- {
		c.lru.MoveToFront(c.blocks[keys[k].key])
	}
	return n
}

// insert caches every segment of keys as ready at the time ready (keeping an earlier time
// of one already cached), then evicts the least recently used beyond capacity.
func (c *prefixCache) insert(keys []segment, ready time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := len(keys) - 1; k >= 0; k-- {
		key := keys[k].key
		if e, ok := c.blocks[key]; ok {
			if b := e.Value.(*cacheBlock); ready.Before(b.ready) {
				b.ready = ready
			}
			c.lru.MoveToFront(e)
		} else {
			c.blocks[key] = c.lru.PushFront(&cacheBlock{key: key, ready: ready})
		}
		for c.lru.Len() > c.capacity {
			last := c.lru.Back()
			delete(c.blocks, last.Value.(*cacheBlock).key)
			c.lru.Remove(last)
		}
	}
}

// len is the number of cached segments.
func (c *prefixCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}

// flush forgets every block.
func (c *prefixCache) flush() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lru.Init()
	clear(c.blocks)
}

// FlushCache empties the prefix cache (like vLLM's /reset_prefix_cache); prefills already
// booked still complete, but their blocks are not cached. No effect without
// Options.PrefixCache.
func (s *Server) FlushCache() {
	if s.cache != nil {
		s.cache.flush()
	}
}

// CachedBlocks is the number of prompt segments in the prefix cache (0 without
// Options.PrefixCache): a segment is a line of a message's text, a message's template
// header, or the generation prompt.
func (s *Server) CachedBlocks() int {
	if s.cache == nil {
		return 0
	}
	return s.cache.len()
}

// bookPrefill reserves the prefill compute of j on the shared lane, no earlier than at, at
// pace times its cost (the engine's pace), and returns when it completes and how many
// prompt tokens the prefix cache served. The cache is
// consulted when the prefill starts on the lane, so requests of a burst queued behind a
// prefill see the blocks it computed; its blocks are cached as of its completion.
func (s *Server) bookPrefill(at time.Time, j *job, pace float64) (done time.Time, cached int) {
	rate := s.opts.PrefillRate / pace
	if s.cache == nil {
		return s.lane.reserve(at, prefillCompute(j.promptTokens, rate)), 0
	}
	s.lane.mu.Lock()
	defer s.lane.mu.Unlock()
	start := at
	if s.lane.free.After(start) {
		start = s.lane.free
	}
	if n := s.cache.lookup(j.segments, start); n > 0 {
		cached = s.cachedTokens(j, n)
	}
	done = at
	if d := prefillCompute(j.promptTokens-cached, rate); d > 0 {
		done = start.Add(d)
		s.lane.free = done
	}
	s.cache.insert(j.segments, done)
	return done, cached
}

// cachedTokens converts n cached leading segments of j's prompt to cached_tokens: their
// tokens, never the whole prompt (the last token is always computed), rounded down to a
// multiple of CacheBlockTokens, as an engine that caches whole blocks of tokens reports.
func (s *Server) cachedTokens(j *job, n int) int {
	t := min(j.segments[n-1].tokens, j.promptTokens-1)
	return max(0, t-t%s.opts.CacheBlockTokens)
}
