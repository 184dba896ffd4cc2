package artifact

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecode feeds arbitrary bytes to the artifact reader: it must never panic, and what
// it accepts must encode again and decode to the same encoding (a stable round trip).
func FuzzDecode(f *testing.F) {
	ref, err := os.ReadFile(filepath.Join("..", "..", "testdata", "reference", "benchmark-v1-example.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(ref)
	f.Add([]byte(`{"schema":"anvil-serving.benchmark/v1"}`))
	f.Add([]byte(`{"schema":"anvil-serving.benchmark/v1","metrics":{"ttft_p50_ms":1e400}}`))
	f.Add([]byte(`{"schema":"anvil-serving.benchmark/v1","failures":[{"request_index":1,"response_timing":null}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := Decode(data)
		if err != nil {
			return
		}
		first, err := Encode(b)
		if err != nil {
			return // e.g. a value Decode accepted that cannot be written, such as -0 in an int
		}
		again, err := Decode(first)
		if err != nil {
			t.Fatalf("our own encoding does not decode: %v\n%s", err, first)
		}
		second, err := Encode(again)
		if err != nil || string(second) != string(first) {
			t.Fatalf("round trip not stable: %v", err)
		}
	})
}
