package wire

import (
	"math/bits"
	"unicode/utf8"
)

// hexDigits are the lowercase digits of \u escapes.
const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string, as the wire carries it: quotes, backslashes and
// control characters escaped (\n, \r, \t short, the rest \u00xx), U+2028 and U+2029 escaped,
// other text as UTF-8, and invalid UTF-8 replaced by \ufffd. It means what encoding/json's
// encoding means (which also escapes <, > and &) and what Python's json with ensure_ascii
// off writes, and it is several times faster (BenchmarkAppendString): a 64k-token prompt is
// 256 KB to escape before its request is sent. The artifact's own encoding escapes
// differently, one UTF-16 unit at a time (appendPythonUnit).
func AppendString[T ~string | ~[]byte](dst []byte, s T) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if i += plainPrefix(s[i:]); i == len(s) {
			break
		}
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := decodeRune(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// plainPrefix is how many leading bytes of s (all but the last few, which the caller tests
// one by one) are ASCII that JSON carries as they are: no control character, quote or
// backslash. It tests eight at a time.
func plainPrefix[T ~string | ~[]byte](s T) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	n := 0
	for len(s) >= 8 {
		_ = s[7]
		x := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
		quote, backslash := x^('"'*ones), x^('\\'*ones)
		// Each term sets a byte's high bit where it is below 0x20, a quote or a backslash;
		// exact whenever no byte of x has its own high bit set, which x itself tests.
		special := (x - 0x20*ones) & ^x
		special |= (quote - ones) & ^quote
		special |= (backslash - ones) & ^backslash
		if stop := (special | x) & highs; stop != 0 {
			// A borrow only runs upwards from a true hit, so the lowest flag is exact.
			return n + bits.TrailingZeros64(stop)/8
		}
		s, n = s[8:], n+8
	}
	return n
}

// decodeRune is utf8.DecodeRune for both string and []byte; only non-ASCII text reaches it.
func decodeRune[T ~string | ~[]byte](s T) (rune, int) {
	var p [utf8.UTFMax]byte
	n := copy(p[:], s)
	return utf8.DecodeRune(p[:n])
}

// appendPythonUnit appends one UTF-16 code unit as Python's ensure_ascii encoder writes it:
// printable ASCII (space to '~') verbatim except '"' and '\\', the five short escapes, and
// \u00xx-style lowercase hex for everything else, DEL included.
func appendPythonUnit(dst []byte, u rune) []byte {
	switch u {
	case '"', '\\':
		return append(dst, '\\', byte(u))
	case '\n':
		return append(dst, '\\', 'n')
	case '\r':
		return append(dst, '\\', 'r')
	case '\t':
		return append(dst, '\\', 't')
	case '\b':
		return append(dst, '\\', 'b')
	case '\f':
		return append(dst, '\\', 'f')
	}
	if u >= ' ' && u <= '~' {
		return append(dst, byte(u))
	}
	return append(dst, '\\', 'u', hexDigits[u>>12&0xf], hexDigits[u>>8&0xf], hexDigits[u>>4&0xf], hexDigits[u&0xf])
}
