package workload

import (
	"strconv"
	"strings"
	"testing"
)

// response is a controlled-output answer of n code words after marker (and a space).
func response(marker string, n int) string {
	words := strings.TrimSpace(strings.Repeat(codeWord+" ", n))
	if marker == "" {
		return words
	}
	return marker + " " + words
}

// BenchmarkScoreControlledOutput scores a 32-word answer (the reference scenario's) and a
// 4096-word one, with its canary marker, under strict.
func BenchmarkScoreControlledOutput(b *testing.B) {
	marker := Marker(44, 3)
	for _, n := range []int{32, 4096} {
		visible := response(marker, n)
		b.Run(strconv.Itoa(n)+"-words", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(visible)))
			for b.Loop() {
				if co := ScoreControlledOutput(visible, true, n, PolicyStrict, marker); !co.Passed {
					b.Fatalf("%+v", co)
				}
			}
		})
	}
}

// BenchmarkCheckCanary checks the marker of a 32-word and a 4096-word answer.
func BenchmarkCheckCanary(b *testing.B) {
	marker := Marker(44, 3)
	for _, n := range []int{32, 4096} {
		visible := response(marker, n)
		b.Run(strconv.Itoa(n)+"-words", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(visible)))
			for b.Loop() {
				if c := CheckCanary(visible, true, marker); !c.Passed {
					b.Fatalf("%+v", c)
				}
			}
		})
	}
}
