package artifact

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func referenceBenchmark(t *testing.T) *Benchmark {
	t.Helper()
	b, err := Decode(readReference(t))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// dirEntries lists dir's names, to catch temporary files left behind.
func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestWriteReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.json")
	if err := os.WriteFile(path, []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	b := referenceBenchmark(t)
	if err := Write(path, b); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := append(readReference(t), '\n'); !bytes.Equal(got, want) {
		t.Errorf("written artifact differs at %s", firstDiff(got, want))
	}
	if names := dirEntries(t, dir); len(names) != 1 {
		t.Errorf("directory holds %v, want only run.json", names)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o640 {
		t.Errorf("mode after replace: %v, %v; want the old file's 0640", info.Mode(), err)
	}
}

// TestWriteEncodeFailureKeepsOld checks that a NaN, which cannot be encoded, leaves the
// previous artifact intact and no temporary file.
func TestWriteEncodeFailureKeepsOld(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.json")
	if err := os.WriteFile(path, []byte("previous"), 0o644); err != nil {
		t.Fatal(err)
	}
	b := referenceBenchmark(t)
	b.WallClockMs = Float(math.NaN())
	err := Write(path, b)
	if err == nil || !strings.HasPrefix(err.Error(), "write artifact "+path+": ") {
		t.Fatalf("Write with NaN: error = %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "previous" {
		t.Errorf("previous artifact changed to %q", got)
	}
	if names := dirEntries(t, dir); len(names) != 1 {
		t.Errorf("directory holds %v, want only run.json", names)
	}
}

func TestWriteRefusesNil(t *testing.T) {
	dir := t.TempDir()
	if err := Write(filepath.Join(dir, "x.json"), nil); err == nil {
		t.Error("Write of a nil benchmark succeeded")
	}
	if names := dirEntries(t, dir); len(names) != 0 {
		t.Errorf("directory holds %v", names)
	}
}
