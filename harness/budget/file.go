package budget

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/anvilbench/anvilbench/internal/atomicfile"
)

// maxFileBytes bounds a budgets file: it holds a handful of terms, never megabytes.
const maxFileBytes = 1 << 20

// ReadFile reads a budgets file, for budgets kept in a repository beside the engine rather
// than in a CI variable:
//
//	{"budgets": ["tpot_p50_ms<=6", "ttft_p95_ms<=1500@upper95"]}
//
// Each string is in the grammar of Parse (one term, or several separated by commas).
// Unknown fields, a missing "budgets" list and trailing data are errors, so a misspelt key
// does not silently gate nothing; a bad term is quoted with its position in the list.
func ReadFile(path string) ([]Budget, error) {
	data, err := atomicfile.ReadAtMost(path, maxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("read budgets: %w", err)
	}
	return parseFile(data)
}

// parseFile parses the JSON of a budgets file (see ReadFile).
func parseFile(data []byte) ([]Budget, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var file struct {
		Budgets *[]string `json:"budgets"`
	}
	if err := dec.Decode(&file); err != nil {
		return nil, fmt.Errorf(`want {"budgets": ["tpot_p50_ms<=6", ...]}: %w`, err)
	}
	if dec.More() {
		return nil, errors.New(`want one JSON object {"budgets": [...]}, found more after it`)
	}
	if file.Budgets == nil {
		return nil, errors.New(`no "budgets" list (want {"budgets": ["tpot_p50_ms<=6", ...]})`)
	}
	var out []Budget
	for i, s := range *file.Budgets {
		bs, err := Parse(s)
		if err != nil {
			return nil, fmt.Errorf("budgets[%d]: %w", i, err)
		}
		out = append(out, bs...)
	}
	return out, nil
}
