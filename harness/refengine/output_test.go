package refengine

import (
	"strings"
	"testing"
)

// render produces a plan's text and token count.
func render(p plan) (string, int) {
	var sb strings.Builder
	for i := range p.tokens {
		sb.WriteString(p.text(i))
	}
	return sb.String(), p.tokens
}

func TestPlan(t *testing.T) {
	t.Parallel()
	const marker = "Begin your reply with the marker ANVIL_REQ_0_4 followed by a space. "
	cases := []struct {
		name, prompt string
		faults       Faults
		max          int
		text         string
		tokens       int
		finish       string
	}{
		{"words", instruction(3, "code"), Faults{}, 100, "code code code", 4, "stop"},
		{"other word", instruction(2, "zeta"), Faults{}, 100, "zeta zeta", 3, "stop"},
		{"marker", marker + instruction(2, "code"), Faults{}, 100, "ANVIL_REQ_0_4 code code", 4, "stop"},
		{"capped", instruction(5, "code"), Faults{}, 3, "code code code", 3, "length"},
		{"capped before eos", instruction(5, "code"), Faults{}, 5, "code code code code code", 5, "length"},
		{"missing", instruction(5, "code"), Faults{MissingWords: 2}, 100, "code code code", 4, "stop"},
		{"missing all", instruction(2, "code"), Faults{MissingWords: 9, ExtraWords: 1}, 100, "extra1", 2, "stop"},
		{"extra", instruction(2, "code"), Faults{ExtraWords: 2}, 100, "code code extra1 extra2", 5, "stop"},
		{"default", "hello", Faults{ExtraWords: 3}, 100, "Hello! This is the anvil reference engine speaking to you.", 13, "stop"},
		{"default marker", marker, Faults{}, 100, "ANVIL_REQ_0_4 Hello! This is the anvil reference engine speaking to you.", 14, "stop"},
		{"huge", instruction(1, "code")[:len("Reply with exactly ")] + "99999999999999999999999 words, each the lowercase word \"code\"", Faults{}, 2, "code code", 2, "length"},
	}
	for _, c := range cases {
		p := newPlan(c.prompt, c.faults, c.max)
		text, tokens := render(p)
		if text != c.text || tokens != c.tokens || p.finish != c.finish {
			t.Errorf("%s: %q %d %s, want %q %d %s", c.name, text, tokens, p.finish, c.text, c.tokens, c.finish)
		}
	}
}
