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
