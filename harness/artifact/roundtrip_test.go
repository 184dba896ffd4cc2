package artifact

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// referencePath is the artifact of the original tool that our encoding must reproduce.
var referencePath = filepath.Join("..", "..", "testdata", "reference", "benchmark-v1-example.json")

func readReference(t testing.TB) []byte {
	t.Helper()
	data, err := os.ReadFile(referencePath)
	if err != nil {
		t.Fatalf("read reference: %v", err)
	}
	return data
}

// TestReferenceRoundTrip is the acceptance test of the encoding: Read then Encode gives
// the reference back byte for byte, plus the trailing newline the original writer appends
// and the reference copy lacks.
func TestReferenceRoundTrip(t *testing.T) {
	want := append(readReference(t), '\n')
	b, err := Read(referencePath)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Encode(b)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("re-encoded reference differs at %s", firstDiff(got, want))
	}
}

// firstDiff describes where two byte slices first differ, with surrounding context.
func firstDiff(got, want []byte) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	span := func(b []byte) []byte { return b[max(0, i-80):min(len(b), i+80)] }
	return fmt.Sprintf("byte %d (lengths %d, %d)\n got: %q\nwant: %q", i, len(got), len(want), span(got), span(want))
}
