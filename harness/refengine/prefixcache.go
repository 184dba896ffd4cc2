package refengine

import (
	"container/list"
	"hash/maphash"
	"sync"
	"time"
)

// cacheBlockChars is the prefix-cache block size in prompt bytes.
const cacheBlockChars = 64

// blockKeys returns the cumulative keys of prompt's full 64-byte blocks: key k hashes
// prompt[:64*(k+1)], so equal keys mean equal prefixes (up to 64-bit collisions).
func blockKeys(seed maphash.Seed, prompt string) []uint64 {
	n := len(prompt) / cacheBlockChars
	if n == 0 {
		return nil
	}
	keys := make([]uint64, n)
	var h maphash.Hash
	h.SetSeed(seed)
	for k := range keys {
		_, _ = h.WriteString(prompt[k*cacheBlockChars : (k+1)*cacheBlockChars])
		keys[k] = h.Sum64()
	}
	return keys
}

// prefixCache is a bounded LRU set of prompt blocks, each usable from the time the prefill
// that computed it completes.
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

// lookup returns how many leading blocks of keys are cached and ready at the time at, and
// marks them used.
func (c *prefixCache) lookup(keys []uint64, at time.Time) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for n < len(keys) {
		e, ok := c.blocks[keys[n]]
		if !ok || e.Value.(*cacheBlock).ready.After(at) {
			break
		}
		n++
	}
	// Touch the deepest block first, so a prefix's first blocks are evicted last.
	for k := n - 1; k >= 0; k-- {
		c.lru.MoveToFront(c.blocks[keys[k]])
	}
	return n
}

// insert caches every block of keys as ready at the time ready (keeping an earlier time of a
// block already cached), then evicts the least recently used beyond capacity.
func (c *prefixCache) insert(keys []uint64, ready time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := len(keys) - 1; k >= 0; k-- {
		if e, ok := c.blocks[keys[k]]; ok {
			if b := e.Value.(*cacheBlock); ready.Before(b.ready) {
				b.ready = ready
			}
			c.lru.MoveToFront(e)
		} else {
			c.blocks[keys[k]] = c.lru.PushFront(&cacheBlock{key: keys[k], ready: ready})
		}
		for c.lru.Len() > c.capacity {
			last := c.lru.Back()
			delete(c.blocks, last.Value.(*cacheBlock).key)
			c.lru.Remove(last)
		}
	}
}

// len is the number of cached blocks.
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

// CachedBlocks is the number of 64-byte prompt blocks in the prefix cache (0 without
// Options.PrefixCache).
func (s *Server) CachedBlocks() int {
	if s.cache == nil {
		return 0
	}
	return s.cache.len()
}

// bookPrefill reserves the prefill compute of j on the shared lane, no earlier than at, and
// returns when it completes and how many prompt tokens the prefix cache served. The cache is
// consulted when the prefill starts on the lane, so requests of a burst queued behind a
// prefill see the blocks it computed; its blocks are cached as of its completion.
func (s *Server) bookPrefill(at time.Time, j *job) (done time.Time, cached int) {
	if s.cache == nil {
		return s.lane.reserve(at, prefillCompute(j.promptTokens, s.opts.PrefillRate)), 0
	}
	s.lane.mu.Lock()
	defer s.lane.mu.Unlock()
	start := at
	if s.lane.free.After(start) {
		start = s.lane.free
	}
	if n := s.cache.lookup(j.blocks, start); n > 0 {
		cached = s.cachedTokens(j, n)
	}
	done = at
	if d := prefillCompute(j.promptTokens-cached, s.opts.PrefillRate); d > 0 {
		done = start.Add(d)
		s.lane.free = done
	}
	s.cache.insert(j.blocks, done)
	return done, cached
}

// cachedTokens converts n cached leading blocks of j's prompt to cached_tokens: the tokens
// of those bytes, never the whole prompt (the last token is always computed), rounded down
// to a multiple of CacheBlockTokens.
func (s *Server) cachedTokens(j *job, n int) int {
	t := min(s.opts.Tokenizer(j.cacheText[:n*cacheBlockChars]), j.promptTokens-1)
	return max(0, t-t%s.opts.CacheBlockTokens)
}
