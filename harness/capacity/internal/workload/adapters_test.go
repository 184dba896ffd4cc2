package workload

import "testing"

func TestAdaptersAreAssignedTheirSharesExactly(t *testing.T) {
	var a Adapters
	if err := a.UnmarshalText([]byte("lora-a:3, lora-b:1")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		n    int
		mix  AdapterMix
		want [2]int
	}{{40, MixWeighted, [2]int{30, 10}}, {7, MixWeighted, [2]int{5, 2}}, {30, MixZipf, [2]int{20, 10}}} {
		got := [2]int{}
		order := a.Assign(c.n, c.mix, 1)
		for _, k := range order {
			got[k]++
		}
		if got != c.want {
			t.Errorf("%d %s: %v, want %v", c.n, c.mix, got, c.want)
		}
		if c.n == 40 && order[0] == order[1] && order[1] == order[2] && order[2] == order[3] && order[4] == order[0] && order[30] == order[0] {
			t.Errorf("not shuffled: %v", order)
		}
	}
	for _, bad := range []string{"a:0", "a:x", ":3", "a,a", "a b:1"} {
		if err := new(Adapters).UnmarshalText([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
