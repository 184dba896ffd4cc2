package refengine

import (
	"fmt"
	"strconv"
	"strings"
)

// parseAdapters reads "name:slowdown,..." (a name alone is 1: as fast as the base model).
func parseAdapters(v string) (map[string]float64, error) {
	out := map[string]float64{}
	for term := range strings.SplitSeq(v, ",") {
		name, factor, ok := strings.Cut(strings.TrimSpace(term), ":")
		f := 1.0
		if ok {
			var err error
			if f, err = strconv.ParseFloat(factor, 64); err != nil || !(f > 0) {
				return nil, fmt.Errorf("adapter %q: the slowdown must be a number above 0", term)
			}
		}
		if name == "" {
			return nil, fmt.Errorf("adapter %q: no name", term)
		}
		out[name] = f
	}
	return out, nil
}

// adapter is the slowdown of the adapter model names, and whether it is one.
func (s *Server) adapter(model string) (float64, bool) {
	f, ok := s.opts.Adapters[model]
	return f, ok
}
