// Package units names and prints a figure as the verdicts, the report and the command
// write it: the unit a metric key implies, a value with that unit, and the percentile a
// statistic's name says. It stands on the ground floor: keys are text, not artifacts.
package units

import (
	"math"
	"strconv"
	"strings"
)

// Of is the unit of a metric key: "ms", "tok/s", "chunks/s", or "" for counts and ratios.
func Of(metric string) string {
	switch {
	case strings.HasSuffix(metric, "_ms"), strings.HasPrefix(metric, "mean_inter_token_latency_ms"):
		return "ms"
	case strings.Contains(metric, "tok_s"):
		return "tok/s"
	case strings.Contains(metric, "chunks_s"):
		return "chunks/s"
	}
	return ""
}

// Format prints a figure with its unit: "6.31ms", "151.20 tok/s", "6".
func Format(v float64, unit string) string { return FormatPlaces(v, unit, 2) }

// FormatPlaces is Format with places decimal places for a figure with a unit.
func FormatPlaces(v float64, unit string, places int) string {
	switch unit {
	case "ms":
		return strconv.FormatFloat(v, 'f', places, 64) + "ms"
	case "":
		// Counts print whole, ratios (an acceptance rate) to four places.
		return strconv.FormatFloat(math.Round(v*1e4)/1e4, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'f', places, 64) + " " + unit
}

// PercentileOf returns q for a percentile statistic's name ("p95" is 95), 0 otherwise.
func PercentileOf(stat string) float64 {
	if len(stat) < 2 || stat[0] != 'p' {
		return 0
	}
	q, err := strconv.Atoi(stat[1:])
	if err != nil || q <= 0 || q > 100 {
		return 0
	}
	return float64(q)
}
