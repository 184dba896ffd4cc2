package refengine

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// FaultsHeader is the request header that overrides Options.Faults for one request. Its value
// is Faults.String's format, e.g. "extra_words=2,missing_words=0,truncate_after=5"; keys left
// out are 0, so the header replaces the server's faults entirely. A malformed value gets 400.
const FaultsHeader = "X-Anvil-Faults"

// Faults is injected misbehaviour, used to prove that clients detect it.
type Faults struct {
	// ExtraWords appends this many extra non-code words ("extra1", "extra2", ...) to a
	// controlled-output reply, before the end-of-sequence token.
	ExtraWords int
	// MissingWords emits this many fewer code words than the instruction asks (not below 0).
	MissingWords int
	// TruncateAfter ends the response after this many completion tokens, cleanly at the HTTP
	// level but with no finish_reason, no usage and no [DONE] (a non-streamed response gets a
	// cut JSON body). It has no effect when the reply is not longer. 0 = off.
	TruncateAfter int
}

// String formats f as a FaultsHeader value.
func (f Faults) String() string {
	return fmt.Sprintf("extra_words=%d,missing_words=%d,truncate_after=%d",
		f.ExtraWords, f.MissingWords, f.TruncateAfter)
}

// ParseFaults parses a FaultsHeader value: comma-separated key=value pairs with the keys
// extra_words, missing_words and truncate_after and non-negative integer values. An empty
// value is the zero Faults.
func ParseFaults(s string) (Faults, error) {
	var f Faults
	for field := range strings.SplitSeq(s, ",") {
		field = strings.TrimSpace(field)
		if field == "" {
			continue
		}
		key, val, ok := strings.Cut(field, "=")
		if !ok {
			return Faults{}, fmt.Errorf("parse faults %q: %q is not key=value", s, field)
		}
		n, err := strconv.Atoi(strings.TrimSpace(val))
		if err != nil {
			return Faults{}, fmt.Errorf("parse faults %q: %w", s, err)
		}
		switch strings.TrimSpace(key) {
		case "extra_words":
			f.ExtraWords = n
		case "missing_words":
			f.MissingWords = n
		case "truncate_after":
			f.TruncateAfter = n
		default:
			return Faults{}, fmt.Errorf("parse faults %q: unknown key %q", s, key)
		}
	}
	if err := f.validate(); err != nil {
		return Faults{}, fmt.Errorf("parse faults %q: %w", s, err)
	}
	return f, nil
}

func (f Faults) validate() error {
	if f.ExtraWords < 0 || f.MissingWords < 0 || f.TruncateAfter < 0 {
		return errors.New("fault counts must not be negative")
	}
	return nil
}
