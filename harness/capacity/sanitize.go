package capacity

import (
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/anvilbench/anvilbench/harness/secret"
)

// sanitizer removes credentials from any text that goes into an artifact: the API key and
// the user information of the base URL.
type sanitizer struct {
	replacer *strings.Replacer
}

func newSanitizer(t Target) sanitizer {
	var pairs []string
	if t.APIKey.IsSet() {
		pairs = append(pairs, t.APIKey.Reveal(), secret.Redacted)
	}
	if u, err := url.Parse(t.BaseURL); err == nil && u.User != nil {
		pairs = append(pairs, u.User.String()+"@", "")
		if p, ok := u.User.Password(); ok && p != "" {
			pairs = append(pairs, p, secret.Redacted)
		}
	}
	return sanitizer{replacer: strings.NewReplacer(pairs...)}
}

func (s sanitizer) clean(text string) string { return s.replacer.Replace(text) }

// maxErrorMessageCharacters caps a failure's error_message, as the original tool does.
const maxErrorMessageCharacters = 2048

// message sanitizes text and caps it at maxErrorMessageCharacters characters,
// reporting whether it was cut. An empty message is replaced, as the original does.
func (s sanitizer) message(text string) (string, bool) {
	text = strings.ToValidUTF8(s.clean(text), "\uFFFD")
	if text == "" {
		return "<empty error message>", false
	}
	if utf8.RuneCountInString(text) <= maxErrorMessageCharacters {
		return text, false
	}
	n := 0
	for i := range text {
		if n == maxErrorMessageCharacters {
			return text[:i], true
		}
		n++
	}
	return text, false
}
