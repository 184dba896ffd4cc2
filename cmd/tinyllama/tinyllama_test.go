package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// readGGUF reads back what writeGGUF wrote, independently of it: metadata by key, and
// each tensor's description and raw bytes, checking every offset's alignment.
func readGGUF(t *testing.T, data []byte) (map[string]any, map[string]tensorRecord) {
	t.Helper()
	r := bytes.NewReader(data)
	var fail error
	read := func(v any) {
		if fail == nil {
			fail = binary.Read(r, binary.LittleEndian, v)
		}
	}
	str := func() string {
		var n uint64
		read(&n)
		b := make([]byte, n)
		if fail == nil {
			_, fail = io.ReadFull(r, b)
		}
		return string(b)
	}
	magic := make([]byte, 4)
	read(magic)
	var version uint32
	var nTensors, nMeta uint64
	read(&version)
	read(&nTensors)
	read(&nMeta)
	if string(magic) != "GGUF" || version != 3 {
		t.Fatalf("magic %q version %d", magic, version)
	}
	var value func(kind uint32) any
	value = func(kind uint32) any {
		switch kind {
		case ggufUint32:
			var v uint32
			read(&v)
			return v
		case ggufInt32:
			var v int32
			read(&v)
			return v
		case ggufFloat32:
			var v float32
			read(&v)
			return v
		case ggufBool:
			var v uint8
			read(&v)
			return v == 1
		case ggufString:
			return str()
		case ggufArray:
			var elem uint32
			var n uint64
			read(&elem)
			read(&n)
			out := make([]any, n)
			for i := range out {
				out[i] = value(elem)
			}
			return out
		}
		t.Fatalf("metadata type %d", kind)
		return nil
	}
	metas := map[string]any{}
	for range nMeta {
		key := str()
		var kind uint32
		read(&kind)
		metas[key] = value(kind)
	}
	type info struct {
		name   string
		dims   []uint64
		kind   uint32
		offset uint64
	}
	var infos []info
	for range nTensors {
		in := info{name: str()}
		var n uint32
		read(&n)
		in.dims = make([]uint64, n)
		read(in.dims)
		read(&in.kind)
		read(&in.offset)
		infos = append(infos, in)
	}
	if fail != nil {
		t.Fatal(fail)
	}
	start := uint64(len(data)) - uint64(r.Len())
	start += (ggufAlignment - start%ggufAlignment) % ggufAlignment
	tensors := map[string]tensorRecord{}
	for _, in := range infos {
		if in.offset%ggufAlignment != 0 {
			t.Errorf("%s at offset %d, not aligned to %d", in.name, in.offset, ggufAlignment)
		}
		elems := uint64(1)
		for _, d := range in.dims {
			elems *= d
		}
		size := elems * 4
		if in.kind == ggmlF16 {
			size = elems * 2
		}
		if start+in.offset+size > uint64(len(data)) {
			t.Fatalf("%s runs past the file's end", in.name)
		}
		tensors[in.name] = tensorRecord{in.dims, in.kind, data[start+in.offset : start+in.offset+size]}
	}
	return metas, tensors
}

type tensorRecord struct {
	dims []uint64
	kind uint32
	raw  []byte
}

// value is element i of a tensor as a float64.
func (r tensorRecord) value(i int) float64 {
	if r.kind == ggmlF16 {
		return floatOfHalf(binary.LittleEndian.Uint16(r.raw[2*i:]))
	}
	return float64(math.Float32frombits(binary.LittleEndian.Uint32(r.raw[4*i:])))
}

// floatOfHalf decodes an IEEE 754 half, the oracle for halfOf.
func floatOfHalf(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp, frac := int(h>>10)&0x1f, float64(h&0x3ff)
	switch exp {
	case 0:
		return sign * frac / 1024 * math.Pow(2, -14)
	case 0x1f:
		if frac != 0 {
			return math.NaN()
		}
		return sign * math.Inf(1)
	}
	return sign * (1 + frac/1024) * math.Pow(2, float64(exp-15))
}

