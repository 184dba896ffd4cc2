package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// Canonical re-emits one JSON document as Python's json.dumps(v, indent=2, sort_keys=True,
// ensure_ascii=True, allow_nan=False) + "\n" writes it: keys sorted by code point at every
// level, two-space indentation, "[]" and "{}" inline when empty, every non-ASCII character
// escaped as a lowercase \uXXXX (surrogate pairs above U+FFFF, a lone surrogate written back
// as it came), and "/", "<", ">", "&" left alone. Number text is kept verbatim. The artifact
// format is Python's own, which encoding/json cannot write: this encoder is here for that
// layout, byte for byte, not for speed.
func Canonical(in []byte) ([]byte, error) {
	e := emitter{in: in, out: make([]byte, 0, len(in)+len(in)/2)}
	e.skipSpace()
	if err := e.value(0); err != nil {
		return nil, err
	}
	e.skipSpace()
	if e.pos != len(e.in) {
		return nil, e.errorf("trailing data")
	}
	return append(e.out, '\n'), nil
}

// emitter is a single-pass JSON reader that writes its canonical form as it goes. Object
// members are rendered in input order and moved into sorted order afterwards only when the
// input was not sorted already, which encoding/json output nearly always is.
type emitter struct {
	in      []byte
	pos     int
	out     []byte
	members []member // a stack shared by the nested objects being rendered
	scratch []byte   // reordering buffer
}

// member is one rendered object member: its decoded key and its bytes in out, which begin
// with the "," separator.
type member struct {
	key        []byte
	start, end int
}

// maxDepth bounds nesting, as encoding/json's decoder does, so hostile input cannot
// exhaust the stack.
const maxDepth = 10000

func (e *emitter) errorf(format string, args ...any) error {
	return fmt.Errorf("invalid json at offset %d: %s", e.pos, fmt.Sprintf(format, args...))
}

func (e *emitter) skipSpace() {
	for e.pos < len(e.in) {
		switch e.in[e.pos] {
		case ' ', '\t', '\n', '\r':
			e.pos++
		default:
			return
		}
	}
}

func (e *emitter) indent(depth int) {
	e.out = append(e.out, '\n')
	for range depth {
		e.out = append(e.out, ' ', ' ')
	}
}

func (e *emitter) value(depth int) error {
	if depth > maxDepth {
		return e.errorf("nesting deeper than %d", maxDepth)
	}
	if e.pos >= len(e.in) {
		return e.errorf("unexpected end of input")
	}
	switch c := e.in[e.pos]; {
	case c == '{':
		return e.object(depth)
	case c == '[':
		return e.array(depth)
	case c == '"':
		_, err := e.str(false)
		return err
	case c == 't':
		return e.literal("true")
	case c == 'f':
		return e.literal("false")
	case c == 'n':
		return e.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return e.number()
	default:
		return e.errorf("unexpected character %q", c)
	}
}

func (e *emitter) literal(word string) error {
	if !bytes.HasPrefix(e.in[e.pos:], []byte(word)) {
		return e.errorf("invalid literal")
	}
	e.out = append(e.out, word...)
	e.pos += len(word)
	return nil
}

// number copies the number text verbatim, after checking it is a JSON number.
func (e *emitter) number() error {
	start := e.pos
	for e.pos < len(e.in) {
		c := e.in[e.pos]
		if (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' {
			e.pos++
			continue
		}
		break
	}
	text := e.in[start:e.pos]
	if !json.Valid(text) {
		e.pos = start
		return e.errorf("invalid number %q", text)
	}
	e.out = append(e.out, text...)
	return nil
}

func (e *emitter) array(depth int) error {
	e.pos++ // '['
	e.skipSpace()
	if e.pos < len(e.in) && e.in[e.pos] == ']' {
		e.pos++
		e.out = append(e.out, "[]"...)
		return nil
	}
	open := len(e.out)
	for {
		// Each element is written with a leading ","; the first one becomes the "[".
		e.out = append(e.out, ',')
		e.indent(depth + 1)
		e.skipSpace()
		if err := e.value(depth + 1); err != nil {
			return err
		}
		e.skipSpace()
		if e.pos >= len(e.in) {
			return e.errorf("unterminated array")
		}
		c := e.in[e.pos]
		e.pos++
		if c == ']' {
			break
		}
		if c != ',' {
			e.pos--
			return e.errorf("expected ',' or ']' in array")
		}
	}
	e.out[open] = '['
	e.indent(depth)
	e.out = append(e.out, ']')
	return nil
}

func (e *emitter) object(depth int) error {
	e.pos++ // '{'
	e.skipSpace()
	if e.pos < len(e.in) && e.in[e.pos] == '}' {
		e.pos++
		e.out = append(e.out, "{}"...)
		return nil
	}
	open := len(e.out)
	base := len(e.members)
	defer func() { e.members = e.members[:base] }()
	sorted := true
	for {
		e.skipSpace()
		if e.pos >= len(e.in) || e.in[e.pos] != '"' {
			return e.errorf("expected object key")
		}
		start := len(e.out)
		// Each member is written with a leading ","; the first one (after sorting) becomes "{".
		e.out = append(e.out, ',')
		e.indent(depth + 1)
		key, err := e.str(true)
		if err != nil {
			return err
		}
		e.skipSpace()
		if e.pos >= len(e.in) || e.in[e.pos] != ':' {
			return e.errorf("expected ':' after object key")
		}
		e.pos++
		e.out = append(e.out, ':', ' ')
		e.skipSpace()
		if err := e.value(depth + 1); err != nil {
			return err
		}
		if n := len(e.members); n > base {
			switch c := bytes.Compare(e.members[n-1].key, key); {
			case c == 0:
				return e.errorf("duplicate object key %q", key)
			case c > 0:
				sorted = false
			}
		}
		e.members = append(e.members, member{key: key, start: start, end: len(e.out)})
		e.skipSpace()
		if e.pos >= len(e.in) {
			return e.errorf("unterminated object")
		}
		c := e.in[e.pos]
		e.pos++
		if c == '}' {
			break
		}
		if c != ',' {
			e.pos--
			return e.errorf("expected ',' or '}' in object")
		}
	}
	if !sorted {
		if err := e.reorder(open, e.members[base:]); err != nil {
			return err
		}
	}
	e.out[open] = '{'
	e.indent(depth)
	e.out = append(e.out, '}')
	return nil
}

// reorder rewrites out[open:] with the members in key order. Python sorts str keys by code
// point, which is the byte order of their UTF-8 encoding.
func (e *emitter) reorder(open int, ms []member) error {
	slices.SortFunc(ms, func(a, b member) int { return bytes.Compare(a.key, b.key) })
	for i := 1; i < len(ms); i++ {
		if bytes.Equal(ms[i-1].key, ms[i].key) {
			return e.errorf("duplicate object key %q", ms[i].key)
		}
	}
	e.scratch = e.scratch[:0]
	for _, m := range ms {
		e.scratch = append(e.scratch, e.out[m.start:m.end]...)
	}
	copy(e.out[open:], e.scratch)
	return nil
}
