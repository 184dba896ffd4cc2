package anvil

import (
	"errors"
	"path/filepath"
	"strings"
)

// artifactPath is where a scenario's artifact goes: <outDir>/<suite>/<spec>.json, with
// suite and spec reduced to lowercase letters, digits and dashes.
func artifactPath(outDir, suite, spec string) (string, error) {
	s, p := slug(suite), slug(spec)
	if s == "" || p == "" {
		return "", errors.New("artifact path: empty suite or spec name")
	}
	return filepath.Join(outDir, s, p+".json"), nil
}

// slug reduces a name to lowercase ASCII letters, digits and single dashes.
func slug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
			continue
		}
		dash = true
	}
	return b.String()
}
