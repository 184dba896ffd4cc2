package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/anvilbench/anvilbench/harness/budget"
	"github.com/anvilbench/anvilbench/harness/capacity"
	"github.com/anvilbench/anvilbench/harness/gate"
	"github.com/anvilbench/anvilbench/internal/atomicfile"
	"github.com/anvilbench/anvilbench/internal/fields"
	"github.com/anvilbench/anvilbench/internal/suggest"
)

// maxScenariosFileBytes bounds a scenarios file: a few dozen scenarios, never megabytes.
const maxScenariosFileBytes = 1 << 20

// Keys of a scenarios file entry beside the workload and gate keys.
const (
	keyName          = "name"
	keyLabels        = "labels"
	keyBudgets       = "budgets"
	keyBaseline      = "baseline"
	keyBaselineURL   = "baseline_url"
	keyBaselineModel = "baseline_model"
)

// scenarioName is the name an entry gives itself, "" when it gives none.
func scenarioName(entry map[string]json.RawMessage) string {
	var name string
	_ = json.Unmarshal(entry[keyName], &name)
	return name
}

// interleaveWith is the baseline build with key (baseline_url or baseline_model) set to
// text, from in or, when in is nil, from the configuration's target.
func interleaveWith(in *capacity.Interleaving, env Config, key, text string) *capacity.Interleaving {
	out := capacity.Interleaving{Baseline: env.Target(""), Model: env.BaselineModel}
	if env.BaselineAPIKey.IsSet() {
		out.Baseline.APIKey = env.BaselineAPIKey
	}
	if in != nil {
		out = *in
	}
	if key == keyBaselineURL {
		out.Baseline.BaseURL = text
	} else {
		out.Model = text
	}
	return &out
}

