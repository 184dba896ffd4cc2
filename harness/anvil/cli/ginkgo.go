package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// ginkgoPackage is the Ginkgo CLI that anvilbench run builds: the version the current
// module's go.mod pins, the one its suites were written against.
const ginkgoPackage = "github.com/onsi/ginkgo/v2/ginkgo"

// pinnedGinkgo is the path of the ginkgo CLI the current module pins, built once per
// version into the user's cache (a link costs seconds on every run, more on a busy
// machine): keyed by the module's version and checksum, the Go toolchain and the
// platform. A module replaced by a local copy is built afresh each time, as its sources
// may have changed. build builds the binary at a path (go build -o PATH ginkgoPackage)
// and returns go build's exit code; done removes what is not kept.
func pinnedGinkgo(cacheDir string, build func(path string) (int, error)) (path string, done func(), code int, err error) {
	key, _ := ginkgoKey()
	if key == "" || cacheDir == "" {
		dir, err := os.MkdirTemp("", "anvilbench-ginkgo-")
		if err != nil {
			return "", nil, 0, err
		}
		done = func() { os.RemoveAll(dir) }
		path = filepath.Join(dir, "ginkgo")
		code, err = build(path)
		return path, done, code, err
	}
	done = func() {}
	path = filepath.Join(cacheDir, "anvilbench", "ginkgo-"+key, "ginkgo")
	if info, err := os.Stat(path); err == nil && info.Mode().IsRegular() {
		return path, done, 0, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", done, 0, err
	}
	// Built beside its place and renamed in: two runs building at once each leave a whole
	// binary, never half of one.
	tmp := fmt.Sprintf("%s.%d.tmp", path, os.Getpid())
	defer os.Remove(tmp)
	if code, err = build(tmp); err != nil || code != 0 {
		return "", done, code, err
	}
	return path, done, 0, os.Rename(tmp, path)
}

// ginkgoKey names the pinned ginkgo: empty when the module replaces it with a local copy.
func ginkgoKey() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-json", "github.com/onsi/ginkgo/v2").Output()
	if err != nil {
		return "", fmt.Errorf("go list -m github.com/onsi/ginkgo/v2: %w", err)
	}
	var m struct {
		Path, Version, Sum, GoVersion string
		Replace                       *struct{ Path, Version, Dir, Sum string }
	}
	if err := json.Unmarshal(out, &m); err != nil {
		return "", err
	}
	if m.Replace != nil && m.Replace.Version == "" {
		return "", nil // a local directory
	}
	goVersion, err := exec.Command("go", "env", "GOVERSION").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOVERSION: %w", err)
	}
	h := sha256.New()
	fmt.Fprintf(h, "%s %s %s %s/%s\n", m.Version, m.Sum, goVersion, runtime.GOOS, runtime.GOARCH)
	if m.Replace != nil {
		fmt.Fprintf(h, "%s %s %s\n", m.Replace.Path, m.Replace.Version, m.Replace.Sum)
	}
	return m.Version + "-" + hex.EncodeToString(h.Sum(nil))[:12], nil
}
