package workload

import (
	"errors"
	"strings"
	"testing"
)

func TestPromptHasExactlyThePlannedCharacters(t *testing.T) {
	t.Parallel()
	p := Prompts{Seed: 44, CharsPerToken: DefaultCharsPerToken, ResponseWords: 32}
	for _, tokens := range []int{64, 100, 4096, 64000} {
		got, err := p.Prompt(3, tokens)
		if err != nil {
			t.Fatalf("%d tokens: %v", tokens, err)
		}
		if want := int(float64(tokens) * DefaultCharsPerToken); len(got) != want {
			t.Errorf("%d tokens: %d characters, want %d", tokens, len(got), want)
		}
		if !strings.HasSuffix(got, p.Instruction(3)) {
			t.Errorf("%d tokens: the prompt does not end with the instruction", tokens)
		}
	}
}

func TestPromptsDifferFromTheFirstLine(t *testing.T) {
	t.Parallel()
	p := Prompts{Seed: 7, CharsPerToken: 3, ResponseWords: 8}
	a, _ := p.Prompt(0, 2000)
	b, _ := p.Prompt(1, 2000)
	other, _ := Prompts{Seed: 8, CharsPerToken: 3, ResponseWords: 8}.Prompt(0, 2000)
	firstLine := func(s string) string { return s[:strings.IndexByte(s, '\n')] }
	if firstLine(a) == firstLine(b) || firstLine(a) == firstLine(other) {
		t.Fatalf("first lines %q %q %q must all differ", firstLine(a), firstLine(b), firstLine(other))
	}
	again, _ := p.Prompt(0, 2000)
	if again != a {
		t.Fatal("the same seed and index must give the same prompt")
	}
}

func TestPromptTooSmall(t *testing.T) {
	t.Parallel()
	_, err := Prompts{CharsPerToken: 3, ResponseWords: 32}.Prompt(0, 10)
	if !errors.Is(err, ErrContextTooSmall) {
		t.Fatalf("err = %v, want ErrContextTooSmall", err)
	}
}

func TestInstructionNamesWordsAndMarker(t *testing.T) {
	t.Parallel()
	got := Prompts{Seed: -3, ResponseWords: 12, Canaries: true}.Instruction(7)
	for _, want := range []string{`exactly 12 words, each the lowercase word "code"`, "Begin your reply with the marker ANVIL_REQ_-3_00007 followed by a space."} {
		if !strings.Contains(got, want) {
			t.Errorf("instruction %q lacks %q", got, want)
		}
	}
	if legacy := (Prompts{}).Instruction(4); !strings.Contains(legacy, "request 4: summarize the above in one line") {
		t.Errorf("legacy instruction %q", legacy)
	}
}

func BenchmarkPrompt64k(b *testing.B) {
	p := Prompts{Seed: 1, CharsPerToken: DefaultCharsPerToken, ResponseWords: 32}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := p.Prompt(i, 64000); err != nil {
			b.Fatal(err)
		}
	}
}
