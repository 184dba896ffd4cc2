package reporters

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/anvilbench/anvilbench/harness/budget"
	"github.com/anvilbench/anvilbench/harness/capacity"
)

// CurveFileSuffix ends the file name of a knee search's capacity-curve summary, written
// beside the probes' artifacts: <outDir>/<suite>/<name>.capacity-curve.json.
const CurveFileSuffix = ".capacity-curve.json"

// LoadCurve reads the first capacity-curve summary under outDir (in suite and name order)
// for the report; nil when there is none.
func LoadCurve(outDir string) (*CapacityCurve, error) {
	paths, err := filepath.Glob(filepath.Join(outDir, "*", "*"+CurveFileSuffix))
	if err != nil || len(paths) == 0 {
		return nil, err
	}
	data, err := os.ReadFile(paths[0])
	if err != nil {
		return nil, fmt.Errorf("capacity curve: %w", err)
	}
	var c capacity.Curve
	if err := json.Unmarshal(data, &c); err != nil || c.Schema != capacity.CurveSchema {
		return nil, fmt.Errorf("capacity curve %s: not a %s summary", paths[0], capacity.CurveSchema)
	}
	curve := &CapacityCurve{Title: "Knee search: " + strings.TrimSuffix(filepath.Base(paths[0]), CurveFileSuffix)}
	budgets, err := budget.Parse(strings.Join(c.Budgets, ","))
	if err != nil {
		return nil, fmt.Errorf("capacity curve %s: %w", paths[0], err)
	}
	for _, b := range budgets {
		curve.Metrics = append(curve.Metrics, b.Key())
	}
	for _, p := range c.Probes {
		metrics := map[string]float64{}
		for k, v := range p.Metrics {
			metrics[k] = v
		}
		metrics["goodput_rps"] = p.GoodputRPS
		curve.Points = append(curve.Points, CurvePoint{Concurrency: p.Concurrency, Metrics: metrics, Passed: p.Passed})
	}
	return curve, nil
}
