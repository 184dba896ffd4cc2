package workload

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Classes are priority classes a run spreads its requests over, written
// "interactive:1:0,batch:3:10": each its name, its weight and the priority its requests
// send (vLLM's and SGLang's request field; lower is served first).
type Classes []Class

// Class is one priority class.
type Class struct {
	Name     string
	Weight   float64
	Priority int
}

// String writes the classes as UnmarshalText reads them.
func (c Classes) String() string {
	parts := make([]string, len(c))
	for i, x := range c {
		parts[i] = x.Name + ":" + strconv.FormatFloat(x.Weight, 'g', -1, 64) + ":" + strconv.Itoa(x.Priority)
	}
	return strings.Join(parts, ",")
}

// MarshalText writes c as String does.
func (c Classes) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText reads "name:weight:priority,..."; names are distinct, without spaces,
// commas, colons or brackets; weights above 0; priorities integers.
func (c *Classes) UnmarshalText(text []byte) error {
	var out Classes
	if strings.TrimSpace(string(text)) == "" {
		*c = nil
		return nil
	}
	for term := range strings.SplitSeq(string(text), ",") {
		term = strings.TrimSpace(term)
		parts := strings.Split(term, ":")
		if len(parts) != 3 {
			return fmt.Errorf("priority class %q: want name:weight:priority (interactive:1:0)", term)
		}
		x := Class{Name: strings.TrimSpace(parts[0])}
		w, err := strconv.ParseFloat(strings.TrimSpace(parts[1]), 64)
		if err != nil || !(w > 0) || math.IsInf(w, 0) {
			return fmt.Errorf("priority class %q: the weight must be a number above 0", term)
		}
		p, err := strconv.Atoi(strings.TrimSpace(parts[2]))
		if err != nil {
			return fmt.Errorf("priority class %q: the priority must be an integer (lower is served first)", term)
		}
		x.Weight, x.Priority = w, p
		if x.Name == "" || strings.ContainsAny(x.Name, " \t[]") {
			return fmt.Errorf("priority class %q: want a name without spaces or brackets", term)
		}
		if slices.ContainsFunc(out, func(y Class) bool { return y.Name == x.Name }) {
			return fmt.Errorf("priority class %q is named twice", x.Name)
		}
		out = append(out, x)
	}
	*c = out
	return nil
}

// Shares are each class's share of the requests, summing to 1.
func (c Classes) Shares() []float64 {
	out := make([]float64, len(c))
	total := 0.0
	for _, x := range c {
		total += x.Weight
	}
	for k, x := range c {
		out[k] = x.Weight / total
	}
	return out
}
