package cli

import (
	"fmt"
	"io"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/capacity"
)

// runMerge merges the shard artifacts of one sharded run into one v1 artifact.
func runMerge(args []string, stdout, stderr io.Writer) int {
	fs := newCommand("merge", stderr, "usage: anvilbench merge -o OUT.json SHARD.json...\n\n"+
		"Merges the artifacts of every shard of one sharded run (ANVIL_SHARD or ANVIL_SHARDS) into\n"+
		"one v1 artifact recomputed from the per-request rows; refuses shards of other runs or\n"+
		"workloads, a missing or repeated shard and overlapping requests.\n\n")
	out := fs.String("o", "", "write the merged artifact here (required)")
	if err := fs.Parse(args); err != nil {
		return helpOr(err, exitUnjudged)
	}
	if *out == "" || fs.NArg() == 0 {
		fs.Usage()
		return exitUnjudged
	}
	var shards []capacity.NamedArtifact
	for _, path := range fs.Args() {
		b, err := artifact.Read(path)
		if err != nil {
			fmt.Fprintf(stderr, "anvilbench merge: %v\n", err)
			return exitUnjudged
		}
		shards = append(shards, capacity.NamedArtifact{Name: path, Benchmark: b})
	}
	merged, err := capacity.Merge(shards)
	if err != nil {
		fmt.Fprintf(stderr, "anvilbench merge: cannot merge:\n%v\n", err)
		return exitUnjudged
	}
	if err := capacity.Verify(merged); err != nil {
		fmt.Fprintf(stderr, "anvilbench merge: the merged artifact is inconsistent (a bug): %v\n", err)
		return exitUnjudged
	}
	if err := artifact.Write(*out, merged); err != nil {
		fmt.Fprintf(stderr, "anvilbench merge: %v\n", err)
		return exitUnjudged
	}
	fmt.Fprintf(stdout, "merged %d shards: %d requests, %d completed, %d failed, wall clock %.0f ms -> %s\n",
		len(shards), merged.Requests, merged.Completed, merged.Failed, float64(merged.WallClockMs), *out)
	return exitOK
}
