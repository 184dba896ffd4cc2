package wire

import (
	"unicode/utf16"
	"unicode/utf8"
)

// str reads the JSON string at e.pos and writes it with Python's ensure_ascii escaping.
// For a key it also returns the decoded bytes, which the caller sorts by; they alias the
// input when the string holds no escapes.
func (e *emitter) str(isKey bool) ([]byte, error) {
	e.pos++ // opening quote
	start := e.pos
	var decoded []byte // nil until an escape forces a copy of a key
	e.out = append(e.out, '"')
	for {
		if e.pos >= len(e.in) {
			return nil, e.errorf("unterminated string")
		}
		c := e.in[e.pos]
		switch {
		case c == '"':
			var key []byte
			if isKey {
				key = e.in[start:e.pos]
				if decoded != nil {
					key = decoded
				}
			}
			e.pos++
			e.out = append(e.out, '"')
			return key, nil
		case c == '\\':
			if isKey && decoded == nil {
				decoded = append([]byte(nil), e.in[start:e.pos]...)
			}
			unit, err := e.escape()
			if err != nil {
				return nil, err
			}
			// A \u escape is one UTF-16 code unit; Python escapes non-ASCII code units one by
			// one, so surrogate halves, paired or lone, are written back as they came.
			e.out = appendPythonUnit(e.out, unit)
			r := unit
			if utf16.IsSurrogate(unit) && unit < 0xdc00 {
				if lo, ok := e.lowSurrogate(); ok {
					e.out = appendPythonUnit(e.out, lo)
					r = utf16.DecodeRune(unit, lo)
				}
			}
			if isKey {
				decoded = utf8.AppendRune(decoded, r)
			}
		case c < 0x20:
			return nil, e.errorf("control character in string")
		case c < utf8.RuneSelf:
			e.pos++
			e.out = appendPythonUnit(e.out, rune(c))
			if decoded != nil {
				decoded = append(decoded, c)
			}
		default:
			r, size := utf8.DecodeRune(e.in[e.pos:])
			// Invalid UTF-8 becomes U+FFFD, as encoding/json does; a key keeps the replaced
			// form so that two keys differing only in invalid bytes are found duplicates.
			if isKey && decoded == nil && r == utf8.RuneError && size == 1 {
				decoded = append(make([]byte, 0, e.pos-start+utf8.UTFMax), e.in[start:e.pos]...)
			}
			e.pos += size
			if r >= 0x10000 {
				hi, lo := surrogates(r)
				e.out = appendPythonUnit(e.out, hi)
				e.out = appendPythonUnit(e.out, lo)
			} else {
				e.out = appendPythonUnit(e.out, r)
			}
			if decoded != nil {
				decoded = utf8.AppendRune(decoded, r)
			}
		}
	}
}

// escape decodes the backslash escape at e.pos into one UTF-16 code unit.
func (e *emitter) escape() (rune, error) {
	if e.pos+1 >= len(e.in) {
		return 0, e.errorf("unterminated escape")
	}
	c := e.in[e.pos+1]
	e.pos += 2
	switch c {
	case '"', '\\', '/':
		return rune(c), nil
	case 'b':
		return '\b', nil
	case 'f':
		return '\f', nil
	case 'n':
		return '\n', nil
	case 'r':
		return '\r', nil
	case 't':
		return '\t', nil
	case 'u':
		if e.pos+4 > len(e.in) {
			return 0, e.errorf("short \\u escape")
		}
		var r rune
		for _, h := range e.in[e.pos : e.pos+4] {
			var d byte
			switch {
			case h >= '0' && h <= '9':
				d = h - '0'
			case h >= 'a' && h <= 'f':
				d = h - 'a' + 10
			case h >= 'A' && h <= 'F':
				d = h - 'A' + 10
			default:
				return 0, e.errorf("invalid \\u escape")
			}
			r = r<<4 | rune(d)
		}
		e.pos += 4
		return r, nil
	default:
		e.pos -= 2
		return 0, e.errorf("invalid escape %q", c)
	}
}

// lowSurrogate consumes a \u escape of a low surrogate at e.pos, if there is one, so that
// a pair decodes to its rune.
func (e *emitter) lowSurrogate() (rune, bool) {
	if e.pos+1 >= len(e.in) || e.in[e.pos] != '\\' || e.in[e.pos+1] != 'u' {
		return 0, false
	}
	save := e.pos
	lo, err := e.escape()
	if err != nil || lo < 0xdc00 || lo > 0xdfff {
		e.pos = save
		return 0, false
	}
	return lo, true
}

// surrogates splits a supplementary-plane rune into its UTF-16 surrogate pair.
func surrogates(r rune) (hi, lo rune) {
	r -= 0x10000
	return 0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff
}
