package capacity

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// referenceArtifact is the reference v1 artifact with its request rows repeated to rows.
func referenceArtifact(b *testing.B, rows int) *artifact.Benchmark {
	b.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "reference", "benchmark-v1-example.json"))
	if err != nil {
		b.Fatal(err)
	}
	bm, err := artifact.Decode(raw)
	if err != nil {
		b.Fatal(err)
	}
	timings := make([]artifact.RequestTiming, rows)
	for i := range timings {
		timings[i] = bm.RequestTimings[i%len(bm.RequestTimings)]
		timings[i].RequestIndex = i
	}
	bm.RequestTimings = timings
	return bm
}

// BenchmarkArtifactWrite costs what ends every scenario: encoding its artifact (6 request
// rows as the reference scenario, 1000 as a large one) and replacing the file atomically
// (temporary file, fsync, rename, directory fsync). encode is the encoding alone; write is
// artifact.Write, encoding included.
func BenchmarkArtifactWrite(b *testing.B) {
	for _, rows := range []int{6, 1000} {
		bm := referenceArtifact(b, rows)
		b.Run(strconv.Itoa(rows)+"-rows/encode", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				out, err := artifact.Encode(bm)
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(len(out)))
			}
		})
		b.Run(strconv.Itoa(rows)+"-rows/write", func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "scenario.json")
			b.ReportAllocs()
			for b.Loop() {
				if err := artifact.Write(path, bm); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
