package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// KeyPaths maps every member path of a JSON document to the JSON type of its value:
// "object", "array", "string", "number", "bool" or "null". Object members are joined with
// "." and array elements collapse to "[]", so "request_timings[].controlled_output.passed"
// covers every row; the root itself has no entry. When a path holds values of several
// types (a row field null in one row and an object in another) its entry lists them
// sorted and joined with "|", e.g. "null|object". Comparing two documents' KeyPaths checks
// that they carry the same keys with the same types at every level. Keys of data-keyed
// objects (context_distribution, output_token_sources) appear as path segments too.
func KeyPaths(data []byte) (map[string]string, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("key paths: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("key paths: trailing data after the JSON document")
	}
	paths := make(map[string]string)
	walkPaths(paths, "", doc)
	return paths, nil
}

func walkPaths(paths map[string]string, path string, v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, child := range v {
			p := k
			if path != "" {
				p = path + "." + k
			}
			addPathType(paths, p, child)
			walkPaths(paths, p, child)
		}
	case []any:
		p := path + "[]"
		for _, child := range v {
			addPathType(paths, p, child)
			walkPaths(paths, p, child)
		}
	}
}

func addPathType(paths map[string]string, path string, v any) {
	t := jsonType(v)
	old, seen := paths[path]
	if !seen {
		paths[path] = t
		return
	}
	types := strings.Split(old, "|")
	if slices.Contains(types, t) {
		return
	}
	types = append(types, t)
	slices.Sort(types)
	paths[path] = strings.Join(types, "|")
}

func jsonType(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "bool"
	default:
		return "null"
	}
}
