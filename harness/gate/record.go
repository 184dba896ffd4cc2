package gate

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/anvilbench/anvilbench/internal/atomicfile"
	"github.com/anvilbench/anvilbench/internal/runrecord"
)

// ReadSummary reads a run's verdict (an output directory's gate.json) and judges it again,
// so that a suite that never reported counts as a failed run whatever the file said.
func ReadSummary(path string) (Summary, error) {
	var s Summary
	data, err := os.ReadFile(path)
	if err != nil {
		return s, fmt.Errorf("gate summary: %w", err)
	}
	if err := json.Unmarshal(data, &s); err != nil || (s.Schema != summarySchema && s.Outcome == "") {
		return Summary{}, fmt.Errorf("gate summary %s: not a gate summary (%s)", path, orSchema(err, s.Schema))
	}
	if s.Schema != summarySchema {
		return Summary{}, fmt.Errorf("gate summary %s: schema %q, want %s (written by another version of anvilbench)", path, s.Schema, summarySchema)
	}
	s.Judge()
	return s, nil
}

func orSchema(err error, schema string) string {
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("schema %q", schema)
}

// WriteSummary judges s and writes it to path atomically.
func WriteSummary(path string, s Summary) error {
	s.Judge()
	return writeJudged(path, s)
}

// writeJudged writes a summary Judge has just judged.
func writeJudged(path string, s Summary) error {
	if err := atomicfile.WriteJSON(path, s); err != nil {
		return fmt.Errorf("gate summary: %w", err)
	}
	return nil
}

// UpdateSummary applies f to the verdict of run id in outDir under the directory's lock,
// judges it and writes it. When the directory holds another run, or none, the run starts
// here: run.json names it and its verdict begins empty (a failed run until a suite
// reports), so nothing an earlier run left is counted as this run's.
func UpdateSummary(outDir, id string, f func(s *Summary)) (Summary, error) {
	unlock, err := runrecord.Lock(outDir, id)
	if err != nil {
		return Summary{}, err
	}
	defer unlock()
	path := filepath.Join(outDir, runrecord.SummaryFile)
	s, err := ReadSummary(path)
	if err != nil || s.RunID != id || !runrecord.Holds(outDir, id) {
		if err := runrecord.Begin(outDir, id); err != nil {
			return Summary{}, err
		}
		s = Summary{RunID: id}
	}
	f(&s)
	s.Judge()
	return s, writeJudged(path, s)
}
