package refengine

import "unicode/utf8"

// Byte classes of the CountTokens pre-tokenizer.
const (
	clsOther  = iota // punctuation, symbols, control bytes: 1 token each
	clsLetter        // ASCII letters
	clsDigit         // ASCII digits
	clsBlank         // space, tab, CR, FF, VT
	clsNL            // newline
	clsHigh          // first byte of a non-ASCII rune (or an invalid byte)
)

var byteClass = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			t[c] = clsLetter
		case c >= '0' && c <= '9':
			t[c] = clsDigit
		case c == ' ', c == '\t', c == '\r', c == '\f', c == '\v':
			t[c] = clsBlank
		case c == '\n':
			t[c] = clsNL
		case c >= utf8.RuneSelf:
			t[c] = clsHigh
		}
	}
	return t
}()

// CountTokens is the default tokenizer: a deterministic, single-pass approximation of a BPE
// pre-tokenizer (GPT-style), in tokens:
//
//   - a run of ASCII letters counts ceil(len/8), since a BPE vocabulary holds most common
//     words whole; one space directly before it is part of the word and free (" code" is 1
//     token, like "code");
//   - a run of ASCII digits counts ceil(len/3);
//   - each newline counts 1;
//   - a run of other blanks (spaces, tabs, CR) counts ceil(len/4), after giving its last space
//     to a following word;
//   - every other character (punctuation, symbols, each non-ASCII rune, each invalid UTF-8
//     byte) counts 1.
//
// It allocates nothing and runs in O(len(text)): a 200k-character prompt takes well under a
// millisecond.
func CountTokens(text string) int {
	n := 0
	for i := 0; i < len(text); {
		switch byteClass[text[i]] {
		case clsLetter:
			j := runEnd(text, i)
			n += (j - i + 7) / 8
			i = j
		case clsDigit:
			j := runEnd(text, i)
			n += (j - i + 2) / 3
			i = j
		case clsBlank:
			j := runEnd(text, i)
			run := j - i
			if text[j-1] == ' ' && j < len(text) && byteClass[text[j]] == clsLetter {
				run-- // the space leads the next word
			}
			n += (run + 3) / 4
			i = j
		case clsNL, clsOther:
			n++
			i++
		default: // clsHigh
			_, size := utf8.DecodeRuneInString(text[i:])
			n++
			i += size
		}
	}
	return n
}

// runEnd is where the run of bytes of text[i]'s class that starts at i ends.
func runEnd(text string, i int) int {
	cls := byteClass[text[i]]
	j := i + 1
	for j < len(text) && byteClass[text[j]] == cls {
		j++
	}
	return j
}

// CountTokensCoarse is a second, deliberately different tokenizer: ceil(runes/4) tokens,
// counting UTF-8 runes. Tests use it to show that calibration does not depend on one rule.
func CountTokensCoarse(text string) int {
	return (utf8.RuneCountInString(text) + 3) / 4
}
