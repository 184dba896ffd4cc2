package wire

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestCanonicalRejectsMalformed(t *testing.T) {
	for _, in := range []string{``, `{`, `{"a"}`, `{"a":}`, `[1,]`, `[1 2]`, `"abc`, `"\x"`,
		`"\u12"`, `tru`, `nul`, `-`, `1.`, `{"a":1}x`, "\"a\x01\"", `{1:2}`, `]`,
		"{\"\xff\":1,\"\x94\":2}" /* both keys read as U+FFFD: a duplicate */} {
		if got, err := Canonical([]byte(in)); err == nil {
			t.Errorf("Canonical(%q) = %q, want an error", in, got)
		}
	}
}

// FuzzCanonical checks that canonicalize never panics and, for valid JSON, produces a
// document with the same meaning.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{`{"b":[1,{"d":null,"c":"\u00e9"}],"a":{}}`, `[]`, `"\ud83d\ude00"`,
		`{"x":-1.5e-7,"y":true,"z":false}`, `[[[[]]]]`, `{"a":1,"a":2}`, `{"\u0000":"\"\\"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := Canonical(in)
		if err != nil {
			return
		}
		if !json.Valid(in) {
			t.Fatalf("canonicalize accepted invalid JSON %q", in)
		}
		var a, b any
		if err := json.Unmarshal(out, &b); err != nil {
			if json.Valid(out) {
				return // valid but not representable, e.g. 1e400
			}
			t.Fatalf("Canonical(%q) produced invalid JSON %q: %v", in, out, err)
		}
		if err := json.Unmarshal(in, &a); err != nil {
			t.Fatalf("input %q decodes but output does not: %v", in, err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("Canonical(%q) = %q changed the value", in, out)
		}
	})
}
