package wire

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestAppendString(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "code", ` code`, `a"b\c`, "tab\tnl\ncr\r\x00\x1f", "日本 é",
		"\u2028\u2029", "bad\xffutf8\xc3", "<&>"} {
		got := AppendString(nil, s)
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Errorf("%q encodes to invalid JSON %s: %v", s, got, err)
			continue
		}
		if want := decodeStd(t, s); back != want {
			t.Errorf("%q round-trips to %q, want %q", s, back, want)
		}
		if bs := AppendString(nil, []byte(s)); string(bs) != string(got) {
			t.Errorf("[]byte and string encodings differ: %s vs %s", bs, got)
		}
	}
	if got := string(AppendString(nil, "<&>")); got != `"<&>"` {
		t.Errorf("HTML characters escaped: %s (vLLM does not)", got)
	}
}

// decodeStd is what encoding/json makes of s (invalid bytes become U+FFFD each).
func decodeStd(t *testing.T, s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back string
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	return back
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"code", "\"\\\n", "\xff", "\u2028", "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var back string
		if err := json.Unmarshal(AppendString(nil, s), &back); err != nil {
			t.Fatalf("invalid JSON for %q: %v", s, err)
		}
		if want := decodeStd(t, s); back != want {
			t.Fatalf("%q round-trips to %q, want %q", s, back, want)
		}
	})
}

// TestAppendStringEveryByteEverywhere puts each byte value at each offset of a word
// the eight-at-a-time scan reads (and past it), in plain ASCII around it: the string must
// decode to what encoding/json makes of it.
func TestAppendStringEveryByteEverywhere(t *testing.T) {
	t.Parallel()
	const plain = "abcdefghijklmnopqrstuvwxyz0123"
	for b := range 256 {
		for at := range 20 {
			s := plain[:at] + string([]byte{byte(b)}) + plain[at:]
			got := AppendString(nil, s)
			want, _ := json.Marshal(s)
			var g, w string
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatalf("byte %#x at %d: %s is not a JSON string: %v", b, at, got, err)
			}
			if err := json.Unmarshal(want, &w); err != nil || g != w {
				t.Fatalf("byte %#x at %d: %s decodes to %q, encoding/json to %q", b, at, got, g, w)
			}
		}
	}
	if got := string(AppendString(nil, "ok \u2028 é \xff")); got != `"ok \u2028 é \ufffd"` {
		t.Errorf("line separator, accent, invalid byte: %s", got)
	}
}

// The escaper against encoding/json, on a 256 KB prompt of the kind a 64k-token request
// sends: the reason a hand-written escaper is kept.
func BenchmarkAppendString(b *testing.B) {
	prompt := strings.Repeat("The quick brown fox jumps over the lazy dog; \"quoted\" line\n", 4096)
	b.Run("wire", func(b *testing.B) {
		b.SetBytes(int64(len(prompt)))
		buf := make([]byte, 0, 2*len(prompt))
		for b.Loop() {
			buf = AppendString(buf[:0], prompt)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(prompt)))
		for b.Loop() {
			if _, err := json.Marshal(prompt); err != nil {
				b.Fatal(err)
			}
		}
	})
}
