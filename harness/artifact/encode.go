package artifact

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/anvilbench/anvilbench/internal/wire"
)

// Encode returns v as Python's json.dumps(v, indent=2, sort_keys=True, ensure_ascii=True,
// allow_nan=False) + "\n" would write it: keys sorted by code point at every level (struct
// fields included), two-space indentation, "[]" and "{}" inline when empty, every non-ASCII
// character escaped as a lowercase \uXXXX (surrogate pairs above U+FFFF), and "/", "<", ">",
// "&" left alone.
//
// v is first marshalled with encoding/json, then re-emitted token by token (wire.Canonical).
// Number text is kept verbatim, so Python float formatting needs the Float type: a plain
// float64 33.0 is written "33", as encoding/json writes it. A NaN or infinite Float is an
// error.
func Encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode json: %w", err)
	}
	out, err := wire.Canonical(buf.Bytes())
	if err != nil {
		return nil, fmt.Errorf("encode json: %w", err)
	}
	return out, nil
}
