package artifact

import "github.com/anvilbench/anvilbench/internal/atomicfile"

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
func Encode(v any) ([]byte, error) { return atomicfile.EncodeJSON(v) }
