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
