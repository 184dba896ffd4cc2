package gpumetrics

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// amdSMI reads amd-smi's JSON: `metric` every sample, `static --asic` once for the models.
type amdSMI struct {
	path   string
	once   sync.Once
	models map[string]string
}

func (a *amdSMI) name() string { return "amd-smi" }

func (a *amdSMI) read(ctx context.Context) ([]reading, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	a.once.Do(func() {
		if out, err := exec.CommandContext(ctx, a.path, "static", "--asic", "--json").Output(); err == nil {
			a.models = parseAMDModels(out)
		}
	})
	out, err := exec.CommandContext(ctx, a.path, "metric", "--json").Output()
	if err != nil {
		return nil, fmt.Errorf("amd-smi metric: %w", err)
	}
	rs, err := parseAMDMetric(out)
	for i := range rs {
		rs[i].model = a.models[rs[i].gpu]
	}
	return rs, err
}

// amdViolations map amd-smi's violation statuses (MI300 and later) to the NVML clock
// event reasons the check reads: a power cap (PPT), a hardware slowdown (PROCHOT), thermal
// slowdowns of the socket, its voltage regulators and its HBM.
var amdViolations = []struct {
	field string
	bit   uint64
}{
	{"ppt_violation_status", 0x4},
	{"prochot_violation_status", 0x8},
	{"socket_thermal_violation_status", 0x20},
	{"vr_thermal_violation_status", 0x20},
	{"hbm_thermal_violation_status", 0x40},
}

// amdGPU is one GPU of `amd-smi metric --json`; a reading is {"value": v, "unit": u}, a
// bare number, or "N/A", by version.
type amdGPU struct {
	GPU   json.Number `json:"gpu"`
	Usage struct {
		GFXActivity json.RawMessage `json:"gfx_activity"`
	} `json:"usage"`
	Power struct {
		SocketPower        json.RawMessage `json:"socket_power"`
		AverageSocketPower json.RawMessage `json:"average_socket_power"`
		ThrottleStatus     string          `json:"throttle_status"`
	} `json:"power"`
	Clock       map[string]json.RawMessage `json:"clock"`
	Temperature struct {
		Edge    json.RawMessage `json:"edge"`
		Hotspot json.RawMessage `json:"hotspot"`
	} `json:"temperature"`
	MemUsage struct {
		UsedVRAM json.RawMessage `json:"used_vram"`
	} `json:"mem_usage"`
	Throttle map[string]json.RawMessage `json:"throttle"`
}

// gpuList reads amd-smi's top level: a list of GPUs, or {"gpu_data": [...]} (ROCm 6.4 on);
// anything before the JSON (a warning) is skipped.
func gpuList[T any](out []byte) ([]T, error) {
	if i := bytes.IndexAny(out, "[{"); i > 0 {
		out = out[i:]
	}
	var list []T
	if err := json.Unmarshal(out, &list); err == nil {
		return list, nil
	}
	var wrapped struct {
		GPUData []T `json:"gpu_data"`
	}
	if err := json.Unmarshal(out, &wrapped); err != nil {
		return nil, fmt.Errorf("amd-smi JSON: %w", err)
	}
	return wrapped.GPUData, nil
}

// parseAMDMetric reads `amd-smi metric --json`: the first gfx and mem clock domains, power,
// the hotspot (else edge) temperature, activity, VRAM used, and the throttle state.
func parseAMDMetric(out []byte) ([]reading, error) {
	gpus, err := gpuList[amdGPU](out)
	if err != nil {
		return nil, err
	}
	if len(gpus) == 0 {
		return nil, errors.New("amd-smi metric: no GPU")
	}
	rs := make([]reading, 0, len(gpus))
	for _, g := range gpus {
		r := reading{gpu: g.GPU.String(), util: amdValue(g.Usage.GFXActivity), memUsed: amdValue(g.MemUsage.UsedVRAM),
			power: cmpOr(amdValue(g.Power.SocketPower), amdValue(g.Power.AverageSocketPower)),
			temp:  cmpOr(amdValue(g.Temperature.Hotspot), amdValue(g.Temperature.Edge)),
			sm:    amdClock(g.Clock, "gfx_"), mem: amdClock(g.Clock, "mem_")}
		var reasons uint64
		known := false
		for _, v := range amdViolations {
			var status string
			if json.Unmarshal(g.Throttle[v.field], &status) == nil && status != "N/A" {
				known = true
				if status == "ACTIVE" {
					reasons |= v.bit
				}
			}
		}
		if !known { // before the violation statuses: one flag for any throttle
			switch g.Power.ThrottleStatus {
			case "THROTTLED":
				reasons, known = 0x8, true
			case "UNTHROTTLED":
				known = true
			}
		}
		if known {
			r.reasons = &reasons
		}
		rs = append(rs, r)
	}
	return rs, nil
}

// amdValue is a reading's number: {"value": v}, v, or nil for "N/A" and the absent.
func amdValue(raw json.RawMessage) *float64 {
	if len(raw) == 0 {
		return nil
	}
	var vu struct {
		Value json.RawMessage `json:"value"`
	}
	if json.Unmarshal(raw, &vu) == nil && len(vu.Value) > 0 {
		raw = vu.Value
	}
	v, err := strconv.ParseFloat(strings.Trim(string(raw), `"`), 64)
	if err != nil {
		return nil
	}
	return &v
}

// amdClock is the current clock of the lowest-numbered domain of prefix that reports one
// (gfx_0 ... gfx_7; the rest are "N/A" on one partition).
func amdClock(clock map[string]json.RawMessage, prefix string) *float64 {
	var names []string
	for k := range clock {
		if strings.HasPrefix(k, prefix) {
			names = append(names, k)
		}
	}
	slices.SortFunc(names, func(a, b string) int {
		x, _ := strconv.Atoi(strings.TrimPrefix(a, prefix))
		y, _ := strconv.Atoi(strings.TrimPrefix(b, prefix))
		return x - y
	})
	for _, k := range names {
		var d struct {
			Clk json.RawMessage `json:"clk"`
		}
		if json.Unmarshal(clock[k], &d) == nil {
			if v := amdValue(d.Clk); v != nil {
				return v
			}
		}
	}
	return nil
}

// parseAMDModels reads `amd-smi static --asic --json`: each GPU's market name.
func parseAMDModels(out []byte) map[string]string {
	gpus, err := gpuList[struct {
		GPU  json.Number `json:"gpu"`
		ASIC struct {
			MarketName string `json:"market_name"`
		} `json:"asic"`
	}](out)
	if err != nil {
		return nil
	}
	m := map[string]string{}
	for _, g := range gpus {
		m[g.GPU.String()] = g.ASIC.MarketName
	}
	return m
}

func cmpOr(a, b *float64) *float64 {
	if a != nil {
		return a
	}
	return b
}
