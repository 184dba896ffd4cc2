package workload

import (
	"fmt"
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
	const form = "name:weight:priority (interactive:1:0)"
	err := readTerms(text, "priority class", form, 2, func(name string, rest []string) error {
		if len(rest) != 2 {
			return fmt.Errorf("want %s", form)
		}
		w, err := readWeight(rest[0])
		if err != nil {
			return err
		}
		p, err := strconv.Atoi(strings.TrimSpace(rest[1]))
		if err != nil {
			return fmt.Errorf("the priority must be an integer (lower is served first)")
		}
		out = append(out, Class{Name: name, Weight: w, Priority: p})
		return nil
	})
	if err != nil {
		return err
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