// Every half converts back to itself, and a float between two halves goes to the nearer,
// ties to the even one.
func TestHalfOfRoundsToNearestEven(t *testing.T) {
	t.Parallel()
	for h := range 1 << 16 {
		f := floatOfHalf(uint16(h))
		if math.IsNaN(f) {
			if got := halfOf(float32(f)); got&0x7c00 != 0x7c00 || got&0x3ff == 0 {
				t.Fatalf("NaN became %#04x", got)
			}
			continue
		}
		if got := halfOf(float32(f)); got != uint16(h) {
			t.Fatalf("half %#04x (%g) became %#04x", h, f, got)
		}
	}
	cases := []struct {
		f    float32
		want uint16
	}{
		{1, 0x3c00}, {-2, 0xc000}, {0.1, 0x2e66}, {65504, 0x7bff}, {65520, 0x7c00}, {1e6, 0x7c00},
		{float32(math.Pow(2, -24)), 0x0001}, {float32(math.Pow(2, -26)), 0}, // below half the smallest subnormal
		{1 + 1.0/2048, 0x3c00}, // a tie between 0x3c00 and 0x3c01: to the even
		{1 + 3.0/2048, 0x3c02}, // a tie between 0x3c01 and 0x3c02: to the even
		{float32(math.Pow(2, -25)) * 1.5, 0x0001},
	}
	for _, c := range cases {
		if got := halfOf(c.f); got != c.want {
			t.Errorf("halfOf(%g) = %#04x, want %#04x", c.f, got, c.want)
		}
	}
}

const sample = `The quick brown fox jumps over the lazy dog. The dog sleeps; the fox runs.
A package is a collection of source files in the same directory that are compiled together.
Functions, types, variables, and constants defined in one source file are visible to all
other source files within the same package. The quick brown fox, again and again: 1234 5678.
`

// Training merges the most frequent pair first, encodes the text it learned from into
// fewer tokens than bytes, every one in the vocabulary, and decodes back to the same bytes;
// the same text trains the same tokenizer.
func TestTrainBPE(t *testing.T) {
	t.Parallel()
	text := strings.Repeat(sample, 3)
	m := trainBPE(text, 200)
	if len(m.merges) == 0 || len(m.vocab) > 256+len(m.merges) {
		t.Fatalf("%d merges, vocabulary %d", len(m.merges), len(m.vocab))
	}
	// The first merge is the most frequent pair of neighbouring bytes within a piece.
	counts := map[string]int{}
	for _, p := range pieces.FindAllString(text, -1) {
		for i := 1; i < len(p); i++ {
			counts[symbolOf(p[i-1:i])+" "+symbolOf(p[i:i+1])]++
		}
	}
	best := 0
	for _, n := range counts {
		best = max(best, n)
	}
	if counts[m.merges[0]] != best {
		t.Errorf("first merge %q occurs %d times; the most frequent pair %d", m.merges[0], counts[m.merges[0]], best)
	}
	tokens := m.encode(text)
	if len(tokens) >= len(text)/2 {
		t.Errorf("%d tokens for %d bytes: the merges do not compress", len(tokens), len(text))
	}
	for _, tok := range tokens {
		if !slices.Contains(m.vocab, tok) {
			t.Fatalf("token %q is not in the vocabulary", tok)
		}
	}
	back := map[rune]byte{}
	for b, r := range byteSymbols {
		back[r] = byte(b)
	}
	var decoded []byte
	for _, r := range strings.Join(tokens, "") {
		decoded = append(decoded, back[r])
	}
	if string(decoded) != text {
		t.Errorf("decoded text differs from the original")
	}
	if again := trainBPE(text, 200); !slices.Equal(again.merges, m.merges) {
		t.Errorf("training twice gave different merges")
	}
	// The byte alphabet: 256 distinct runes, printable ASCII as itself, space as Ġ.
	seen := map[rune]bool{}
	for _, r := range byteSymbols {
		seen[r] = true
	}
	if len(seen) != 256 || byteSymbols['a'] != 'a' || byteSymbols[' '] != 'Ġ' || byteSymbols['\n'] != 'Ċ' {
		t.Errorf("byte alphabet: %d runes, space %q, newline %q", len(seen), byteSymbols[' '], byteSymbols['\n'])
	}
}

