// Package runrecord keeps a run's record in its output directory: the run's id, run.json
// (the manifest naming the run the directory holds) and the directory's lock, under which
// gate.json (the run's verdict, package gate's to read, judge and write) is rewritten as
// each suite starts and ends. It stands on the ground floor: it knows file names and ids,
// not what a verdict says.
package runrecord

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/anvilbench/anvilbench/internal/atomicfile"
)

// idPattern is what a run id may be: it names files and JUnit properties.
var idPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// ValidID reports whether id can name a run.
func ValidID(id string) bool { return idPattern.MatchString(id) }

// ID names the run a suite process belongs to:
//
//   - named, when it is a valid id (ANVIL_RUN_ID: a CI job or a cluster can name its run);
//   - for a shard of shards (more than one), an id every shard of the run derives alike from
//     the shared start instant startAt (ANVIL_START_AT, as written) and the shard count:
//     "run-20261203T100000.000Z-of-4";
//   - otherwise the process that launched the suites (the ginkgo CLI, or go test), so that
//     every suite of one `ginkgo -r` shares it: "run-20261203T133408Z-3f9a2c", from that
//     process's start and identity.
func ID(named string, shards int, startAt string) string {
	if ValidID(named) {
		return named
	}
	if shards > 1 {
		at := strings.NewReplacer("-", "", ":", "").Replace(startAt)
		if at == "" {
			at = "unscheduled"
		}
		id := "run-" + at + "-of-" + strconv.Itoa(shards)
		if ValidID(id) {
			return id
		}
		return "run-shards-" + hash(id)
	}
	inv, started := invocation()
	id := "run-"
	if !started.IsZero() {
		id += started.UTC().Format("20060102T150405Z") + "-"
	}
	return id + hash(inv)
}

func hash(s string) string {
	h := fnv.New32a()
	h.Write([]byte(s))
	return fmt.Sprintf("%06x", h.Sum32()&0xffffff)
}

// invocation identifies the process that launched this one (the ginkgo CLI, or go test):
// its pid and, on Linux, its start time, so that a reused pid is not mistaken for the same
// run; started is that start time, zero where unknown.
func invocation() (id string, started time.Time) {
	ppid := os.Getppid()
	id = fmt.Sprintf("ppid-%d", ppid)
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", ppid))
	if err != nil {
		return id, time.Time{}
	}
	// Field 22 (starttime, in clock ticks after boot) follows the parenthesised command
	// name, which may hold spaces.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return id, time.Time{}
	}
	fields := strings.Fields(string(stat[i+1:]))
	if len(fields) <= 19 {
		return id, time.Time{}
	}
	id += "-" + fields[19]
	ticks, err := strconv.ParseInt(fields[19], 10, 64)
	if boot := bootTime(); err == nil && !boot.IsZero() {
		const clockTicks = 100 // USER_HZ, 100 on every Linux architecture Go runs on
		started = boot.Add(time.Duration(ticks) * time.Second / clockTicks)
	}
	return id, started
}

// bootTime is the system's boot time from /proc/stat, zero where unknown.
func bootTime() time.Time {
	stat, err := os.ReadFile("/proc/stat")
	if err != nil {
		return time.Time{}
	}
	for line := range strings.SplitSeq(string(stat), "\n") {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			if sec, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
				return time.Unix(sec, 0)
			}
		}
	}
	return time.Time{}
}

// Lock validates id, makes outDir and takes its lock, which unlock gives back: the
// suites of one run may share a directory and each rewrites gate.json under it.
func Lock(outDir, id string) (unlock func(), err error) {
	if !ValidID(id) {
		return nil, fmt.Errorf("run id %q: want 1 to 64 of A-Z a-z 0-9 . _ -", id)
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	unlock, err = lock(filepath.Join(outDir, ".anvilbench.lock"))
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", outDir, err)
	}
	return unlock, nil
}

// Holds reports whether outDir's run.json names run id.
func Holds(outDir, id string) bool {
	m, ok, err := readManifest(outDir)
	return err == nil && ok && m.RunID == id
}

// Begin starts run id in outDir, under its lock: run.json names it, so that nothing an
// earlier run left is counted as this run's; that run's artifacts stay where they are,
// apart by their run id.
func Begin(outDir, id string) error {
	inv, _ := invocation()
	m := manifest{Schema: manifestSchema, RunID: id, StartedAt: now(), Invocation: inv}
	if err := atomicfile.WriteJSON(filepath.Join(outDir, ManifestFile), m); err != nil {
		return fmt.Errorf("run manifest: %w", err)
	}
	return nil
}

// Current is the id of the run outDir holds: its run.json, else its gate.json (a
// directory `anvilbench judge` wrote); "" when it has neither.
func Current(outDir string) (string, error) {
	m, ok, err := readManifest(outDir)
	if err != nil || ok {
		return m.RunID, err
	}
	data, err := os.ReadFile(filepath.Join(outDir, SummaryFile))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	var s struct {
		RunID string `json:"run_id"`
	}
	if err == nil {
		err = json.Unmarshal(data, &s)
	}
	if err != nil {
		return "", fmt.Errorf("gate summary %s: %w", filepath.Join(outDir, SummaryFile), err)
	}
	return s.RunID, nil
}

// File names in an output directory.
const (
	// SummaryFile is the run's verdict, rewritten as each suite starts and ends.
	SummaryFile = "gate.json"
	// ManifestFile names the run the directory holds, written when the run starts.
	ManifestFile = "run.json"
)

// manifestSchema is run.json's schema.
const manifestSchema = "anvilbench.run/v1"

// manifest is run.json: which run an output directory holds. It is written when the run
// starts and names the run every artifact, junit.xml and gate.json of the run carries.
type manifest struct {
	Schema    string `json:"schema"`
	RunID     string `json:"run_id"`
	StartedAt string `json:"started_at"`
	// invocation identifies the process that launched the suites (the ginkgo CLI).
	Invocation string `json:"invocation"`
}

// readManifest reads an output directory's run.json; ok is false when it has none.
func readManifest(outDir string) (m manifest, ok bool, err error) {
	data, err := os.ReadFile(filepath.Join(outDir, ManifestFile))
	if errors.Is(err, fs.ErrNotExist) {
		return manifest{}, false, nil
	}
	if err != nil {
		return manifest{}, false, fmt.Errorf("run manifest: %w", err)
	}
	if err := json.Unmarshal(data, &m); err != nil || m.Schema != manifestSchema || m.RunID == "" {
		return manifest{}, false, fmt.Errorf("run manifest %s: not an %s manifest", filepath.Join(outDir, ManifestFile), manifestSchema)
	}
	return m, true, nil
}

func now() string { return time.Now().UTC().Format("2006-01-02T15:04:05.000Z") }

// PlanFileVariable names the file a dry run of the suites appends each suite's plan to,
// one JSON SuitePlan a line. anvilbench run makes such a dry run first, to refuse before
// any request a variable no selected spec would read. (Not ANVIL_*: it belongs to
// anvilbench run, not to the run's configuration.)
const PlanFileVariable = "ANVILBENCH_PLAN_FILE"

// PlanOff, as PlanFileVariable's value, has anvilbench run skip its dry run: a run made of
// several invocations (the reusable workflow's configured scenario beside a team's suite)
// is held to its variables by its verdict, over all of them.
const PlanOff = "off"

// SuitePlan is what a suite's selected specs would read: the ANVIL_* variables they use.
type SuitePlan struct {
	Suite string   `json:"suite"`
	Uses  []string `json:"uses"`
}
