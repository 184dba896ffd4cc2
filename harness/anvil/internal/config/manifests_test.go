package config_test

// deploy/kubernetes holds the manifests that run a sharded benchmark on a cluster: an
// Indexed Job of load generators and the merge-and-gate job after it. These tests check
// them offline, here beside the configuration they are held to: every field decodes
// strictly into the Kubernetes API types, every ANVIL_* variable they set is one the
// configuration reads, and the commands they run are ones the binaries accept.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/onsi/ginkgo/v2/types"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/anvilbench/anvilbench/harness/anvil/internal/config"
	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/capacity"
	"github.com/anvilbench/anvilbench/harness/refengine"
)

// decode reads a manifest strictly: an unknown or misspelt field is an error.
// manifests is deploy/kubernetes, whose manifests this file holds to the configuration.
const manifests = "../../../../deploy/kubernetes"

func decode(t *testing.T, name string, into any) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(manifests, name))
	if err != nil {
		t.Fatal(err)
	}
	if err := strict(data, into); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return data
}

// strict decodes YAML as the API server decodes JSON: field names are case-sensitive (the
// standard library's are not, so "claimname" would pass for claimName) and unknown or
// duplicated fields are errors.
func strict(data []byte, into any) error {
	js, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return err
	}
	strictErrs, err := kjson.UnmarshalStrict(js, into)
	if err != nil {
		return err
	}
	return errors.Join(strictErrs...)
}

func env(c corev1.Container, name string) (string, bool) {
	for _, e := range c.Env {
		if e.Name == name {
			return e.Value, true
		}
	}
	return "", false
}

func TestManifestsDecodeStrictly(t *testing.T) {
	t.Parallel()
	var pvc corev1.PersistentVolumeClaim
	var shards, merge batchv1.Job
	decode(t, "results-pvc.yaml", &pvc)
	decode(t, "shards-job.yaml", &shards)
	decode(t, "merge-job.yaml", &merge)
	if pvc.Kind != "PersistentVolumeClaim" || shards.Kind != "Job" || merge.Kind != "Job" || shards.APIVersion != "batch/v1" {
		t.Fatalf("kinds %s %s %s", pvc.Kind, shards.Kind, merge.Kind)
	}
	for _, job := range []batchv1.Job{shards, merge} {
		claim := job.Spec.Template.Spec.Volumes[len(job.Spec.Template.Spec.Volumes)-1].PersistentVolumeClaim
		if claim == nil || claim.ClaimName != pvc.Name {
			t.Errorf("%s does not mount the results volume %s", job.Name, pvc.Name)
		}
	}

	// The shards: an Indexed Job of N pods, N the shard count, started together.
	spec := shards.Spec
	if spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion || spec.Completions == nil || spec.Parallelism == nil || *spec.Parallelism != *spec.Completions {
		t.Fatalf("the shards job is not an Indexed Job running every pod at once: %+v", spec)
	}
	c := spec.Template.Spec.Containers[0]
	n, _ := env(c, "ANVIL_SHARDS")
	if n != strconv.Itoa(int(*spec.Completions)) {
		t.Errorf("ANVIL_SHARDS=%s for %d completions", n, *spec.Completions)
	}
	if at, _ := env(c, "ANVIL_START_AT"); at == "" {
		t.Error("no ANVIL_START_AT: the shards would not start together")
	} else if _, err := time.Parse(time.RFC3339Nano, at); err != nil {
		t.Errorf("ANVIL_START_AT=%q: %v", at, err)
	}
	known := map[string]bool{}
	for _, v := range config.Variables() {
		known[v[0]] = true
	}
	for _, e := range c.Env {
		if strings.HasPrefix(e.Name, config.Prefix) && !known[e.Name] {
			t.Errorf("%s is not an anvilbench variable", e.Name)
		}
	}
	if out, _ := env(c, "ANVIL_OUT_DIR"); !slices.ContainsFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.Name == "results" && m.MountPath == out }) {
		t.Errorf("ANVIL_OUT_DIR=%s is not the results volume", out)
	}
	// Ginkgo's own flag set accepts the arguments.
	suite, reporter, cli, goFlags := types.NewDefaultSuiteConfig(), types.NewDefaultReporterConfig(), types.NewDefaultCLIConfig(), types.NewDefaultGoFlagsConfig()
	flags, err := types.BuildRunCommandFlagSet(&suite, &reporter, &cli, &goFlags)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Command) != 2 || c.Command[0] != "sh" || len(c.Args) != 1 {
		t.Fatalf("the shards run %q %q", c.Command, c.Args)
	}
	args := ginkgoArgs(t, c.Args[0])
	if rest, err := flags.Parse(args); err != nil || !slices.Equal(rest, []string{"./suites"}) || !cli.Recurse || !cli.KeepGoing {
		t.Errorf("ginkgo %q: %v (packages %q)", args, err, rest)
	}
}

