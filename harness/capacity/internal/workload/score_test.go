package workload

import (
	"strings"
	"testing"
)

func TestScoreControlledOutput(t *testing.T) {
	t.Parallel()
	words := func(n int) string { return strings.TrimSpace(strings.Repeat("code ", n)) }
	cases := []struct {
		name        string
		text        string
		complete    bool
		policy      Policy
		marker      string
		code, extra int
		exact       *bool
		passed      bool
	}{
		{"exact", words(32), true, "strict", "", 32, 0, ptr(true), true},
		{"one missing", words(31), true, "strict", "", 31, 0, ptr(false), false},
		{"punctuated word is extra", words(31) + " code.", true, "strict", "", 31, 1, ptr(false), false},
		{"capitalised word is extra", "Code " + words(31), true, "strict", "", 31, 1, ptr(false), false},
		{"whitespace is not a word", "\n " + words(32) + "\n", true, "strict", "", 32, 0, ptr(true), true},
		{"truncated capture is unobservable", words(32), false, "strict", "", 32, 0, nil, false},
		{"observe keeps a miss", words(30) + " extra", true, "observe", "", 30, 1, ptr(false), true},
		{"own marker at start is not counted", "ANVIL_REQ_0_00001 " + words(32), true, "strict", "ANVIL_REQ_0_00001", 32, 0, ptr(true), true},
		{"marker elsewhere counts as extra", words(32) + " ANVIL_REQ_0_00001", true, "strict", "ANVIL_REQ_0_00001", 32, 1, ptr(false), false},
	}
	for _, c := range cases {
		got := ScoreControlledOutput(c.text, c.complete, 32, c.policy, c.marker)
		if got.ObservedCodeWords != c.code || got.ObservedExtraWords != c.extra || got.Passed != c.passed || !sameBool(got.ExactAdherence, c.exact) {
			t.Errorf("%s: got %+v (exact %v)", c.name, got, deref(got.ExactAdherence))
		}
		if got.RequestedWords != 32 || got.Policy != string(c.policy) || got.CaptureComplete != c.complete {
			t.Errorf("%s: identity fields %+v", c.name, got)
		}
	}
}

func TestCheckCanary(t *testing.T) {
	t.Parallel()
	own := Marker(5, 12)
	cases := []struct {
		name           string
		text           string
		complete       bool
		atStart        bool
		ownN, foreignN int
		passed         bool
	}{
		{"own marker first", own + " code code", true, true, 1, 0, true},
		{"leading newline fails", "\n" + own + " code", true, false, 1, 0, false},
		{"foreign marker", own + " code " + Marker(5, 13), true, true, 1, 1, false},
		{"swapped marker", Marker(5, 3) + " code", true, false, 0, 1, false},
		{"longer marker is another request", own + "7 code", true, false, 0, 1, false},
		{"truncated capture fails closed", own + " code", false, true, 1, 0, false},
	}
	for _, c := range cases {
		got := CheckCanary(c.text, c.complete, own)
		if got.MarkerAtStart != c.atStart || got.ObservedMarkerCount != c.ownN || got.ForeignMarkerCount != c.foreignN || got.Passed != c.passed || got.Marker != own {
			t.Errorf("%s: got %+v", c.name, got)
		}
	}
}

func ptr(b bool) *bool { return &b }

func sameBool(a, b *bool) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func deref(b *bool) any {
	if b == nil {
		return nil
	}
	return *b
}
