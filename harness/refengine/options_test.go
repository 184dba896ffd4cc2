package refengine

import (
	"strings"
	"testing"
)

func TestNewOptionsDefaultsAndValidation(t *testing.T) {
	t.Parallel()
	o := start(t, Options{}).Options()
	if o.Overflow != overflowQueue || o.CacheBlockTokens != defaultCacheBlockTokens ||
		o.CacheCapacityBlocks != defaultCacheCapacityBlocks || o.ReasoningTokens != defaultReasoningTokens ||
		o.ReasoningField != reasoningContentField || o.PrefixCache || o.ThinkByDefault || o.DisableTokenize {
		t.Errorf("defaults %+v", o)
	}
	_, err := Start(Options{Overflow: "drop", CacheBlockTokens: -1, CacheCapacityBlocks: -1,
		ReasoningTokens: -1, ReasoningField: "thoughts"})
	if err == nil {
		t.Fatal("invalid options accepted")
	}
	for _, want := range []string{"Overflow", "CacheBlockTokens", "CacheCapacityBlocks", "ReasoningTokens", "ReasoningField"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %s", err, want)
		}
	}
}
