package workload

import (
	"fmt"
	"strconv"
	"strings"
)

// Bounds of a bucket's context size, the same as those of a fixed planned context.
const (
	minBucketTokens = MinPromptTokens
	maxBucketTokens = 1048576
)

// Bucket is one step of a cumulative context-size distribution: a draw u ≤ UpTo (and above
// the previous bucket's edge) plans a context of Tokens tokens.
type Bucket struct {
	// UpTo is the cumulative probability upper edge, in (0, 1].
	UpTo float64
	// Tokens is the planned context size in tokens.
	Tokens int
}

// Buckets is a cumulative context-size distribution, written as text
// "0.218:16000,0.602:32768,..." (parseBuckets).
type Buckets []Bucket

// DefaultBuckets is the original tool's measured sub-agent context mix: 21.8% 16k, 38.4%
// 32k, 30.4% 64k, 8.9% 128k and 0.5% 256k tokens.
func DefaultBuckets() Buckets {
	return Buckets{{0.218, 16000}, {0.602, 32768}, {0.906, 65536}, {0.995, 131072}, {1.0, 262144}}
}

// String writes the distribution as parseBuckets reads it.
func (b Buckets) String() string {
	parts := make([]string, len(b))
	for i, x := range b {
		parts[i] = strconv.FormatFloat(x.UpTo, 'g', -1, 64) + ":" + strconv.Itoa(x.Tokens)
	}
	return strings.Join(parts, ",")
}

// MarshalText writes b as String does.
func (b Buckets) MarshalText() ([]byte, error) { return []byte(b.String()), nil }

// UnmarshalText reads a distribution with parseBuckets.
func (b *Buckets) UnmarshalText(text []byte) error {
	parsed, err := parseBuckets(string(text))
	if err != nil {
		return err
	}
	*b = parsed
	return nil
}

// sampleContext maps a uniform draw u in [0, 1] to a context size: the Tokens of the first
// bucket whose edge is ≥ u, or of the last bucket when u lies above every edge.
func sampleContext(u float64, buckets []Bucket) (int, error) {
	if !(u >= 0 && u <= 1) { // also rejects NaN
		return 0, fmt.Errorf("sample context: draw %v outside [0, 1]", u)
	}
	if len(buckets) == 0 {
		return 0, fmt.Errorf("sample context: no buckets")
	}
	for _, b := range buckets {
		if u <= b.UpTo {
			return b.Tokens, nil
		}
	}
	return buckets[len(buckets)-1].Tokens, nil
}

// parseBuckets parses a cumulative distribution such as
// "0.218:16000,0.602:32768,0.906:65536,0.995:131072,1:262144": comma-separated edge:tokens
// terms with edges strictly increasing in (0, 1], the last exactly 1, and tokens in
// 32..1048576. Spaces around terms and numbers are ignored.
func parseBuckets(s string) (Buckets, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("no buckets")
	}
	var out Buckets
	for term := range strings.SplitSeq(s, ",") {
		term = strings.TrimSpace(term)
		b, err := parseBucket(term)
		if err != nil {
			return nil, fmt.Errorf("bucket %q: %w", term, err)
		}
		out = append(out, b)
	}
	if err := CheckBuckets(out); err != nil {
		return nil, err
	}
	return out, nil
}

// CheckBuckets checks a distribution built in code as parseBuckets checks a parsed one:
// edges strictly increasing in (0, 1], the last exactly 1, tokens in 32..1048576.
func CheckBuckets(buckets []Bucket) error {
	if len(buckets) == 0 {
		return fmt.Errorf("no buckets")
	}
	for i, b := range buckets {
		term := fmt.Sprintf("%v:%d", b.UpTo, b.Tokens)
		if !(b.UpTo > 0 && b.UpTo <= 1) {
			return fmt.Errorf("bucket %q: edge %v outside (0, 1]", term, b.UpTo)
		}
		if b.Tokens < minBucketTokens || b.Tokens > maxBucketTokens {
			return fmt.Errorf("bucket %q: tokens %d outside %d..%d", term, b.Tokens, minBucketTokens, maxBucketTokens)
		}
		if i > 0 && b.UpTo <= buckets[i-1].UpTo {
			return fmt.Errorf("bucket %q: edge %v does not exceed the previous edge %v", term, b.UpTo, buckets[i-1].UpTo)
		}
	}
	// Without an edge of 1 some draws would fall past the end of the distribution.
	if last := buckets[len(buckets)-1]; last.UpTo != 1 {
		return fmt.Errorf("bucket \"%v:%d\": the last edge must be 1, not %v", last.UpTo, last.Tokens, last.UpTo)
	}
	return nil
}

// parseBucket parses one "edge:tokens" term.
func parseBucket(term string) (Bucket, error) {
	edgeText, tokText, ok := strings.Cut(term, ":")
	if !ok {
		return Bucket{}, fmt.Errorf("want edge:tokens")
	}
	edge, err := strconv.ParseFloat(strings.TrimSpace(edgeText), 64)
	if err != nil {
		return Bucket{}, fmt.Errorf("edge: %w", err)
	}
	if !(edge > 0 && edge <= 1) { // also rejects NaN and Inf
		return Bucket{}, fmt.Errorf("edge %v outside (0, 1]", edge)
	}
	tokens, err := strconv.Atoi(strings.TrimSpace(tokText))
	if err != nil {
		return Bucket{}, fmt.Errorf("tokens: %w", err)
	}
	if tokens < minBucketTokens || tokens > maxBucketTokens {
		return Bucket{}, fmt.Errorf("tokens %d outside %d..%d", tokens, minBucketTokens, maxBucketTokens)
	}
	return Bucket{UpTo: edge, Tokens: tokens}, nil
}

// PlanContexts returns the planned context size of each of n requests, fixed before any
// request is sent. With fixed > 0 every entry is fixed. Otherwise entry i is
// sampleContext of the i-th Random() of one newPyRandom(seed) over buckets (DefaultBuckets
// when empty), so the plan equals the original tool's for the same seed; the generator is
// used only in this case. A negative fixed is invalid configuration and is treated as 0.
// Finally every entry is clamped to capTokens when capTokens > 0.
func PlanContexts(n int, fixed int, seed int64, buckets []Bucket, capTokens int) []int {
	plan := make([]int, max(n, 0))
	if len(buckets) == 0 {
		buckets = DefaultBuckets()
	}
	var rng *pyRandom
	if fixed <= 0 {
		rng = newPyRandom(seed)
	}
	for i := range plan {
		if rng == nil {
			plan[i] = fixed
		} else {
			// Random() is in [0, 1) and buckets is non-empty, so this cannot fail.
			plan[i], _ = sampleContext(rng.Random(), buckets)
		}
		if capTokens > 0 {
			plan[i] = min(plan[i], capTokens)
		}
	}
	return plan
}
