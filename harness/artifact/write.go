package artifact

import (
	"fmt"

	"github.com/anvilbench/anvilbench/internal/atomicfile"
)

// Write encodes b with Encode and replaces the file at path atomically: readers see the
// old artifact or the new, never a part. An encoding error, such as a NaN Float, leaves any
// previous file untouched.
func Write(path string, b *Benchmark) error {
	if b == nil {
		return fmt.Errorf("write artifact %s: nil benchmark", path)
	}
	data, err := Encode(b) // before touching the file system, so a failure changes nothing
	if err != nil {
		return fmt.Errorf("write artifact %s: %w", path, err)
	}
	if err := atomicfile.Write(path, data); err != nil {
		return fmt.Errorf("write artifact: %w", err)
	}
	return nil
}
