package gpumetrics

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A DCGM exposition of two GPUs, the throttle reasons under their older field name: one
// reading a GPU, its model from the label, fields it lacks left nil.
func TestParseDCGM(t *testing.T) {
	body := `# TYPE DCGM_FI_DEV_SM_CLOCK gauge
DCGM_FI_DEV_SM_CLOCK{gpu="1",modelName="NVIDIA H100 80GB HBM3"} 1755
DCGM_FI_DEV_SM_CLOCK{gpu="0",modelName="NVIDIA H100 80GB HBM3"} 1980
# TYPE DCGM_FI_DEV_CLOCK_THROTTLE_REASONS gauge
DCGM_FI_DEV_CLOCK_THROTTLE_REASONS{gpu="1",modelName="NVIDIA H100 80GB HBM3"} 4
`
	rs, err := parseDCGM([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 || rs[0].gpu != "0" || *rs[0].sm != 1980 || rs[0].reasons != nil || *rs[1].reasons != 4 || rs[1].model != "NVIDIA H100 80GB HBM3" || rs[1].power != nil {
		t.Fatalf("readings %+v", rs)
	}
	if _, err := parseDCGM([]byte("# TYPE up gauge\nup 1\n")); err == nil {
		t.Error("an exposition without DCGM fields parsed")
	}
}

// nvidia-smi on the host is read when no exporter is named: its CSV, "[N/A]" left nil, the
// clock event reasons from hex.
func TestNvidiaSMIOnTheHost(t *testing.T) {
	dir := t.TempDir()
	script := "#!/bin/sh\necho '0, NVIDIA A100-SXM4-80GB, 1410, 1593, 301.52, 62, 99, 40123, 0x0000000000000004'\necho '1, NVIDIA A100-SXM4-80GB, 1410, 1593, [N/A], 60, 98, 40000, 0x0000000000000000'\n"
	if err := os.WriteFile(filepath.Join(dir, "nvidia-smi"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	src, note := Source("")
	if src == nil || src.name() != "nvidia-smi" {
		t.Fatalf("source %v, note %q", src, note)
	}
	rs, err := src.read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 || *rs[0].power != 301.52 || *rs[0].reasons != 4 || rs[1].power != nil || *rs[1].memUsed != 40000 {
		t.Fatalf("readings %+v", rs)
	}
	start := time.Now()
	w := Start(context.Background(), src, "", time.Hour)
	tel := w.Finish(context.Background(), start, time.Now())
	if tel.Source != "nvidia-smi" || len(tel.GPUs) != 2 || len(tel.GPUs[0].Series) != 2 || tel.GPUs[0].Series[0].ReasonNames[0] != "SW power cap" {
		t.Errorf("telemetry %+v", tel)
	}
	t.Setenv("PATH", t.TempDir())
	if src, note := Source(""); src != nil || !strings.Contains(note, "ANVIL_GPU_METRICS_URL") {
		t.Errorf("without nvidia-smi: %v, %q", src, note)
	}
}

// amd-smi on the host, when nvidia-smi is not: its JSON in both shapes (a list with
// {"value", "unit"} readings and the one throttle flag of older versions; {"gpu_data"}
// with bare numbers and the violation statuses of MI300 and later), the first clock
// domain that reports, the model from `static --asic`.
func TestAMDSMIOnTheHost(t *testing.T) {
	dir := t.TempDir()
	metric := `{"gpu_data": [
 {"gpu": 0, "usage": {"gfx_activity": {"value": 97, "unit": "%"}}, "power": {"socket_power": {"value": 612, "unit": "W"}, "throttle_status": "N/A"},
  "clock": {"gfx_1": {"clk": "N/A"}, "gfx_0": {"clk": {"value": 2100, "unit": "MHz"}}, "mem_0": {"clk": {"value": 1300, "unit": "MHz"}}},
  "temperature": {"edge": {"value": 51, "unit": "C"}, "hotspot": {"value": 78, "unit": "C"}}, "mem_usage": {"used_vram": {"value": 150000, "unit": "MB"}},
  "throttle": {"ppt_violation_status": "ACTIVE", "prochot_violation_status": "NOT ACTIVE", "hbm_thermal_violation_status": "NOT ACTIVE"}},
 {"gpu": 1, "usage": {"gfx_activity": 96}, "power": {"socket_power": 540}, "clock": {"gfx_0": {"clk": 2100}},
  "temperature": {"edge": 50, "hotspot": "N/A"}, "mem_usage": {"used_vram": 149000},
  "throttle": {"ppt_violation_status": "NOT ACTIVE", "prochot_violation_status": "NOT ACTIVE"}}]}`
	static := `[{"gpu": 0, "asic": {"market_name": "AMD Instinct MI300X"}}, {"gpu": 1, "asic": {"market_name": "AMD Instinct MI300X"}}]`
	// Shell builtins only: PATH holds nothing else.
	script := "#!/bin/sh\ncase \"$1\" in\nstatic) printf '%s\\n' '" + static + "';;\n*) echo 'WARNING: not in render group'; printf '%s\\n' '" + metric + "';;\nesac\n"
	if err := os.WriteFile(filepath.Join(dir, "amd-smi"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	src, note := Source("")
	if src == nil || src.name() != "amd-smi" {
		t.Fatalf("source %v, note %q", src, note)
	}
	rs, err := src.read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 || *rs[0].sm != 2100 || *rs[0].mem != 1300 || *rs[0].temp != 78 || *rs[0].power != 612 || *rs[0].util != 97 ||
		*rs[0].memUsed != 150000 || *rs[0].reasons != 0x4 || rs[0].model != "AMD Instinct MI300X" {
		t.Fatalf("GPU 0: %+v", rs[0])
	}
	if *rs[1].temp != 50 || *rs[1].reasons != 0 || *rs[1].sm != 2100 || rs[1].mem != nil {
		t.Fatalf("GPU 1: %+v", rs[1])
	}
	old, err := parseAMDMetric([]byte(`[{"gpu": 0, "power": {"average_socket_power": {"value": 90, "unit": "W"}, "throttle_status": "THROTTLED"}},
		{"gpu": 1, "power": {"throttle_status": "UNTHROTTLED"}}, {"gpu": 2}]`))
	if err != nil || len(old) != 3 || *old[0].power != 90 || *old[0].reasons != 0x8 || *old[1].reasons != 0 || old[2].reasons != nil {
		t.Fatalf("older amd-smi: %+v, %v", old, err)
	}
	if _, err := parseAMDMetric([]byte("amd-smi: no GPU found")); err == nil {
		t.Error("a message without JSON parsed")
	}
}
