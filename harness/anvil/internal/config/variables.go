package config

import (
	"errors"
	"fmt"
	"iter"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/anvilbench/anvilbench/harness/capacity"
	"github.com/anvilbench/anvilbench/harness/gate"
	"github.com/anvilbench/anvilbench/internal/fields"
	"github.com/anvilbench/anvilbench/internal/suggest"
	"github.com/caarlos0/env/v11"
)

// OtherVariables are the ANVIL_* variables of anvilbench's own tools and tests, which the
// configuration accepts and leaves to them: ANVIL_GINKGO (anvilbench run), ANVIL_REFENGINE_API_KEY
// (cmd/refengine), ANVIL_TRUTH and ANVIL_TRUTH_SERVER_CPU (the truth benchmark),
// ANVIL_REPORT_HTML and ANVIL_REPORT_SCREENSHOT (the report's browser test),
// ANVIL_CI_ARTIFACTS (CI), ANVIL_TEST_ROLE and ANVIL_TEST_READY (subprocess tests).
func OtherVariables() []string {
	return []string{"ANVIL_GINKGO", "ANVIL_REFENGINE_API_KEY", "ANVIL_TRUTH", "ANVIL_TRUTH_SERVER_CPU", "ANVIL_REPORT_HTML",
		"ANVIL_REPORT_SCREENSHOT", "ANVIL_CI_ARTIFACTS", "ANVIL_TEST_ROLE", "ANVIL_TEST_READY"}
}

// unknownVariables names every ANVIL_* variable of environ that is neither a configuration
// variable nor one of OtherVariables, with the known one it was probably meant to be.
func unknownVariables(environ map[string]string) problemList {
	var known []string
	for _, v := range Variables() {
		known = append(known, v[0])
	}
	known = append(known, OtherVariables()...)
	var p problemList
	for _, name := range sortedKeys(environ) {
		if !strings.HasPrefix(name, Prefix) || slices.Contains(known, name) {
			continue
		}
		msg := fmt.Sprintf("%s: unknown variable", name)
		if near := suggest.Nearest(name, known, 3); near != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", near)
		}
		p = append(p, msg+"; anvilbench would ignore it")
	}
	return p
}

// Set names the configuration variables set to a value in environ, sorted: what a run can
// be held to use. An empty value is unset (a CI job passes its empty inputs along).
func Set(environ map[string]string) []string {
	var out []string
	for _, v := range Variables() {
		if environ[v[0]] != "" {
			out = append(out, v[0])
		}
	}
	slices.Sort(out)
	return out
}

// identityKeys are the scenario keys every scenario of a suite takes from the
// configuration (anvil.Env.WithIdentity), configured or not.
var identityKeys = []string{"context_margin", "max_context_tokens", "controlled_output_policy", "calibrate", "context_tolerance"}

// Uses are the configuration variables the specs of a suite read: every variable of the
// endpoint, identity, timing and output, and those of the context window, the policy and
// calibration (which every scenario takes), those of the workload and the gate when the
// configured scenario or a file scenario runs (file scenarios take them as defaults), the
// configured scenario's budgets and baseline, and the scenarios file. A variable no suite
// of a run uses fails the run's gate.
func Uses(configured, scenarios bool) []string {
	var out []string
	for f := range envFields(reflect.TypeFor[Config]()) {
		name := Prefix + strings.Split(f.Tag.Get("env"), ",")[0]
		switch f.Tag.Get("use") {
		case "configured":
			if configured {
				out = append(out, name)
			}
		case "scenarios":
			if scenarios {
				out = append(out, name)
			}
		case "gated":
			if configured || scenarios {
				out = append(out, name)
			}
		default:
			out = append(out, name)
		}
	}
	for _, t := range []reflect.Type{reflect.TypeFor[capacity.Scenario](), reflect.TypeFor[gate.Spec]()} {
		for _, f := range fields.Of(t) {
			if configured || scenarios || slices.Contains(identityKeys, f.Key) {
				out = append(out, Prefix+f.Variable)
			}
		}
	}
	slices.Sort(out)
	return out
}

// describeParseError rewrites env's errors, which name Go fields and echo raw values, into
// one line per ANVIL_* variable, and returns the variables that could not be parsed.
func describeParseError(err error, environ map[string]string) (problemList, map[string]bool) {
	unparsable := map[string]bool{}
	var agg env.AggregateError
	if !errors.As(err, &agg) {
		return problemList{fmt.Sprintf("load configuration: %v", err)}, unparsable
	}
	keys := map[string]string{}
	for f := range envFields(reflect.TypeFor[Config]()) {
		keys[f.Name] = Prefix + strings.Split(f.Tag.Get("env"), ",")[0]
	}
	var problems problemList
	for _, e := range agg.Errors {
		var pe env.ParseError
		if errors.As(e, &pe) {
			key := keys[pe.Name]
			unparsable[key] = true
			problems = append(problems, fmt.Sprintf("%s=%q: %s", key, environ[key], kindOf(pe.Type)))
			continue
		}
		problems = append(problems, e.Error())
	}
	return problems, unparsable
}

func kindOf(t reflect.Type) string {
	switch {
	case t == reflect.TypeOf(time.Duration(0)):
		return "not a duration (use Go syntax such as 30s, 15m)"
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Int64:
		return "not an integer"
	case t.Kind() == reflect.Bool:
		return "not a boolean (true or false)"
	}
	return "not a valid " + t.String()
}

// Variables lists every ANVIL_* variable with its default, in declaration order: those of
// the configuration itself, then the scenario's (capacity.Scenario) and the gate's
// (gate.Spec) keyed fields.
func Variables() [][2]string {
	var out [][2]string
	for f := range envFields(reflect.TypeFor[Config]()) {
		out = append(out, [2]string{Prefix + strings.Split(f.Tag.Get("env"), ",")[0], f.Tag.Get("envDefault")})
	}
	for _, t := range []reflect.Type{reflect.TypeFor[capacity.Scenario](), reflect.TypeFor[gate.Spec]()} {
		for _, f := range fields.Of(t) {
			out = append(out, [2]string{Prefix + f.Variable, f.Default})
		}
	}
	return out
}

// envFields yields the fields of t read by env (an env tag other than "-").
func envFields(t reflect.Type) iter.Seq[reflect.StructField] {
	return func(yield func(reflect.StructField) bool) {
		for i := range t.NumField() {
			f := t.Field(i)
			if tag, ok := f.Tag.Lookup("env"); ok && tag != "-" && !yield(f) {
				return
			}
		}
	}
}

// keyOf is the key of a field named by its Go name in a capacity.Scenario, a gate.Spec or
// a capacity.Target: its tag, else the name in snake case (BaseURL is base_url).
func keyOf(field string) string {
	if k := fields.KeyOf(reflect.TypeFor[capacity.Scenario](), field); k != "" {
		return k
	}
	if k := fields.KeyOf(reflect.TypeFor[gate.Spec](), field); k != "" {
		return k
	}
	var b strings.Builder
	for i, r := range field {
		upper := r >= 'A' && r <= 'Z'
		if upper && i > 0 && !(field[i-1] >= 'A' && field[i-1] <= 'Z' && (i+1 == len(field) || field[i+1] >= 'A' && field[i+1] <= 'Z')) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// variable names a field by its ANVIL_* variable.
func variable(field string) string {
	for _, t := range []reflect.Type{reflect.TypeFor[capacity.Scenario](), reflect.TypeFor[gate.Spec]()} {
		for _, f := range fields.Of(t) {
			if f.Name == field {
				return Prefix + f.Variable
			}
		}
	}
	return Prefix + strings.ToUpper(keyOf(field))
}