// The written model is a llama an engine can load: the metadata it reads, every tensor of
// every layer with its shape, a vocabulary and merges that agree, and the carrier channel
// that keeps control tokens and unprintable bytes out of the answers.
func TestWritesALoadableLlama(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	goroot := filepath.Join(dir, "go")
	os.MkdirAll(filepath.Join(goroot, "doc"), 0o755)
	os.MkdirAll(filepath.Join(goroot, "src", "fmt"), 0o755)
	os.WriteFile(filepath.Join(goroot, "doc", "spec.html"), []byte("<p>"+strings.Repeat(sample, 40)+"</p>"), 0o644)
	os.WriteFile(filepath.Join(goroot, "src", "fmt", "doc.go"), []byte("// "+strings.ReplaceAll(strings.Repeat(sample, 5), "\n", "\n// ")+"\npackage fmt\n"), 0o644)
	out := filepath.Join(dir, "tiny.gguf")
	var said bytes.Buffer
	args := []string{"-out", out, "-layers", "2", "-width", "32", "-heads", "4", "-kv-heads", "2", "-ff", "48", "-context", "512", "-merges", "300", "-corpus", goroot}
	if err := run(args, &said); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	metas, tensors := readGGUF(t, data)
	tokens := metas["tokenizer.ggml.tokens"].([]any)
	merges := metas["tokenizer.ggml.merges"].([]any)
	types := metas["tokenizer.ggml.token_type"].([]any)
	if len(tokens)%64 != 0 || len(types) != len(tokens) || metas["llama.vocab_size"] != uint32(len(tokens)) {
		t.Fatalf("%d tokens, %d types, vocab_size %v", len(tokens), len(types), metas["llama.vocab_size"])
	}
	if metas["general.architecture"] != "llama" || metas["llama.block_count"] != uint32(2) || metas["llama.attention.head_count_kv"] != uint32(2) ||
		metas["llama.context_length"] != uint32(512) || metas["tokenizer.ggml.model"] != "gpt2" {
		t.Errorf("metadata %v", metas)
	}
	for _, mg := range merges {
		left, right, _ := strings.Cut(mg.(string), " ")
		if !slices.Contains(tokens, any(left+right)) {
			t.Errorf("merge %q makes no token of the vocabulary", mg)
		}
	}
	bos, eos := int(metas["tokenizer.ggml.bos_token_id"].(uint32)), int(metas["tokenizer.ggml.eos_token_id"].(uint32))
	if tokens[bos] != "<s>" || tokens[eos] != "</s>" || types[eos] != tokenControl {
		t.Errorf("bos %v eos %v (type %v)", tokens[bos], tokens[eos], types[eos])
	}
	want := map[string][]uint64{"token_embd.weight": {32, uint64(len(tokens))}, "output.weight": {32, uint64(len(tokens))}, "output_norm.weight": {32}}
	for l := range 2 {
		p := fmt.Sprintf("blk.%d.", l)
		want[p+"attn_q.weight"], want[p+"attn_k.weight"], want[p+"attn_v.weight"] = []uint64{32, 32}, []uint64{32, 16}, []uint64{32, 16}
		want[p+"attn_output.weight"], want[p+"ffn_gate.weight"], want[p+"ffn_up.weight"] = []uint64{32, 32}, []uint64{32, 48}, []uint64{32, 48}
		want[p+"ffn_down.weight"], want[p+"attn_norm.weight"], want[p+"ffn_norm.weight"] = []uint64{48, 32}, []uint64{32}, []uint64{32}
	}
	if len(tensors) != len(want) {
		t.Errorf("%d tensors, want %d", len(tensors), len(want))
	}
	for name, dims := range want {
		if got, ok := tensors[name]; !ok || !slices.Equal(got.dims, dims) {
			t.Errorf("%s: dims %v, want %v", name, got.dims, dims)
		}
	}
	// The carrier: set in every embedding, written by no layer, read by the output layer
	// to push the end token, control tokens and unprintable bytes down.
	emb, outW := tensors["token_embd.weight"], tensors["output.weight"]
	for tok := range tokens {
		if emb.value(tok*32) != carrierValue {
			t.Fatalf("token %d's embedding carries %g", tok, emb.value(tok*32))
		}
		unsaid := outW.value(tok*32) == unsaidWeight
		if speakable := types[tok] == tokenNormal && (tok >= 256 || tok == '\n' || tok >= 0x20 && tok < 0x7f); unsaid == speakable {
			t.Errorf("token %d (%q): pushed down %v", tok, tokens[tok], unsaid)
		}
	}
	for l := range 2 {
		for _, name := range []string{"attn_output", "ffn_down"} {
			w := tensors[fmt.Sprintf("blk.%d.%s.weight", l, name)]
			for i := range int(w.dims[0]) {
				if w.value(i) != 0 {
					t.Fatalf("%s of layer %d writes the carrier", name, l)
				}
			}
		}
	}
	if !strings.Contains(said.String(), "2 layers of width 32") {
		t.Errorf("said %q", said.String())
	}
	if err := run([]string{"-out", out, "-width", "30", "-heads", "4", "-corpus", goroot}, io.Discard); err == nil || !strings.Contains(err.Error(), "no llama has") {
		t.Errorf("a width the heads do not divide: %v", err)
	}
}
