package artifact

import (
	"encoding/json"
	"testing"
)

// Wants in this file are CPython 3.11's json.dumps(v, indent=2, sort_keys=True,
// ensure_ascii=True) + "\n".

func TestEncodeStrings(t *testing.T) {
	in := "a\"\\/\n\r\t\b\f\x00\x01\x1f\x7f\u0080é\u2028\u2029\ufffd😀</>&"
	want := `"a\"\\/\n\r\t\b\f\u0000\u0001\u001f\u007f\u0080\u00e9\u2028\u2029\ufffd\ud83d\ude00</>&"` + "\n"
	got, err := Encode(in)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestEncodeLayout(t *testing.T) {
	v := map[string]any{
		"b": 1,
		"a": []int{},
		"c": map[string]int{},
		"é": []any{1, map[string]any{"z": nil, "y": true}},
	}
	want := `{
  "a": [],
  "b": 1,
  "c": {},
  "\u00e9": [
    1,
    {
      "y": true,
      "z": null
    }
  ]
}
`
	got, err := Encode(v)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// TestEncodeSortsStructFields checks that struct fields are sorted by JSON name, not kept
// in declaration order, and that nested objects are sorted independently.
func TestEncodeSortsStructFields(t *testing.T) {
	type inner struct {
		Z int `json:"z"`
		A int `json:"a"`
	}
	type outer struct {
		Zeta  inner  `json:"zeta"`
		Alpha string `json:"alpha"`
		Mid   []inner
	}
	got, err := Encode(outer{Zeta: inner{1, 2}, Alpha: "x", Mid: []inner{{3, 4}}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "Mid": [
    {
      "a": 4,
      "z": 3
    }
  ],
  "alpha": "x",
  "zeta": {
    "a": 2,
    "z": 1
  }
}
`
	if string(got) != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// TestEncodeKeyOrderIsCodePoint checks Python's code-point key order, which escaping must
// not disturb ("\u00e9" sorts after "z" although '\\' < 'z').
func TestEncodeKeyOrderIsCodePoint(t *testing.T) {
	v := map[string]int{"z": 0, "é": 1, "A": 2, "_": 3, "a": 4, "\uffff": 5, "😀": 6}
	got, err := Encode(v)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"A\": 2,\n  \"_\": 3,\n  \"a\": 4,\n  \"z\": 0,\n  \"\\u00e9\": 1,\n" +
		"  \"\\uffff\": 5,\n  \"\\ud83d\\ude00\": 6\n}\n"
	if string(got) != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// TestEncodeRawMessage covers input that encoding/json passes through from a RawMessage:
// escaped keys out of order, surrogate escapes, whitespace and number text kept verbatim.
func TestEncodeRawMessage(t *testing.T) {
	raw := json.RawMessage(`{ "\ud83d\ude00" : 1E+2, "\u00e9":-0.50, "b\n": [ ], "a" :{"\u0041":"\ud800x\u003c"}}`)
	got, err := Encode(raw)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "a": {
    "A": "\ud800x<"
  },
  "b\n": [],
  "\u00e9": -0.50,
  "\ud83d\ude00": 1E+2
}
`
	if string(got) != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestEncodeDuplicateKeys(t *testing.T) {
	for _, raw := range []string{`{"a":1,"a":2}`, `{"b":1,"a":2,"b":3}`, `{"a":1,"\u0061":2}`} {
		if got, err := Encode(json.RawMessage(raw)); err == nil {
			t.Errorf("Encode(%s) = %s, want a duplicate-key error", raw, got)
		}
	}
}
