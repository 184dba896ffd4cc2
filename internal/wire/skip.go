package wire

// skip skips one value, checking that it is valid JSON.
func (s *scanner) skip(depth int) bool {
	if s.i >= len(s.data) {
		return false
	}
	switch c := s.data[s.i]; {
	case c == '"':
		return s.skipString()
	case c == '{':
		if depth >= maxSkipDepth {
			return false
		}
		s.i++
		s.ws()
		if s.byte_('}') {
			return true
		}
		for {
			if s.i >= len(s.data) || s.data[s.i] != '"' || !s.skipString() {
				return false
			}
			s.ws()
			if !s.byte_(':') {
				return false
			}
			s.ws()
			if !s.skip(depth + 1) {
				return false
			}
			s.ws()
			if s.byte_(',') {
				s.ws()
				continue
			}
			return s.byte_('}')
		}
	case c == '[':
		if depth >= maxSkipDepth {
			return false
		}
		s.i++
		s.ws()
		if s.byte_(']') {
			return true
		}
		for {
			if !s.skip(depth + 1) {
				return false
			}
			s.ws()
			if s.byte_(',') {
				s.ws()
				continue
			}
			return s.byte_(']')
		}
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || ('0' <= c && c <= '9'):
		return s.skipNumber()
	}
	return false
}

// skipString skips a string: escapes must be valid, control characters are not allowed,
// other bytes are (encoding/json replaces invalid UTF-8, which does not matter here).
func (s *scanner) skipString() bool {
	data := s.data
	i := s.i + 1 // past the opening quote
	for {
		for i < len(data) && stringClass[data[i]] != stopByte {
			i++
		}
		if i >= len(data) {
			return false
		}
		switch data[i] {
		case '"':
			s.i = i + 1
			return true
		case '\\':
			if i+1 >= len(data) {
				return false
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if hex4(data[i+2:]) < 0 {
					return false
				}
				i += 6
			default:
				return false
			}
		default:
			return false // a control character
		}
	}
}

// skipNumber skips -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) skipNumber() bool {
	s.byte_('-')
	if s.byte_('0') {
		// no more integer digits
	} else if s.digits() == 0 {
		return false
	}
	if s.byte_('.') && s.digits() == 0 {
		return false
	}
	if s.byte_('e') || s.byte_('E') {
		if !s.byte_('+') {
			s.byte_('-')
		}
		if s.digits() == 0 {
			return false
		}
	}
	return true
}

func (s *scanner) digits() int {
	start := s.i
	for s.i < len(s.data) && s.data[s.i] >= '0' && s.data[s.i] <= '9' {
		s.i++
	}
	return s.i - start
}
