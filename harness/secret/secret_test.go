package secret

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestEveryEncodingRedacts(t *testing.T) {
	t.Parallel()
	const key = "sk-canary-51e0"
	s := New(key)
	js, _ := json.Marshal(struct{ Key Secret }{s})
	text, _ := s.MarshalText()
	for _, out := range []string{fmt.Sprint(s), fmt.Sprintf("%v %+v %#v %q %s", s, s, s, s, s), string(js), string(text), s.GomegaString()} {
		if strings.Contains(out, key) || !strings.Contains(out, Redacted) {
			t.Errorf("encoded as %q", out)
		}
	}
	if s.Reveal() != key || !s.IsSet() || New("").IsSet() || New("").String() != "" {
		t.Error("Reveal, IsSet or the empty secret")
	}
}

func TestValidateNamesTheFlawNotTheKey(t *testing.T) {
	t.Parallel()
	for key, want := range map[string]string{
		"sk-canary\n":         "line break at byte 10 of 10",
		"sk-canary\r\nX-Y: 1": "line break at byte 10 of 17",
		"sk-canary\x1b[0m":    "control character 0x1b at byte 10 of 13",
		"sk-canary\x7f":       "control character 0x7f at byte 10 of 10",
	} {
		err := New(key).Validate()
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "canary") {
			t.Errorf("%q: %v, want %q and no key", key, err, want)
		}
	}
	for _, key := range []string{"", "sk-canary", "tab\tinside", "ünïcode"} {
		if err := New(key).Validate(); err != nil {
			t.Errorf("%q: %v", key, err)
		}
	}
}
