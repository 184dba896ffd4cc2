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
	// energy is the energy counter since the driver loaded, in mJ.
	energy  *float64
	reasons *uint64
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
	"DCGM_FI_DEV_SM_CLOCK":                 func(r *reading, v float64) { r.sm = &v },
	"DCGM_FI_DEV_MEM_CLOCK":                func(r *reading, v float64) { r.mem = &v },
	"DCGM_FI_DEV_POWER_USAGE":              func(r *reading, v float64) { r.power = &v },
	"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION": func(r *reading, v float64) { r.energy = &v },
	"DCGM_FI_DEV_GPU_TEMP":                 func(r *reading, v float64) { r.temp = &v },
	"DCGM_FI_DEV_GPU_UTIL":                 func(r *reading, v float64) { r.util = &v },
	"DCGM_FI_DEV_FB_USED":                  func(r *reading, v float64) { r.memUsed = &v },
	"DCGM_FI_DEV_CLOCK_THROTTLE_REASONS":   func(r *reading, v float64) { u := uint64(v); r.reasons = &u },
	"DCGM_FI_DEV_CLOCKS_EVENT_REASONS":     func(r *reading, v float64) { u := uint64(v); r.reasons = &u },
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
				TemperatureC: f(r.temp), UtilizationPct: f(r.util), MemoryUsedMiB: f(r.memUsed), EnergyMJ: f(r.energy)}
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
	t.EnergyJ, t.EnergySource = phaseEnergy(t.GPUs, 0, finished.Sub(started).Seconds()*1000)
	return t
}

func f(p *float64) *artifact.Float {
	if p == nil {
		return nil
	}
	return artifact.F(*p)
}

// Where a phase's energy came from.
const (
	energyCounter = "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"
	energyPower   = "DCGM_FI_DEV_POWER_USAGE, integrated"
)

// phaseEnergy is the joules every GPU drew between the offsets from and to (ms): the
// difference of its energy counter, interpolated to both ends between the samples that
// bracket them, or where a GPU has no counter there (or it went back), its power
// integrated over the samples (trapezoids, interpolated to both ends). Nil when a GPU has
// neither across the phase: an energy of some GPUs only is no run's.
func phaseEnergy(gpus []artifact.GPUState, from, to float64) (*artifact.Float, string) {
	if len(gpus) == 0 || to <= from {
		return nil, ""
	}
	total, sources := 0.0, map[string]bool{}
	for _, g := range gpus {
		if a, okA := at(g.Series, from, energyOf); okA {
			if b, okB := at(g.Series, to, energyOf); okB && b >= a {
				total += (b - a) / 1000
				sources[energyCounter] = true
				continue
			}
		}
		j, ok := integral(g.Series, from, to)
		if !ok {
			return nil, ""
		}
		total += j
		sources[energyPower] = true
	}
	source := energyCounter
	if sources[energyPower] {
		source = energyPower
		if sources[energyCounter] {
			source = energyCounter + " and " + energyPower
		}
	}
	return artifact.F(total), source
}

func energyOf(s artifact.GPUSample) *artifact.Float { return s.EnergyMJ }
func powerOf(s artifact.GPUSample) *artifact.Float  { return s.PowerW }

// at is a field's value at offset ms, interpolated between the samples that bracket it.
func at(series []artifact.GPUSample, offset float64, field func(artifact.GPUSample) *artifact.Float) (float64, bool) {
	var before, after *artifact.GPUSample
	for k := range series {
		s := &series[k]
		if field(*s) == nil {
			continue
		}
		if float64(s.OffsetMs) <= offset {
			before = s
		} else if after == nil {
			after = s
		}
	}
	switch {
	case before == nil || after == nil && float64(before.OffsetMs) < offset:
		return 0, false
	case after == nil || float64(before.OffsetMs) == offset:
		return float64(*field(*before)), true
	}
	x0, x1 := float64(before.OffsetMs), float64(after.OffsetMs)
	y0, y1 := float64(*field(*before)), float64(*field(*after))
	return y0 + (y1-y0)*(offset-x0)/(x1-x0), true
}

// integral is the joules of a GPU's power between the offsets from and to (ms).
func integral(series []artifact.GPUSample, from, to float64) (float64, bool) {
	p0, ok0 := at(series, from, powerOf)
	p1, ok1 := at(series, to, powerOf)
	if !ok0 || !ok1 {
		return 0, false
	}
	x, y, joules := from, p0, 0.0
	for _, s := range series {
		if s.PowerW == nil || float64(s.OffsetMs) <= from || float64(s.OffsetMs) >= to {
			continue
		}
		joules += (float64(s.OffsetMs) - x) / 1000 * (y + float64(*s.PowerW)) / 2
		x, y = float64(s.OffsetMs), float64(*s.PowerW)
	}
	return joules + (to-x)/1000*(y+p1)/2, true
}
