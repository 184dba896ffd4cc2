package capacity

import (
	"reflect"
	"strconv"
	"testing"

	"github.com/anvilbench/anvilbench/harness/capacity/internal/workload"
	"github.com/anvilbench/anvilbench/internal/fields"
)

// Defaults are stated once, in the tags: a zero field whose zero stands for its default
// takes the tag's when a run fills it in, so a scenario built in code and Defaults() run
// the same workload there; every choice with a default is such a field (but the policy,
// whose default follows ResponseWords); and the constants that name a default are the
// tags'.
func TestDefaultsAreStatedOnceInTheTags(t *testing.T) {
	t.Parallel()
	zero, tagged := Scenario{}.withDefaults(), Defaults().withDefaults()
	filled := 0
	for _, f := range fields.Of(reflect.TypeFor[Scenario]()) {
		z, d := f.Value(reflect.ValueOf(&zero)).Interface(), f.Value(reflect.ValueOf(&tagged)).Interface()
		if f.ZeroIsDefault {
			filled++
			if !reflect.DeepEqual(z, d) {
				t.Errorf("%s: a zero scenario runs %v, Defaults() %v", f.Name, z, d)
			}
			continue
		}
		if _, choice := z.(fields.Choice); choice && f.Default != "" && f.Name != "Policy" {
			t.Errorf("%s: a choice with a default whose zero does not stand for it (tag it zero:\"default\")", f.Name)
		}
	}
	if filled < 8 {
		t.Errorf("%d fields take their tag's default when zero; the walk is broken", filled)
	}
	for key, constant := range map[string]int{
		"cache_block_tokens": defaultCacheBlockTokens,
		"trace_block_size":   workload.DefaultTraceBlockTokens,
	} {
		if f, ok := fields.Lookup(reflect.TypeFor[Scenario](), key); !ok || f.Default != strconv.Itoa(constant) {
			t.Errorf("%s: the tag's default %q is not the constant %d", key, f.Default, constant)
		}
	}
	if zero.Policy != PolicyObserve || Defaults().withDefaults().Policy != PolicyStrict {
		t.Errorf("policy: without words %q, with the default words %q", zero.Policy, Defaults().withDefaults().Policy)
	}
}
