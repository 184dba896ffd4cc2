package refengine

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestSegments(t *testing.T) {
	t.Parallel()
	seed := maphash.MakeSeed()
	text := "def a():\n    return 1\n\nclass B:\n  x\nz"
	seg := textSegments(seed, CountTokens, text)
	// Cut after a line break only where a non-blank character follows.
	if len(seg) != 3 || seg[len(seg)-1].tokens != CountTokens(text) {
		t.Fatalf("segments %+v, want 3 adding up to %d tokens", seg, CountTokens(text))
	}
	other := textSegments(seed, CountTokens, "def a():\n    return 1\n\nclass C:\n  x\nz")
	if other[0].key != seg[0].key || other[1].key == seg[1].key || other[2].key == seg[2].key {
		t.Errorf("keys must agree up to the first difference and differ after it (cumulative)")
	}
	long := textSegments(seed, CountTokens, strings.Repeat("a", 2*maxSegmentBytes+1))
	if len(long) != 3 {
		t.Errorf("a line of %d bytes: %d segments, want 3", 2*maxSegmentBytes+1, len(long))
	}
	// A chat prompt: headers, text, and the generation prompt, which the next turn's
	// assistant header begins with, so the next turn shares the whole prompt.
	msg := func(role, text string) chatMessage {
		return chatMessage{Role: role, Content: messageContent{text: text}}
	}
	turn1 := []chatMessage{msg("system", "be brief\n"), msg("user", "hi\n")}
	turn2 := append(slices.Clone(turn1), msg("assistant", "code code"), msg("user", "more\n"))
	a, b := chatSegments(seed, CountTokens, turn1), chatSegments(seed, CountTokens, turn2)
	if got, want := a[len(a)-1].tokens, chatPromptTokens(CountTokens, turn1); got != want {
		t.Errorf("turn 1 segments add up to %d tokens, prompt_tokens is %d", got, want)
	}
	for k := range a {
		if a[k].key != b[k].key {
			t.Fatalf("turn 2 diverges from turn 1 at segment %d of %d", k, len(a))
		}
	}
	if b[len(a)].key == a[len(a)-1].key {
		t.Errorf("turn 2 continues past turn 1's prompt")
	}
}

func TestPrefixCacheLRU(t *testing.T) {
	t.Parallel()
	t0 := time.Now()
	c := newPrefixCache(4)
	c.insert(keys(1, 2, 3), t0.Add(time.Second))
	if n := c.lookup(keys(1, 2, 3), t0); n != 0 {
		t.Errorf("blocks usable before their prefill completed: %d", n)
	}
	if n := c.lookup(keys(1, 2, 3, 4), t0.Add(time.Second)); n != 3 {
		t.Errorf("lookup = %d, want 3", n)
	}
	if n := c.lookup(keys(1, 9, 3), t0.Add(time.Hour)); n != 1 {
		t.Errorf("lookup past a missing block = %d, want 1", n)
	}
	// An earlier completion wins; a later insert does not delay a cached block.
	c.insert(keys(1), t0.Add(time.Hour))
	if n := c.lookup(keys(1), t0.Add(time.Second)); n != 1 {
		t.Errorf("re-insert delayed a cached block")
	}
	// Capacity 4: a second prompt of 2 blocks evicts the first prompt's deepest block.
	c.insert(keys(10, 11), t0)
	if c.len() != 4 {
		t.Errorf("len %d, want 4", c.len())
	}
	if n := c.lookup(keys(1, 2, 3), t0.Add(time.Hour)); n != 2 {
		t.Errorf("after eviction lookup = %d, want 2 (block 3 evicted first)", n)
	}
	c.flush()
	if c.len() != 0 || c.lookup(keys(10), t0.Add(time.Hour)) != 0 {
		t.Errorf("flush left blocks")
	}
}

// keys are segments of the given keys.
func keys(k ...uint64) []segment {
	out := make([]segment, len(k))
	for i, key := range k {
		out[i] = segment{key: key, tokens: i + 1}
	}
	return out
}

// sharedPrefix is code-like text of at least tokens CountTokens tokens.
func sharedPrefix(tokens int) string {
	var sb strings.Builder
	for k := 0; CountTokens(sb.String()) < tokens; k++ {
		for range 50 {
			fmt.Fprintf(&sb, "def helper_%d():\n    return compute(%d)  # shared context\n", k, k)
			k++
		}
	}
	return sb.String()
}

// prefixBody is a chat request with prefix as its system message and a unique suffix.
func prefixBody(prefix string, i int, stream bool) map[string]any {
	b := chatBody(2, stream, true, map[string]any{"max_tokens": 8})
	b["messages"] = []map[string]any{
		{"role": "system", "content": prefix},
		{"role": "user", "content": fmt.Sprintf("Request %d is unique. %s", i, instruction(2, "code"))},
	}
	return b
}

