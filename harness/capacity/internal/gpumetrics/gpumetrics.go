// Package gpumetrics samples the state of the GPUs an engine runs on, before, through and
// after a run: SM and memory clocks, power, temperature, utilisation, memory used and the
// reasons the driver gives for holding clocks down (throttle, or "clock event", reasons).
// It reads a DCGM exporter's Prometheus text (dcgm-exporter, its DCGM_FI_DEV_* fields) or,
// on the engine's host, nvidia-smi's query output or amd-smi's JSON.
package gpumetrics

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/anvilbench/anvilbench/harness/artifact"
)

// reading is one GPU's state at one instant; nil fields were not reported.
type reading struct {
	gpu, model                          string
	sm, mem, power, temp, util, memUsed *float64
	reasons                             *uint64
}

// source reads every GPU once.
type source interface {
	read(ctx context.Context) ([]reading, error)
	name() string
}

// Source picks where to read the GPUs: a DCGM exporter at url; with url empty, nvidia-smi
// or else amd-smi when it is on this host; nil with a note when none is (or url is "off").
func Source(url string) (src source, note string) {
	switch {
	case url == "off":
		return nil, "not sampled (off)"
	case url != "":
		return dcgm{url: url, client: &http.Client{Timeout: 5 * time.Second}}, ""
	}
	if path, err := exec.LookPath("nvidia-smi"); err == nil {
		return smi{path: path}, ""
	}
	if path, err := exec.LookPath("amd-smi"); err == nil {
		return &amdSMI{path: path}, ""
	}
	return nil, "no GPU telemetry: set ANVIL_GPU_METRICS_URL to a DCGM exporter's /metrics, or run beside nvidia-smi or amd-smi"
}

// dcgm reads a DCGM exporter's metrics.
type dcgm struct {
	url    string
	client *http.Client
}

func (d dcgm) name() string { return "dcgm " + d.url }

// The DCGM fields read, by what they hold; the throttle reasons kept both names they had.
var dcgmFields = map[string]func(*reading, float64){
	"DCGM_FI_DEV_SM_CLOCK":               func(r *reading, v float64) { r.sm = &v },
	"DCGM_FI_DEV_MEM_CLOCK":              func(r *reading, v float64) { r.mem = &v },
	"DCGM_FI_DEV_POWER_USAGE":            func(r *reading, v float64) { r.power = &v },
	"DCGM_FI_DEV_GPU_TEMP":               func(r *reading, v float64) { r.temp = &v },
	"DCGM_FI_DEV_GPU_UTIL":               func(r *reading, v float64) { r.util = &v },
	"DCGM_FI_DEV_FB_USED":                func(r *reading, v float64) { r.memUsed = &v },
	"DCGM_FI_DEV_CLOCK_THROTTLE_REASONS": func(r *reading, v float64) { u := uint64(v); r.reasons = &u },
	"DCGM_FI_DEV_CLOCKS_EVENT_REASONS":   func(r *reading, v float64) { u := uint64(v); r.reasons = &u },
}

func (d dcgm) read(ctx context.Context) ([]reading, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, d.url, nil)
	if err != nil {
		return nil, fmt.Errorf("DCGM exporter %s: %w", d.url, err)
	}
	resp, err := d.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("DCGM exporter %s: %w", d.url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("DCGM exporter %s: HTTP %d", d.url, resp.StatusCode)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return nil, fmt.Errorf("DCGM exporter %s: %w", d.url, err)
	}
	return parseDCGM(body)
}

// parseDCGM reads the DCGM fields of an exposition, one reading per gpu label.
func parseDCGM(body []byte) ([]reading, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("DCGM metrics: %w", err)
	}
	byGPU := map[string]*reading{}
	var order []string
	for name, set := range dcgmFields {
		f := families[name]
		if f == nil {
			continue
		}
		for _, m := range f.GetMetric() {
			var gpu, modelName string
			for _, l := range m.GetLabel() {
				switch l.GetName() {
				case "gpu":
					gpu = l.GetValue()
				case "modelName":
					modelName = l.GetValue()
				}
			}
			r := byGPU[gpu]
			if r == nil {
				r = &reading{gpu: gpu, model: modelName}
				byGPU[gpu] = r
				order = append(order, gpu)
			}
			v := m.GetGauge().GetValue()
			if m.Counter != nil {
				v = m.GetCounter().GetValue()
			}
			set(r, v)
		}
	}
	if len(order) == 0 {
		return nil, errors.New("DCGM metrics: no DCGM_FI_DEV_* field")
	}
	slices.Sort(order)
	out := make([]reading, len(order))
	for i, g := range order {
		out[i] = *byGPU[g]
	}
	return out, nil
}

