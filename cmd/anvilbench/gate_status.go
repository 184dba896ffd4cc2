package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/anvilbench/anvilbench/reporters"
)

// runGateStatus prints the gate outcome and returns its exit code.
func runGateStatus(args []string, stdout, stderr io.Writer) int {
	path := "artifacts"
	if len(args) == 1 && isHelp(args[0]) {
		fmt.Fprint(stdout, "usage: anvilbench gate-status [ANVIL_OUT_DIR or gate.json]\n\n"+
			"Prints the gate outcome the suites wrote (default artifacts/gate.json) and exits with its\n"+
			"code: 0 pass, 1 regression, 2 not comparable, 3 budget broken, 4 run failed.\n")
		return exitOK
	}
	if len(args) > 1 {
		fmt.Fprintf(stderr, "anvilbench gate-status: want one path, got %d\n", len(args))
		return exitUnjudged
	}
	if len(args) == 1 {
		path = args[0]
	}
	if info, err := os.Stat(path); err == nil && info.IsDir() {
		path = filepath.Join(path, reporters.GateFileName)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(stderr, "anvilbench gate-status: %v (did the gate specs run?)\n", err)
		return reporters.GateExitCodes[reporters.GateRunFailed]
	}
	var s reporters.GateSummary
	if err := json.Unmarshal(data, &s); err != nil {
		fmt.Fprintf(stderr, "anvilbench gate-status: %s is not a gate summary: %v\n", path, err)
		return reporters.GateExitCodes[reporters.GateRunFailed]
	}
	code, ok := reporters.GateExitCodes[s.Outcome]
	if !ok {
		fmt.Fprintf(stderr, "anvilbench gate-status: unknown outcome %q in %s\n", s.Outcome, path)
		return reporters.GateExitCodes[reporters.GateRunFailed]
	}
	fmt.Fprintf(stdout, "gate: %s (%d gate specs judged, %d failed)\n", s.Outcome, s.Specs, len(s.Failed))
	for _, f := range s.Failed {
		fmt.Fprintf(stdout, "  [%s] %s: %s\n", f.Kind, f.Spec, f.Message)
	}
	return code
}
