package cli_test

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/anvilbench/anvilbench/harness/anvil/cli"
)

// The command run from a program of its own: the reference artifact held against itself
// as a stored baseline. Exit 5, inconclusive: one run against one stored run cannot
// resolve a change of the gate's 5% (stderr says what would: interleaved pairs).
func ExampleRun() {
	ref := filepath.Join("..", "..", "..", "testdata", "reference", "benchmark-v1-example.json")
	noEnv := func(string) string { return "" }
	code := cli.Run([]string{"compare", "-metrics", "ttft_p50_ms", ref, ref}, io.Discard, io.Discard, noEnv)
	fmt.Println("exit", code)
	// Output: exit 5
}
