// Package secret holds the API key so that nothing can print it by accident.
package secret

import "fmt"

// Redacted is what a Secret prints as, everywhere.
const Redacted = "[redacted]"

// Secret holds a credential (the API key). Every way of printing or encoding it yields
// Redacted; only Reveal returns the value, and it is called where the Authorization header
// is built and nowhere else.
type Secret struct{ value string }

// New wraps a credential.
func New(v string) Secret { return Secret{value: v} }

// Reveal returns the credential itself.
func (s Secret) Reveal() string { return s.value }

// IsSet reports whether a credential was given.
func (s Secret) IsSet() bool { return s.value != "" }

// Validate reports, without the value, why the credential cannot be sent in an HTTP header:
// it holds a control character, most often the line break that ends a key file. net/http
// refuses such a header; a request written by hand would split it into two.
func (s Secret) Validate() error {
	for i := 0; i < len(s.value); i++ {
		switch c := s.value[i]; {
		case c == '\r' || c == '\n':
			return fmt.Errorf("the API key holds a line break at byte %d of %d (a key read from a file often ends with one)", i+1, len(s.value))
		case c < ' ' && c != '\t' || c == 0x7f:
			return fmt.Errorf("the API key holds control character 0x%02x at byte %d of %d", c, i+1, len(s.value))
		}
	}
	return nil
}

// String implements fmt.Stringer.
func (s Secret) String() string { return s.redacted() }

// GoString implements fmt.GoStringer (%#v).
func (s Secret) GoString() string { return s.redacted() }

// GomegaString keeps the value out of Gomega failure messages.
func (s Secret) GomegaString() string { return s.redacted() }

// MarshalText implements encoding.TextMarshaler.
func (s Secret) MarshalText() ([]byte, error) { return []byte(s.redacted()), nil }

// MarshalJSON implements json.Marshaler.
func (s Secret) MarshalJSON() ([]byte, error) { return []byte(`"` + s.redacted() + `"`), nil }

// UnmarshalText implements encoding.TextUnmarshaler; it never fails, so no parser error can
// echo the value.
func (s *Secret) UnmarshalText(b []byte) error {
	s.value = string(b)
	return nil
}

func (s Secret) redacted() string {
	if s.value == "" {
		return ""
	}
	return Redacted
}
