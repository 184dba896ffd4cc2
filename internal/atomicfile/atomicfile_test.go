package atomicfile

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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

func TestWriteCreatesParent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", "summary.json")
	if err := WriteJSON(path, map[string]any{"z": 1, "a": json.Number("0.5")}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"a\": 0.5,\n  \"z\": 1\n}\n"; string(got) != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o644 {
		t.Errorf("new file mode %v, %v; want 0644", info.Mode(), err)
	}
}

func TestWriteRefusesSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.json")
	link := filepath.Join(dir, "link.json")
	if err := os.WriteFile(real, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
	err := Write(link, []byte("new"))
	if err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Fatalf("write through a symlink: error = %v", err)
	}
	if got, _ := os.ReadFile(real); string(got) != "keep" {
		t.Errorf("symlink target changed to %q", got)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Error("symlink was replaced")
	}
	if names := dirEntries(t, dir); len(names) != 2 {
		t.Errorf("directory holds %v", names)
	}
}

func TestWriteRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Write(sub, []byte("x")); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("write over a directory: error = %v", err)
	}
	if names := dirEntries(t, dir); len(names) != 1 {
		t.Errorf("directory holds %v", names)
	}
}

// TestWriteFailureRemovesTemp fails the last step, the rename, and checks that the
// temporary file is gone and the old content intact.
func TestWriteFailureRemovesTemp(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "junit.xml")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	var tmpSeen string
	rename = func(from, to string) error {
		tmpSeen = from
		return errors.New("injected rename failure")
	}
	defer func() { rename = os.Rename }()
	err := Write(path, []byte("<testsuites/>"))
	if err == nil || !strings.Contains(err.Error(), "injected") || !strings.HasPrefix(err.Error(), "write file "+path) {
		t.Fatalf("error = %v", err)
	}
	if base := filepath.Base(tmpSeen); !strings.HasPrefix(base, ".junit.xml.") || !strings.HasSuffix(base, ".tmp") {
		t.Errorf("temporary file %q is not .{base}.{random}.tmp", base)
	}
	if filepath.Dir(tmpSeen) != dir {
		t.Errorf("temporary file %q is not beside the target", tmpSeen)
	}
	if names := dirEntries(t, dir); len(names) != 1 {
		t.Errorf("directory holds %v, want only junit.xml", names)
	}
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Errorf("old content changed to %q", got)
	}
}