// scenarioNamePattern keeps a name usable as a file name, a Ginkgo label and a JUnit name
// without rewriting it.
var scenarioNamePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,63}$`)

// readScenarios reads a scenarios file, several gated scenarios kept in an engine's
// repository:
//
//	{"scenarios": [
//	  {"name": "short-chat", "requests": 60, "concurrency": 32, "context_tokens": 2000,
//	   "max_tokens": 64, "response_words": 32, "budgets": ["tpot_p50_ms<=6"],
//	   "baseline": "baselines/short-chat.json", "labels": ["fast"]},
//	  {"name": "agent-32k", "context_tokens": 32000, "concurrency": 4}
//	]}
//
// Every key but name, labels, budgets and baseline is an ANVIL_* workload or gate variable
// in lower case without the prefix, with the variable's type (numbers, booleans, strings).
// A key a scenario leaves out takes the environment's value in env, then the default;
// budgets and the baseline belong to one scenario and are never inherited. A relative
// baseline path is taken from the scenarios file's directory, so a file and its baselines
// move together. The whole file is checked before it is
// used: the error is Problems, one line per problem with its position
// ("scenarios[2].budgets[0]: ..."), unknown keys included.
func readScenarios(path string, env Config) ([]GatedScenario, error) {
	data, err := atomicfile.ReadAtMost(path, maxScenariosFileBytes)
	if err != nil {
		return nil, fmt.Errorf("read scenarios: %w", err)
	}
	return ParseScenarios(data, filepath.Dir(path), env)
}

// ParseScenarios parses the JSON of a scenarios file over the configuration env, with
// relative baseline paths taken from dir (see ReadScenarios).
func ParseScenarios(data []byte, dir string, env Config) ([]GatedScenario, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var file struct {
		Scenarios *[]json.RawMessage `json:"scenarios"`
	}
	const want = `want {"scenarios": [{"name": "short-chat", ...}, ...]}`
	if err := dec.Decode(&file); err != nil {
		return nil, fmt.Errorf("%s: %w (%s)", want, err, position(data, errorOffset(err, dec.InputOffset())))
	}
	if dec.More() {
		return nil, fmt.Errorf("%s, found more after it", want)
	}
	if file.Scenarios == nil || len(*file.Scenarios) == 0 {
		return nil, fmt.Errorf(`no scenarios (%s)`, want)
	}
	var p problemList
	var out []GatedScenario
	names := map[string]int{}
	for i, raw := range *file.Scenarios {
		at := fmt.Sprintf("scenarios[%d]", i)
		g, problems := parseScenario(raw, dir, env, at)
		p = append(p, problems...)
		if g.Name != "" {
			if first, dup := names[g.Name]; dup {
				p = append(p, fmt.Sprintf("%s.name=%q: also the name of scenarios[%d]", at, g.Name, first))
			}
			names[g.Name] = i
		}
		out = append(out, g)
	}
	if len(p) > 0 {
		return nil, p
	}
	return out, nil
}

// parseScenario decodes one entry key by key, so that every bad key is reported, each
// through the field it names (fields.Field.Set, the path a variable takes too), then
// validates the whole scenario as the configured one is validated.
func parseScenario(raw json.RawMessage, dir string, env Config, at string) (GatedScenario, problemList) {
	var p problemList
	add := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, args...)) }
	var entry map[string]json.RawMessage
	if err := json.Unmarshal(raw, &entry); err != nil || entry == nil {
		add("%s: want an object of scenario keys, got %s", at, clipJSON(raw))
		return GatedScenario{}, p
	}
	g := GatedScenario{Scenario: env.configured(), Spec: env.Gate, Interleave: env.Interleaving()}
	g.Budgets = nil // never inherited
	var baseline Baseline
	for _, key := range sortedKeys(entry) {
		value := entry[key]
		switch key {
		case keyName:
			if err := json.Unmarshal(value, &g.Name); err != nil || !scenarioNamePattern.MatchString(g.Name) {
				add("%s.name: want 1 to 64 of a-z 0-9 - starting with a letter or digit, got %s", at, clipJSON(value))
				g.Name = ""
			}
		case keyLabels:
			if err := json.Unmarshal(value, &g.Labels); err != nil {
				add("%s.labels: want a list of strings, got %s", at, clipJSON(value))
			}
			for j, l := range g.Labels {
				if l == "" || strings.TrimSpace(l) != l || strings.ContainsAny(l, "&|!,()/") {
					add("%s.labels[%d]=%q: want a non-empty label without spaces at its ends or any of & | ! , ( ) /", at, j, l)
				}
			}
		case keyBudgets:
			var terms []string
			if err := json.Unmarshal(value, &terms); err != nil {
				add("%s.budgets: want a list of budget strings, got %s", at, clipJSON(value))
			}
			for j, term := range terms {
				bs, err := budget.Parse(term)
				if err != nil {
					add("%s.budgets[%d]: %v", at, j, err)
				}
				g.Budgets = append(g.Budgets, bs...)
			}
		case keyBaseline:
			if err := json.Unmarshal(value, &g.BaselinePath); err != nil || g.BaselinePath == "" {
				add("%s.baseline: want the path of a v1 artifact, or a directory or glob of earlier runs, got %s", at, clipJSON(value))
				break
			}
			if !filepath.IsAbs(g.BaselinePath) {
				g.BaselinePath = filepath.Join(dir, g.BaselinePath)
			}
			var err error
			if baseline, err = ReadBaseline(g.BaselinePath, scenarioName(entry)); err != nil {
				add("%s.baseline=%q: %v", at, g.BaselinePath, err)
			}
		case keyBaselineURL, keyBaselineModel:
			var text string
			if err := json.Unmarshal(value, &text); err != nil || text == "" {
				add("%s.%s: want a string, got %s", at, key, clipJSON(value))
				break
			}
			g.Interleave = interleaveWith(g.Interleave, env, key, text)
		default:
			if err := setKey(&g, key, value); err != nil {
				add("%s.%s: %v", at, key, err)
			}
		}
	}
	if _, ok := entry[keyName]; !ok {
		add("%s: no name (want e.g. \"name\": \"short-chat\")", at)
	}
	name := func(field string) string { return at + "." + keyOf(field) }
	g.Scenario.Name = g.Name
	_, ownBaseline := entry[keyBaseline]
	_, ownURL := entry[keyBaselineURL]
	switch {
	case ownBaseline && ownURL:
		add("%s: %v", at, errBaselineAndURL)
	case ownBaseline:
		g.Interleave = nil // its own earlier runs, not the environment's baseline build
	case !ownURL && env.Baseline != "":
		// The environment's history, its runs of this scenario; or its one artifact, when
		// this scenario wrote it.
		if b := env.baselines.of(g.Name, false); env.baselines.history() || b.One != nil {
			g.BaselinePath, baseline = env.Baseline, b
		}
	}
	if g.Interleave != nil {
		p = append(p, render(g.Interleave.Baseline.Validate(), func(string) string { return at + "." + keyBaselineURL })...)
		if r := max(g.Scenario.Repeats, 1); r < minInterleavedPairs && !g.Scenario.Search.On() {
			add("%s: interleaved with a baseline build, repeats %d gives %d pairs of blocks: a comparison needs at least %d (ABBA); set \"repeats\" (or %sREPEATS) to 6", at, r, r, minInterleavedPairs, Prefix)
		}
	}
	judgedAgainst(&g.Spec, g.BaselinePath, baseline, g.Interleave)
	g.Searched = g.Scenario.Search.On()
	p = append(p, searchProblems(g.Scenario.Search, g.Budgets, func(key string) string { return at + "." + key })...)
	env.countStarts(&g.Spec, g.Name)
	if _, set := entry["trace"]; set {
		// A trace file moves with its scenarios file, as a baseline does.
		if file := g.Scenario.Trace.File; file != "" && !filepath.IsAbs(file) {
			g.Scenario.Trace.File = filepath.Join(dir, file)
		}
		if err := g.Scenario.Trace.Check(); err != nil {
			add("%s.trace=%q: %v", at, g.Scenario.Trace.File, err)
		}
	}
	p = append(p, renderNoted(g.Scenario.Validate(), name, inheritedNote(entry))...)
	p = append(p, renderNoted(g.Spec.Validate(), name, inheritedNote(entry))...)
	return g, p
}

// inheritedNote says where the values of a problem that the scenario left out came from:
// a user who wrote max_tokens 32 must learn that the response_words it clashes with is
// ANVIL_RESPONSE_WORDS or its default, not the file's.
func inheritedNote(entry map[string]json.RawMessage) func(*fields.FieldError) string {
	return func(f *fields.FieldError) string {
		var note string
		var seen []string
		for _, field := range append([]string{f.Field}, f.Others...) {
			if _, set := entry[keyOf(field)]; set || slices.Contains(seen, field) {
				continue
			}
			seen = append(seen, field)
			note += fmt.Sprintf(" (%s: not in the scenario, from %s or its default)", keyOf(field), variable(field))
		}
		return note
	}
}

// setKey sets the scenario's or the gate's field of key from a JSON value.
func setKey(g *GatedScenario, key string, value json.RawMessage) error {
	var f fields.Field
	var ok bool
	var dst any
	if f, ok = fields.Lookup(reflect.TypeFor[capacity.Scenario](), key); ok {
		dst = &g.Scenario
	} else if f, ok = fields.Lookup(reflect.TypeFor[gate.Spec](), key); ok {
		dst = &g.Spec
	} else {
		return fmt.Errorf("unknown key%s", suggestKey(key))
	}
	if err := f.Set(dst, value); err != nil {
		return fmt.Errorf("%v, got %s", err, clipJSON(value))
	}
	return nil
}

// suggestKey names the known key closest to a misspelt one, when one is close.
func suggestKey(key string) string {
	known := append([]string{keyName, keyLabels, keyBudgets, keyBaseline, keyBaselineURL, keyBaselineModel}, fields.Keys(reflect.TypeFor[capacity.Scenario]())...)
	known = append(known, fields.Keys(reflect.TypeFor[gate.Spec]())...)
	if best := suggest.Nearest(key, known, 2); best != "" {
		return fmt.Sprintf(" (did you mean %s?)", best)
	}
	return ""
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// clipJSON quotes a JSON value for a message, shortened.
func clipJSON(raw json.RawMessage) string {
	s := string(bytes.TrimSpace(raw))
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return s
}

// errorOffset is where in the input a JSON error lies: the syntax or type error's own
// offset, else where the decoder stopped.
func errorOffset(err error, stopped int64) int64 {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return syntax.Offset
	case errors.As(err, &typ):
		return typ.Offset
	}
	return stopped
}

// position is "line L, column C" of byte offset in data (1-based; a column counts
// bytes), as an editor shows it.
func position(data []byte, offset int64) string {
	offset = min(max(offset, 0), int64(len(data)))
	before := data[:offset]
	line := bytes.Count(before, []byte("\n")) + 1
	column := len(before) - bytes.LastIndexByte(before, '\n')
	return fmt.Sprintf("line %d, column %d", line, column)
}
