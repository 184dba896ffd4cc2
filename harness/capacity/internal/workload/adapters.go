package workload

import (
	"slices"
	"strconv"
	"strings"
)

// Adapters are LoRA adapters a run spreads its requests over, each with its weight:
// written "lora-a:3,lora-b:1", or "lora-a,lora-b" for equal weights.
type Adapters []Adapter

// Adapter is one adapter's name, as requests name it in their model field, and its weight.
type Adapter struct {
	Name   string
	Weight float64
}

// String writes the adapters as UnmarshalText reads them.
func (a Adapters) String() string {
	parts := make([]string, len(a))
	for i, x := range a {
		parts[i] = x.Name + ":" + strconv.FormatFloat(x.Weight, 'g', -1, 64)
	}
	return strings.Join(parts, ",")
}

// MarshalText writes a as String does.
func (a Adapters) MarshalText() ([]byte, error) { return []byte(a.String()), nil }

// UnmarshalText reads "name:weight,..." (a name alone weighs 1); names are distinct, without
// spaces, commas or colons; weights above 0.
func (a *Adapters) UnmarshalText(text []byte) error {
	var out Adapters
	if strings.TrimSpace(string(text)) == "" {
		*a = nil
		return nil
	}
	err := readTerms(text, "adapter", "name:weight (lora-a:3)", 1, func(name string, rest []string) (err error) {
		x := Adapter{Name: name, Weight: 1}
		if len(rest) == 1 {
			x.Weight, err = readWeight(rest[0])
		}
		out = append(out, x)
		return err
	})
	if err != nil {
		return err
	}
	*a = out
	return nil
}

// AdapterMix is how requests are spread over adapters: by their weights, or by Zipf's law
// over the order they are listed in (the k-th weighs 1/k), as SGLang's benchmark has it.
type AdapterMix string

// The adapter mixes.
const (
	MixWeighted AdapterMix = "weighted"
	MixZipf     AdapterMix = "zipf"
)

// Choices lists the mixes.
func (AdapterMix) Choices() []string { return []string{string(MixWeighted), string(MixZipf)} }

// Valid reports whether m is one of Choices.
func (m AdapterMix) Valid() bool { return slices.Contains(m.Choices(), string(m)) }

// Shares are each adapter's share of the requests under mix, summing to 1.
func (a Adapters) Shares(mix AdapterMix) []float64 {
	out := make([]float64, len(a))
	total := 0.0
	for k, x := range a {
		out[k] = x.Weight
		if mix == MixZipf {
			out[k] = 1 / float64(k+1)
		}
		total += out[k]
	}
	for k := range out {
		out[k] /= total
	}
	return out
}

// Assign gives each of n requests an adapter (its index in a): each adapter its share of n
// exactly (see Spread), so a run of 40 at 3:1 sends 30 and 10, not whatever a draw gives.
func (a Adapters) Assign(n int, mix AdapterMix, seed int64) []int {
	return Spread(a.Shares(mix), n, seed, 0xada9)
}
