// Command tinyllama writes a small llama model with random weights and a real byte-level
// BPE tokenizer as one GGUF file, for measuring a real serving engine (Ollama, llama.cpp)
// on a CPU: tokenizer, prefill, decode, KV cache and the API are the engine's own; only
// the answers are noise. deploy/ollama/setup registers it with Ollama.
//
// The tokenizer is trained on English text that every Go installation carries: the Go
// documents and the comments of the standard library's sources, in path order, so one Go
// version always writes the same model.
//
//	go run ./cmd/tinyllama -out tiny.gguf -layers 4 -width 256 -heads 4 -ff 704
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "tinyllama:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fl := flag.NewFlagSet("tinyllama", flag.ContinueOnError)
	out := fl.String("out", "", "the GGUF file to write (required)")
	name := fl.String("name", "tiny-llama", "general.name")
	var s shape
	fl.IntVar(&s.layers, "layers", 4, "transformer blocks")
	fl.IntVar(&s.width, "width", 256, "model width (d_model)")
	fl.IntVar(&s.heads, "heads", 4, "attention heads")
	fl.IntVar(&s.kvHeads, "kv-heads", 0, "key/value heads (0: as many as heads)")
	fl.IntVar(&s.feedForward, "ff", 704, "feed-forward width")
	fl.IntVar(&s.context, "context", 16384, "context length the model states")
	merges := fl.Int("merges", 16000, "BPE merges to learn")
	corpusBytes := fl.Int("corpus-bytes", 6<<20, "text to train the tokenizer on, at most")
	seed := fl.Uint64("seed", 1, "the weights' seed")
	root := fl.String("corpus", "", "a Go installation whose documents and comments are the corpus (default: go env GOROOT)")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if *root == "" {
		goroot, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			return fmt.Errorf("go env GOROOT: %w (or name a Go installation with -corpus)", err)
		}
		*root = strings.TrimSpace(string(goroot))
	}
	if s.kvHeads == 0 {
		s.kvHeads = s.heads
	}
	switch {
	case *out == "":
		return fmt.Errorf("-out is required")
	case s.layers < 1 || s.width < 8 || s.heads < 1 || s.width%s.heads != 0 || s.heads%s.kvHeads != 0 || s.feedForward < 1:
		return fmt.Errorf("no llama has %d layers of width %d with %d heads (%d for keys and values) and feed-forward %d", s.layers, s.width, s.heads, s.kvHeads, s.feedForward)
	}
	text, err := corpus(*root, *corpusBytes)
	if err != nil {
		return err
	}
	if len(text) < 10_000 {
		return fmt.Errorf("the corpus under %s holds %d bytes of text; the tokenizer needs more", *root, len(text))
	}
	tok := trainBPE(text, *merges)
	v := vocabularyOf(tok)
	ts := weights(s, v, *seed)
	f, err := os.CreateTemp(filepath.Dir(*out), ".tinyllama-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := writeGGUF(f, metadata(*name, s, v, tok), ts); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", *out, err)
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), *out); err != nil {
		return err
	}
	var params int
	for _, t := range ts {
		params += len(t.values)
	}
	fmt.Fprintf(stdout, "%s: %.1fM parameters, %d layers of width %d, %d heads, vocabulary %d (%d merges from %d bytes of text), context %d\n",
		*out, float64(params)/1e6, s.layers, s.width, s.heads, len(v.tokens), len(tok.merges), len(text), s.context)
	return nil
}

// corpus is up to limit bytes of ASCII text from a Go installation: its documents (tags
// stripped), then the comment lines of its standard library's sources, each set in path
// order.
func corpus(goroot string, limit int) (string, error) {
	var docs, sources []string
	err := filepath.WalkDir(goroot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(goroot, path)
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(rel, "src/cmd") || strings.HasPrefix(rel, "pkg") || strings.HasPrefix(rel, "test")) {
			return filepath.SkipDir
		}
		switch {
		case d.IsDir():
		case strings.HasPrefix(rel, "doc/") && (strings.HasSuffix(path, ".html") || strings.HasSuffix(path, ".md")):
			docs = append(docs, path)
		case strings.HasPrefix(rel, "src/") && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go"):
			sources = append(sources, path)
		}
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("read the corpus under %s: %w", goroot, err)
	}
	slices.Sort(docs)
	slices.Sort(sources)
	var b strings.Builder
	tag := regexp.MustCompile(`<[^>]*>`)
	keep := func(s string) {
		for _, r := range s {
			if b.Len() >= limit {
				return
			}
			if r == '\n' || r == '\t' || r >= 0x20 && r < 0x7f {
				b.WriteRune(r)
			}
		}
	}
	for _, p := range docs {
		data, err := os.ReadFile(p)
		if err != nil {
			return "", err
		}
		keep(tag.ReplaceAllString(string(data), " "))
	}
	for _, p := range sources {
		if b.Len() >= limit {
			break
		}
		f, err := os.Open(p)
		if err != nil {
			return "", err
		}
		lines := bufio.NewScanner(f)
		for lines.Scan() {
			if line := strings.TrimSpace(lines.Text()); strings.HasPrefix(line, "// ") {
				keep(line[3:] + "\n")
			}
		}
		f.Close()
	}
	return b.String(), nil
}
