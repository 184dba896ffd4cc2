package refengine

import "unicode/utf8"

// bpeVocabulary holds the whole words CountTokensBPE counts as one token, with or without a
// leading space: common English and code words, as every BPE vocabulary holds them.
var bpeVocabulary = func() map[string]bool {
	words := []string{
		"a", "above", "and", "anvil", "begin", "by", "code", "compute", "context", "def", "each",
		"else", "exactly", "followed", "for", "helper", "if", "ignore", "in", "is", "line",
		"lowercase", "marker", "nothing", "of", "one", "reply", "request", "return", "routine",
		"separated", "shared", "single", "space", "spaces", "specialist", "summarize", "the",
		"to", "value", "with", "word", "words", "your", "prefix", "user", "system", "assistant",
	}
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}()

// CountTokensBPE is a tokenizer that behaves like a real byte-level BPE where CountTokens is
// uniform, so calibration is tested against the ways real vocabularies differ:
//
//   - common words (bpeVocabulary) are one token, others one per 4 letters, an
//     upper-case run one per 2; a single space before a word joins it;
//   - a run of one repeated digit merges, one token per 4 ("000000" is 2), while other
//     digits go in groups of 3 ("123456" is 2, "1234" is 2);
//   - a newline takes the indentation after it ("\n    " is 1), and blank lines merge
//     ("\n\n" is 1);
//   - punctuation pairs merge ("():" is 2), and a space before punctuation joins it;
//   - every non-ASCII rune is 2 tokens (its bytes), an invalid byte 1.
//
// Like CountTokens it allocates nothing and is linear in the text.
func CountTokensBPE(text string) int {
	n := 0
	for i := 0; i < len(text); {
		cls := byteClass[text[i]]
		if cls == clsHigh {
			r, size := utf8.DecodeRuneInString(text[i:])
			if r == utf8.RuneError && size == 1 {
				n++
			} else {
				n += 2
			}
			i += size
			continue
		}
		j := runEnd(text, i)
		switch cls {
		case clsLetter:
			n += wordTokens(text[i:j])
		case clsDigit:
			n += digitTokens(text[i:j])
		case clsNL:
			for j < len(text) && text[j] == ' ' {
				j++
			}
			n++
		case clsBlank:
			run := j - i
			// The last space joins a following word or punctuation mark.
			if text[j-1] == ' ' && j < len(text) && (byteClass[text[j]] == clsLetter || byteClass[text[j]] == clsOther) {
				run--
			}
			n += (run + 3) / 4
		case clsOther:
			n += (j - i + 1) / 2
		}
		i = j
	}
	return n
}

// wordTokens counts a run of ASCII letters.
func wordTokens(w string) int {
	if bpeVocabulary[w] {
		return 1
	}
	upper := 0
	for k := range len(w) {
		if w[k] >= 'A' && w[k] <= 'Z' {
			upper++
		}
	}
	if upper == len(w) {
		return (len(w) + 1) / 2
	}
	return (len(w) + 3) / 4
}

// digitTokens counts a run of digits: runs of one repeated digit merge, the rest go in
// groups of three.
func digitTokens(d string) int {
	n, mixed := 0, 0
	for i := 0; i < len(d); {
		j := i + 1
		for j < len(d) && d[j] == d[i] {
			j++
		}
		if j-i >= 2 {
			n += (mixed+2)/3 + (j-i+3)/4
			mixed = 0
		} else {
			mixed++
		}
		i = j
	}
	return n + (mixed+2)/3
}
