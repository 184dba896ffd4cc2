package gate

import (
	"bytes"
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

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// RunIDPattern is what a run id may be: it names files and JUnit properties.
var runIDPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// ValidRunID reports whether id can name a run.
func ValidRunID(id string) bool { return runIDPattern.MatchString(id) }

// RunID names the run a suite process belongs to, from its environment:
//
//   - ANVIL_RUN_ID, when set (a CI job or a cluster can name its run);
//   - for a shard (ANVIL_SHARD or ANVIL_SHARDS), an id every shard of the run derives alike
//     from ANVIL_START_AT and the shard count: "run-20261203T100000.000Z-of-4";
//   - otherwise the process that launched the suites (the ginkgo CLI, or go test), so that
//     every suite of one `ginkgo -r` shares it: "run-20261203T133408Z-3f9a2c", from that
//     process's start and identity.
func RunID(getenv func(string) string) string {
	if id := getenv("ANVIL_RUN_ID"); ValidRunID(id) {
		return id
	}
	if shard, shards := getenv("ANVIL_SHARD"), getenv("ANVIL_SHARDS"); shard != "" || shards != "" {
		n := shards
		if _, count, ok := strings.Cut(shard, "/"); ok {
			n = count
		}
		at := strings.NewReplacer("-", "", ":", "").Replace(getenv("ANVIL_START_AT"))
		if at == "" {
			at = "unscheduled"
		}
		id := "run-" + at + "-of-" + n
		if ValidRunID(id) {
			return id
		}
		return "run-shards-" + hash(id)
	}
	inv, started := Invocation()
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

// Invocation identifies the process that launched this one (the ginkgo CLI, or go test):
// its pid and, on Linux, its start time, so that a reused pid is not mistaken for the same
// run; started is that start time, zero where unknown.
func Invocation() (id string, started time.Time) {
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

// Update applies f to the summary of run id in outDir under the directory's lock, judges
// it and writes it (atomically). When the directory holds another run, or none, the run
// starts here: run.json names it and gate.json begins empty, so nothing an earlier run left
// is counted as this run's; that run's artifacts stay where they are, apart by their run id.
func Update(outDir, id string, f func(s *Summary)) (Summary, error) {
	if !ValidRunID(id) {
		return Summary{}, fmt.Errorf("run id %q: want 1 to 64 of A-Z a-z 0-9 . _ -", id)
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return Summary{}, fmt.Errorf("output directory: %w", err)
	}
	unlock, err := lock(filepath.Join(outDir, ".anvilbench.lock"))
	if err != nil {
		return Summary{}, fmt.Errorf("lock %s: %w", outDir, err)
	}
	defer unlock()
	path := filepath.Join(outDir, SummaryFile)
	s, err := ReadSummary(path)
	if m, ok, _ := ReadManifest(outDir); err != nil || !ok || m.RunID != id || s.RunID != id {
		inv, _ := Invocation()
		m := Manifest{Schema: ManifestSchema, RunID: id, StartedAt: now(), Invocation: inv}
		if err := artifact.WriteJSON(filepath.Join(outDir, ManifestFile), m); err != nil {
			return Summary{}, fmt.Errorf("run manifest: %w", err)
		}
		s = Summary{RunID: id}
	}
	f(&s)
	s.Judge()
	return s, WriteSummary(path, s)
}

// CurrentRun is the id of the run outDir holds: its run.json, else its gate.json (a
// directory `anvilbench judge` wrote); "" when it has neither.
func CurrentRun(outDir string) (string, error) {
	m, ok, err := ReadManifest(outDir)
	if err != nil || ok {
		return m.RunID, err
	}
	s, err := ReadSummary(filepath.Join(outDir, SummaryFile))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	return s.RunID, err
}