// smi reads nvidia-smi's query output.
type smi struct{ path string }

func (s smi) name() string { return "nvidia-smi" }

// smiQuery is what nvidia-smi is asked, in this order.
const smiQuery = "index,name,clocks.sm,clocks.mem,power.draw,temperature.gpu,utilization.gpu,memory.used,clocks_event_reasons.active"

func (s smi) read(ctx context.Context) ([]reading, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, s.path, "--query-gpu="+smiQuery, "--format=csv,noheader,nounits").Output()
	if err != nil {
		return nil, fmt.Errorf("nvidia-smi: %w", err)
	}
	return parseSMI(out)
}

// parseSMI reads nvidia-smi's CSV lines; "[N/A]" and "[Not Supported]" leave a field nil.
func parseSMI(out []byte) ([]reading, error) {
	var rs []reading
	for line := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, ",")
		if len(f) != 9 {
			return nil, fmt.Errorf("nvidia-smi: %q: want 9 fields", line)
		}
		for i := range f {
			f[i] = strings.TrimSpace(f[i])
		}
		num := func(s string) *float64 {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return nil
			}
			return &v
		}
		r := reading{gpu: f[0], model: f[1], sm: num(f[2]), mem: num(f[3]), power: num(f[4]), temp: num(f[5]), util: num(f[6]), memUsed: num(f[7])}
		if v, err := strconv.ParseUint(strings.TrimPrefix(f[8], "0x"), 16, 64); err == nil {
			r.reasons = &v
		}
		rs = append(rs, r)
	}
	return rs, nil
}

// sample is every GPU's reading at one instant.
type sample struct {
	at   time.Time
	gpus []reading
}

// Watch samples the GPUs for the length of a run.
type Watch struct {
	src     source
	note    string
	mu      sync.Mutex
	samples []sample
	err     error
	stop    chan struct{}
	done    chan struct{}
}

// Start reads the GPUs once and keeps reading them every interval until Finish; without a
// source the watch records why.
func Start(ctx context.Context, src source, note string, interval time.Duration) *Watch {
	w := &Watch{src: src, note: note}
	if src == nil {
		return w
	}
	w.take(ctx)
	w.stop, w.done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(w.done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-w.stop:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				w.take(ctx)
			}
		}
	}()
	return w
}

func (w *Watch) take(ctx context.Context) {
	rs, err := w.src.read(ctx)
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		w.err = err
		return
	}
	w.samples = append(w.samples, sample{at: time.Now(), gpus: rs})
}

// Finish stops the watch, reads the GPUs once more, and returns what they did, the times
// as offsets from started (the measured phase's start), the samples between started and
// finished marked as the run's.
func (w *Watch) Finish(ctx context.Context, started, finished time.Time) *artifact.GPUTelemetry {
	if w.src == nil {
		return &artifact.GPUTelemetry{Source: "none", Note: w.note}
	}
	close(w.stop)
	<-w.done
	w.take(context.WithoutCancel(ctx))
	w.mu.Lock()
	defer w.mu.Unlock()
	t := &artifact.GPUTelemetry{Source: w.src.name(), Samples: len(w.samples)}
	if w.err != nil {
		t.Error = w.err.Error()
	}
	byGPU := map[string]*artifact.GPUState{}
	var order []string
	for _, s := range w.samples {
		offset := artifact.Float(s.at.Sub(started).Seconds() * 1000)
		during := !s.at.Before(started) && !s.at.After(finished)
		for _, r := range s.gpus {
			g := byGPU[r.gpu]
			if g == nil {
				g = &artifact.GPUState{GPU: r.gpu, Model: r.model}
				byGPU[r.gpu] = g
				order = append(order, r.gpu)
			}
			p := artifact.GPUSample{OffsetMs: offset, During: during, SMClockMHz: f(r.sm), MemClockMHz: f(r.mem), PowerW: f(r.power),
				TemperatureC: f(r.temp), UtilizationPct: f(r.util), MemoryUsedMiB: f(r.memUsed)}
			if r.reasons != nil {
				p.Reasons = new(*r.reasons)
				p.ReasonNames = artifact.GPUReasonNames(*r.reasons)
			}
			g.Series = append(g.Series, p)
		}
	}
	for _, g := range order {
		t.GPUs = append(t.GPUs, *byGPU[g])
	}
	return t
}

func f(p *float64) *artifact.Float {
	if p == nil {
		return nil
	}
	return artifact.F(*p)
}