// ginkgoArgs runs a shard's script as written, with a stand-in for Ginkgo's CLI that prints
// its arguments, and returns them. The script must leave anvilbench run as the process the
// pod signals (exec, not a child of sh) and run the pinned ginkgo under it.
func ginkgoArgs(t *testing.T, script string) []string {
	t.Helper()
	if !regexp.MustCompile(`(?m)^exec /tmp/anvilbench run `).MatchString(script) {
		t.Fatalf("the shard's script does not exec anvilbench run, so the pod's SIGTERM would not reach the suite:\n%s", script)
	}
	dir := t.TempDir()
	ginkgo := filepath.Join(dir, "ginkgo")
	if err := os.WriteFile(ginkgo, []byte("#!/bin/sh\nfor a in \"$@\"; do echo \"arg $a\"; done\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	root, _ := filepath.Abs(filepath.Join("..", "..", "..", ".."))
	cmd := exec.Command("sh", "-ec", strings.ReplaceAll(script, "/tmp/anvilbench", filepath.Join(dir, "anvilbench")))
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "ANVIL_GINKGO="+ginkgo)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the shard's script failed: %v\n%s", err, out)
	}
	var args []string
	for _, line := range strings.Split(string(out), "\n") {
		if a, ok := strings.CutPrefix(line, "arg "); ok {
			args = append(args, a)
		}
	}
	return args
}

// A misspelt field fails the decode: the test above can fail.
func TestAMisspeltFieldIsCaught(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join(manifests, "shards-job.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, swap := range [][2]string{{"completionMode:", "completionMod:"}, {"claimName:", "claimname:"}, {"mountPath:", "mountpath:"}} {
		var job batchv1.Job
		bad := strings.Replace(string(data), swap[0], swap[1], 1)
		if err := strict([]byte(bad), &job); err == nil || !strings.Contains(err.Error(), strings.TrimSuffix(swap[1], ":")) {
			t.Errorf("%s misspelt as %s: %v", swap[0], swap[1], err)
		}
	}
}

// The merge job's script runs as written against four real shard artifacts on a volume
// laid out as the shards leave it: anvilbench merge and judge accept its commands, and the
// gate passes.
func TestTheMergeJobRunsOnShardArtifacts(t *testing.T) {
	t.Parallel()
	var job batchv1.Job
	decode(t, "merge-job.yaml", &job)
	c := job.Spec.Template.Spec.Containers[0]
	if len(c.Command) != 2 || c.Command[0] != "sh" || len(c.Args) != 1 {
		t.Fatalf("the merge job runs %q %q", c.Command, c.Args)
	}
	count, err := strconv.Atoi(regexp.MustCompile(`shard-\*-of-(\d+)`).FindStringSubmatch(c.Args[0])[1])
	if err != nil {
		t.Fatal("the merge job does not glob the shards' directories")
	}
	results, bin := t.TempDir(), filepath.Join(t.TempDir(), "anvilbench")
	engine, err := refengine.Start(refengine.Options{PrefillOverhead: time.Millisecond, ITL: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer engine.Close()
	for i := range count {
		sc := capacity.Scenario{Name: config.ConfiguredName, Requests: 24, Concurrency: 4, ContextTokens: 500, MaxTokens: 64, ResponseWords: 32,
			Calibrate: true, ClockDomainID: "c", Shard: capacity.Shard{Index: i, Count: count}}
		b, err := capacity.Run(context.Background(), capacity.Target{BaseURL: engine.BaseURL()}, sc)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(results, config.ShardDir(sc.Shard), "capacity", "configured.json")
		if err := artifact.Write(path, b); err != nil {
			t.Fatal(err)
		}
	}
	root, _ := filepath.Abs(filepath.Join("..", "..", "..", ".."))
	script := strings.NewReplacer("/results", results, "/tmp/anvilbench", bin).Replace(c.Args[0])
	cmd := exec.Command("sh", "-ec", script)
	cmd.Dir = root
	budgets, _ := env(c, "BUDGETS")
	cmd.Env = append(os.Environ(), "BUDGETS="+budgets)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the merge job's script failed: %v\n%s", err, out)
	}
	for _, f := range []string{"configured.json", "gate.json"} {
		if _, err := os.Stat(filepath.Join(results, "merged", f)); err != nil {
			t.Errorf("no %s: %v\n%s", f, err, out)
		}
	}
	if !strings.Contains(string(out), fmt.Sprintf("merged %d shards: %d requests", count, 24)) || !strings.Contains(string(out), "gate: pass") {
		t.Errorf("script output:\n%s", out)
	}
}
