// Package suggest finds the known name a misspelt one was meant to be, for the
// did-you-mean of configuration and budget errors.
package suggest

import "strings"

// Nearest is the candidate closest to word by edit distance, when one is within
// maxDistance edits and is not word itself; "" otherwise. Ties go to the earlier
// candidate. A candidate that word names in part, or whole with a part more, on a "_"
// boundary (ANVIL_TRACE for ANVIL_TRACE_FILE, trace_file for trace) is nearer than any,
// the shortest such one; unless word's part more ends a close candidate as well
// (ANVIL_OUTPUT_DIR is ANVIL_OUT_DIR, not ANVIL_OUTPUT), or a candidate of as many parts
// is within two edits of it (ANVIL_BASELINE_ULR is ANVIL_BASELINE_URL), or one edit when
// word is the shorter (ANVIL_BUDGET is ANVIL_BUDGETS, not ANVIL_BUDGETS_FILE). Word's
// plural is nearest of all (priority is priorities, adapter adapters).
func Nearest(word string, candidates []string, maxDistance int) string {
	for _, c := range candidates {
		if plural(word, c) {
			return c
		}
	}
	best, bestDistance := "", maxDistance+1
	part, more := "", ""
	sameEnd, sameEndDistance := "", maxDistance+1
	for _, c := range candidates {
		if c == word {
			continue
		}
		if strings.HasPrefix(c, word+"_") && (part == "" || len(c) < len(part)) {
			part, more = c, ""
		}
		if strings.HasPrefix(word, c+"_") && (part == "" || len(c) < len(part)) {
			part, more = c, word[strings.LastIndexByte(word, '_'):]
		}
		d := distance(word, c)
		if d < bestDistance {
			best, bestDistance = c, d
		}
		if i := strings.LastIndexByte(word, '_'); i > 0 && strings.HasSuffix(c, word[i:]) && d < sameEndDistance {
			sameEnd, sameEndDistance = c, d
		}
	}
	switch {
	case part != "" && more != "" && sameEnd != "" && strings.HasSuffix(sameEnd, more):
		return sameEnd
	case part != "" && more != "" && typo(word, best, bestDistance):
		return best // ANVIL_BASELINE_ULR is ANVIL_BASELINE_URL, not ANVIL_BASELINE
	case part != "" && bestDistance == 1 && typo(word, best, bestDistance):
		return best // ANVIL_BUDGET is ANVIL_BUDGETS, not ANVIL_BUDGETS_FILE
	case part != "":
		return part
	}
	return best
}

// plural reports whether c is word's plural, in word's case: +s, or y as ies.
func plural(word, c string) bool {
	s, y, ies := "s", "y", "ies"
	if strings.ToUpper(word) == word {
		s, y, ies = "S", "Y", "IES"
	}
	if stem, ok := strings.CutSuffix(word, y); ok && c == stem+ies {
		return true
	}
	return c == word+s
}

// typo reports whether c, at edit distance d from word, reads as word mistyped: two edits
// at most, and as many "_" parts.
func typo(word, c string, d int) bool {
	return c != "" && d <= 2 && strings.Count(c, "_") == strings.Count(word, "_")
}

// distance is the Levenshtein distance between a and b, in bytes.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
