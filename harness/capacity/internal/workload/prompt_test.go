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

// The run's nonce follows the seed and index on the first line and heads the shared
// prefix, so two runs of one seed share no prompt prefix.
func TestTheNonceSetsRunsApart(t *testing.T) {
	t.Parallel()
	p := Prompts{Seed: 7, CharsPerToken: 3, ResponseWords: 8, Nonce: "qwertyui"}
	a, _ := p.Prompt(3, 2000)
	if first := a[:strings.IndexByte(a, '\n')]; first != "# anvil request 7:3 run qwertyui" {
		t.Errorf("first line %q", first)
	}
	other := p
	other.Nonce = "asdfghjk"
	b, _ := other.Prompt(3, 2000)
	if len(a) != len(b) || a[:30] == b[:30] || a[40:] != b[40:] {
		t.Errorf("another run's prompt must differ in the nonce alone, at the same length")
	}
	if head := p.SharedPrefixText(100); !strings.HasPrefix(head, "# anvil shared prefix 7 run qwertyui\n") {
		t.Errorf("shared prefix starts %q", head[:40])
	}
}

func TestPromptTooSmall(t *testing.T) {
	t.Parallel()
	_, err := Prompts{CharsPerToken: 3, ResponseWords: 32}.Prompt(0, 10)
	if !errors.Is(err, errContextTooSmall) {
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

func TestSharedPrefixIsByteIdenticalAndThenUnique(t *testing.T) {
	t.Parallel()
	p := Prompts{Seed: 3, CharsPerToken: 3, ResponseWords: 8}
	p.SharedPrefix = p.SharedPrefixText(1000)
	if len(p.SharedPrefix) != 3000 || !strings.HasSuffix(p.SharedPrefix, "\n") {
		t.Fatalf("shared prefix of %d characters", len(p.SharedPrefix))
	}
	a, _ := p.Prompt(0, 2000)
	b, _ := p.Prompt(1, 2000)
	if !strings.HasPrefix(a, p.SharedPrefix) || !strings.HasPrefix(b, p.SharedPrefix) {
		t.Fatal("prompts must start with the shared prefix")
	}
	if a[len(p.SharedPrefix):len(p.SharedPrefix)+20] == b[len(p.SharedPrefix):len(p.SharedPrefix)+20] {
		t.Fatal("prompts must differ right after the shared prefix")
	}
	if other := (Prompts{Seed: 4, CharsPerToken: 3}).SharedPrefixText(1000); other == p.SharedPrefix {
		t.Fatal("another seed must give another shared prefix")
	}
}

func TestOverheadIsTakenOffThePlannedSize(t *testing.T) {
	t.Parallel()
	p := Prompts{CharsPerToken: 3.2, OverheadTokens: 10, ResponseWords: 4}
	got, err := p.Prompt(0, 1000)
	if err != nil || len(got) != int(990*3.2) {
		t.Fatalf("%d characters (%v), want %d", len(got), err, int(990*3.2))
	}
}

func TestFillerLinesHaveTheSameShapeForEveryIndex(t *testing.T) {
	t.Parallel()
	p := Prompts{CharsPerToken: 3}
	a, _ := p.Prompt(0, 3000)
	b, _ := p.Prompt(9876, 3000)
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 1; i < 20; i++ {
		if len(la[i]) != len(lb[i]) {
			t.Fatalf("line %d: %q and %q differ in length", i, la[i], lb[i])
		}
	}
}

func TestAppendPromptAppendsThePrompt(t *testing.T) {
	t.Parallel()
	p := Prompts{Seed: 3, CharsPerToken: DefaultCharsPerToken, ResponseWords: 32, Canaries: true}
	p.SharedPrefix = p.SharedPrefixText(100)
	for _, tokens := range []int{200, 2000} {
		want, err := p.Prompt(7, tokens)
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.AppendPrompt([]byte("kept"), 7, tokens)
		if err != nil || string(got) != "kept"+want {
			t.Fatalf("%d tokens: %v, prompt differs", tokens, err)
		}
	}
	if got, err := p.AppendPrompt([]byte("kept"), 7, 10); err == nil || string(got) != "kept" {
		t.Fatalf("too small: %q, %v", got, err)
	}
}

// With IndexWidth, requests whose indices have fewer digits are shorter by the difference,
// and the filler after the first line is the same bytes in every request.
func TestIndexWidthKeepsTheFillerIdentical(t *testing.T) {
	t.Parallel()
	p := Prompts{Seed: 7, CharsPerToken: 3, ResponseWords: 8, Nonce: "qwertyui", IndexWidth: 3}
	afterFirstLine := func(index int) string {
		s, err := p.Prompt(index, 2000)
		if err != nil {
			t.Fatal(err)
		}
		body := s[strings.IndexByte(s, '\n'):]
		return strings.TrimSuffix(body, p.Instruction(index))
	}
	for _, i := range []int{7, 42} {
		if afterFirstLine(i) != afterFirstLine(100) {
			t.Errorf("request %d's filler differs from request 100's", i)
		}
	}
	if a, _ := p.Prompt(7, 2000); len(a) != 6000-2 {
		t.Errorf("request 7: %d characters, want 2 fewer than 6000", len(a))
	}
}
