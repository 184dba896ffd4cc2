package artifact

import (
	"testing"
	"time"
)

// largeBenchmark is the reference with its rows repeated to n.
func largeBenchmark(tb testing.TB, n int) *Benchmark {
	tb.Helper()
	b, err := Decode(readReference(tb))
	if err != nil {
		tb.Fatal(err)
	}
	rows := make([]RequestTiming, n)
	for i := range rows {
		rows[i] = b.RequestTimings[i%len(b.RequestTimings)]
		rows[i].RequestIndex = i
	}
	b.RequestTimings = rows
	return b
}

// TestEncodeLarge bounds the cost of a 10000-request artifact very loosely, so that only an
// accidental quadratic path fails it.
func TestEncodeLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	b := largeBenchmark(t, 10000)
	start := time.Now()
	out, err := Encode(b)
	if err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(start)
	t.Logf("10000 rows: %d bytes in %v", len(out), elapsed)
	if elapsed > 5*time.Second {
		t.Errorf("encoding 10000 rows took %v", elapsed)
	}
	start = time.Now()
	if _, err := Decode(out); err != nil {
		t.Fatal(err)
	}
	t.Logf("decoded in %v", time.Since(start))
}

func BenchmarkEncode10000(b *testing.B) {
	bm := largeBenchmark(b, 10000)
	for b.Loop() {
		if _, err := Encode(bm); err != nil {
			b.Fatal(err)
		}
	}
}