func TestPrefixCacheUsage(t *testing.T) {
	t.Parallel()
	o := fast()
	o.PrefixCache = true
	s := start(t, o)
	prefix := sharedPrefix(2000)
	first := stream(t, s, prefixBody(prefix, 0, true))
	if d := first.usage.PromptTokensDetails; d == nil || d.CachedTokens != 0 {
		t.Fatalf("cold request: prompt_tokens_details %+v, want cached_tokens 0", d)
	}
	second := stream(t, s, prefixBody(prefix, 1, true))
	cached := second.usage.PromptTokensDetails.CachedTokens
	want := CountTokens(prefix)
	if cached%defaultCacheBlockTokens != 0 || cached > want+defaultCacheBlockTokens || cached < want-48 {
		t.Errorf("warm request: cached_tokens %d, want about the %d prefix tokens, a multiple of 16", cached, want)
	}
	if tr := s.Traces()[1]; tr.CachedTokens != cached {
		t.Errorf("trace cached %d, usage %d", tr.CachedTokens, cached)
	}
	// The same prompt again: everything but the last token is cached, rounded down to 16.
	again := stream(t, s, prefixBody(prefix, 1, true))
	p := again.usage.PromptTokens
	if c := again.usage.PromptTokensDetails.CachedTokens; c != (p-1)/16*16 && c < cached {
		t.Errorf("identical prompt: cached %d of %d prompt tokens", c, p)
	}
	if c := again.usage.PromptTokensDetails.CachedTokens; c >= p {
		t.Errorf("cached %d >= prompt %d: the last token must be computed", c, p)
	}
	// Not streamed: the same usage member.
	resp := post(t, context.Background(), s.BaseURL()+"/chat/completions", prefixBody(prefix, 2, false))
	defer resp.Body.Close()
	var ns struct {
		Usage usageBody `json:"usage"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&ns); err != nil || ns.Usage.PromptTokensDetails == nil ||
		ns.Usage.PromptTokensDetails.CachedTokens != cached {
		t.Errorf("non-streamed usage %+v %v, want cached %d", ns.Usage, err, cached)
	}
	if s.CachedBlocks() == 0 {
		t.Errorf("CachedBlocks = 0")
	}
	s.FlushCache()
	if s.CachedBlocks() != 0 {
		t.Errorf("CachedBlocks after FlushCache = %d", s.CachedBlocks())
	}
	if c := stream(t, s, prefixBody(prefix, 3, true)).usage.PromptTokensDetails.CachedTokens; c != 0 {
		t.Errorf("after FlushCache: cached %d", c)
	}
}

func TestPrefixCacheOffAndBounded(t *testing.T) {
	t.Parallel()
	s := start(t, fast())
	prefix := sharedPrefix(500)
	stream(t, s, prefixBody(prefix, 0, true))
	if got := stream(t, s, prefixBody(prefix, 1, true)); got.usage.PromptTokensDetails != nil {
		t.Errorf("cache off: prompt_tokens_details %+v, want null", got.usage.PromptTokensDetails)
	}
	s.FlushCache() // no cache: no effect
	o := fast()
	o.PrefixCache, o.CacheCapacityBlocks, o.CacheBlockTokens = true, 5, 4
	s = start(t, o)
	stream(t, s, prefixBody(prefix, 0, true))
	got := stream(t, s, prefixBody(prefix, 1, true))
	c := got.usage.PromptTokensDetails.CachedTokens
	if s.CachedBlocks() != 5 || c%4 != 0 || c == 0 || c > 4+CountTokens(prefix[:strings.Index(prefix, "def helper_4")]) {
		t.Errorf("capacity 5 blocks: %d cached blocks, cached_tokens %d", s.CachedBlocks(), c)
	}
}

// TestPrefixCacheBurst: 8 requests sharing an 8000-token prefix arrive together. They queue
// on the prefill lane, so all but the first to be prefilled find its blocks cached when their
// prefill starts and only prefill their suffix. Which one computes the prefix is up to the
// scheduler (and under load it need not be the first to flush a token), so the test finds it
// by its cached count and compares TTFTs rank by rank. Not parallel: it measures.
func TestPrefixCacheBurst(t *testing.T) {
	const rate = 100_000.0 // tokens/s: the 8000-token prefix costs 80ms
	prefix := sharedPrefix(8000)
	prefixTokens := CountTokens(prefix)
	ttft := func(tr RequestTrace) time.Duration { return tr.FirstToken.Sub(tr.Arrived) }
	burst := func(cache bool) []RequestTrace {
		s := start(t, Options{PrefillOverhead: 5 * time.Millisecond, ITL: time.Millisecond,
			PrefillRate: rate, PrefixCache: cache})
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Go(func() { stream(t, s, prefixBody(prefix, i, true)) })
		}
		wg.Wait()
		tr := s.Traces()
		slices.SortFunc(tr, func(a, b RequestTrace) int { return cmp.Compare(ttft(a), ttft(b)) })
		return tr
	}
	cold, warm := burst(false), burst(true)
	hits, computed := 0, 0
	for k, tr := range warm {
		t.Logf("rank %d: cached %d of %d prompt tokens, ttft %v (without cache %v)", k, tr.CachedTokens, tr.PromptTokens, ttft(tr), ttft(cold[k]))
		if tr.CachedTokens == 0 {
			computed++
		} else if d := tr.CachedTokens - prefixTokens; d > defaultCacheBlockTokens || d < -48 {
			t.Errorf("request %d: cached %d, want about the %d prefix tokens", tr.Index, tr.CachedTokens, prefixTokens)
		} else {
			hits++
		}
		// Without the cache the k-th prefill waits for k full ones; with it, for one.
		if k > 0 && ttft(tr) >= ttft(cold[k]) {
			t.Errorf("rank %d: ttft %v with the cache, %v without", k, ttft(tr), ttft(cold[k]))
		}
		// The first prefill (80ms) plus small suffixes: well below a second full prefill.
		if ttft(tr) > 150*time.Millisecond {
			t.Errorf("request %d: ttft %v, want about 85ms", tr.Index, ttft(tr))
		}
	}
	if computed != 1 {
		t.Errorf("%d requests computed the prefix, want exactly the first prefilled", computed)
	}
	if hits != 7 {
		t.Errorf("%d of 7 requests hit the cache", hits)
	}
}
