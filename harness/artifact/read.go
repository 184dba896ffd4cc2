package artifact

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// maxArtifactBytes caps what Read and Decode accept (512 MiB): a 100,000-line trace replay
// writes about 160 MiB, a 10,000-request run about 10 MiB; a wrong path still cannot
// exhaust memory.
const maxArtifactBytes = 512 << 20

// Read loads and decodes the artifact at path; see Decode.
func Read(path string) (*Benchmark, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read artifact %s: %w", path, err)
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil && info.Size() > maxArtifactBytes {
		return nil, fmt.Errorf("read artifact %s: %w", path, errTooLarge)
	}
	// Read one byte past the cap too: Stat says nothing of pipes, or of a growing file.
	data, err := io.ReadAll(io.LimitReader(f, maxArtifactBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read artifact %s: %w", path, err)
	}
	b, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("read artifact %s: %w", path, err)
	}
	return b, nil
}

// errTooLarge reports an artifact over MaxArtifactBytes.
var errTooLarge = errors.New("artifact exceeds 512 MiB")

// ErrNotArtifact reports a JSON document whose schema is not Schema.
var ErrNotArtifact = errors.New("not an " + Schema + " artifact")

// Decode parses one artifact. The schema key must equal Schema (ErrNotArtifact otherwise).
// Decoding is tolerant, as artifacts of the original tool's older eras lack many keys:
// missing keys leave zero values and nil pointers, unknown keys are ignored. A known key of
// the wrong JSON type is an error.
func Decode(data []byte) (*Benchmark, error) {
	if len(data) > maxArtifactBytes {
		return nil, errTooLarge
	}
	var b Benchmark
	if err := json.Unmarshal(data, &b); err != nil {
		// A different document should say what it is rather than which field failed.
		if serr := checkSchema(data); serr != nil {
			return nil, serr
		}
		return nil, fmt.Errorf("decode artifact: %w", err)
	}
	if b.Schema != Schema {
		if err := checkSchema(data); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%w: schema %q", ErrNotArtifact, b.Schema)
	}
	return &b, nil
}

// checkSchema reports whether data is a JSON object whose schema is Schema.
func checkSchema(data []byte) error {
	var probe struct {
		Schema json.RawMessage `json:"schema"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		if _, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
			return fmt.Errorf("%w: not a JSON object", ErrNotArtifact)
		}
		return fmt.Errorf("decode artifact: %w", err)
	}
	if probe.Schema == nil {
		return fmt.Errorf("%w: no schema key", ErrNotArtifact)
	}
	var schema string
	if err := json.Unmarshal(probe.Schema, &schema); err != nil || schema != Schema {
		return fmt.Errorf("%w: schema %s", ErrNotArtifact, probe.Schema)
	}
	return nil
}
