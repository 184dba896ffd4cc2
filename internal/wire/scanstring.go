package wire

import (
	"unicode/utf16"
	"unicode/utf8"
)

// string_ parses a string and returns its value as a view (into data, or into scratch when
// it has escapes).
func (s *scanner) string_() (string, bool) {
	if !s.byte_('"') {
		return "", false
	}
	start := s.i
	end, high := plainRun(s.data, start)
	s.i = end
	if end >= len(s.data) {
		return "", false
	}
	switch s.data[end] {
	case '"':
		v := s.data[start:end]
		s.i++
		if high && !utf8.Valid(v) {
			return "", false // encoding/json would replace the invalid bytes
		}
		return view(v), true
	case '\\':
		return s.escaped(start, high)
	}
	return "", false // a control character
}

// escaped continues string_ at the first backslash of a string starting at start,
// unescaping into scratch.
func (s *scanner) escaped(start int, high bool) (string, bool) {
	off := len(*s.scratch)
	b := append(*s.scratch, s.data[start:s.i]...)
	for s.i < len(s.data) {
		j, h := plainRun(s.data, s.i)
		high = high || h
		b = append(b, s.data[s.i:j]...)
		s.i = j
		if j == len(s.data) {
			break
		}
		switch ch := s.data[j]; {
		case ch == '"':
			s.i++
			*s.scratch = b
			v := b[off:]
			if high && !utf8.Valid(v) {
				return "", false
			}
			return view(v), true
		case ch < 0x20:
			return "", false
		}
		if s.i+1 >= len(s.data) {
			return "", false
		}
		e := s.data[s.i+1]
		s.i += 2
		switch e {
		case '"', '\\', '/':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r := hex4(s.data[s.i:])
			if r < 0 {
				return "", false
			}
			s.i += 4
			if utf16.IsSurrogate(r) {
				// As encoding/json: a valid pair is one rune, anything else U+FFFD and the
				// second escape is read on its own.
				if len(s.data)-s.i >= 6 && s.data[s.i] == '\\' && s.data[s.i+1] == 'u' {
					if r2 := hex4(s.data[s.i+2:]); r2 >= 0 {
						if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
							s.i += 6
							b = utf8.AppendRune(b, dec)
							continue
						}
					}
				}
				r = utf8.RuneError
			}
			b = utf8.AppendRune(b, r)
		default:
			return "", false
		}
	}
	return "", false
}

// hex4 decodes four hex digits, -1 when they are not.
func hex4(p []byte) rune {
	if len(p) < 4 {
		return -1
	}
	var r rune
	for _, c := range p[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}
