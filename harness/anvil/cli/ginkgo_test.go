package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The pinned ginkgo is built once per version into the cache and reused: the second run
// builds nothing. A failed build leaves nothing in the cache for the next run to reuse,
// and without a cache directory each run builds its own and removes it when done.
func TestPinnedGinkgoIsBuiltOnce(t *testing.T) {
	t.Parallel()
	cache := t.TempDir()
	builds := 0
	fake := func(path string) (int, error) {
		builds++
		return 0, os.WriteFile(path, []byte("#!/bin/sh\n"), 0o755)
	}
	first, done, code, err := pinnedGinkgo(cache, fake)
	if err != nil || code != 0 {
		t.Fatalf("first: code %d, %v", code, err)
	}
	done()
	if !strings.HasPrefix(first, filepath.Join(cache, "anvilbench", "ginkgo-v2.")) {
		t.Errorf("built at %s, want under %s, named by ginkgo's version", first, cache)
	}
	second, done, _, err := pinnedGinkgo(cache, fake)
	done()
	if err != nil || second != first || builds != 1 {
		t.Errorf("second: %s (first %s), %d builds, %v: want the cached one, one build", second, first, builds, err)
	}
	if _, err := os.Stat(first); err != nil {
		t.Errorf("the cached ginkgo is gone: %v", err)
	}

	failing := t.TempDir()
	if _, _, code, _ := pinnedGinkgo(failing, func(path string) (int, error) {
		os.WriteFile(path, []byte("half"), 0o755)
		return 1, nil
	}); code != 1 {
		t.Errorf("a failed build: code %d, want go build's 1", code)
	}
	leftovers, _ := filepath.Glob(filepath.Join(failing, "anvilbench", "*", "*"))
	if len(leftovers) != 0 {
		t.Errorf("a failed build left %v", leftovers)
	}

	path, done, _, err := pinnedGinkgo("", fake)
	if err != nil || strings.HasPrefix(path, cache) {
		t.Fatalf("no cache: %s, %v", path, err)
	}
	done()
	if _, err := os.Stat(filepath.Dir(path)); !os.IsNotExist(err) {
		t.Errorf("without a cache the build's directory stays: %v", err)
	}
}
