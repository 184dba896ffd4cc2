package fields

import (
	"fmt"
	"strings"
)

// FieldError is one invalid field of a struct these tags describe (a scenario, a gate, a
// target), named by its Go name (Field.Name: "MaxTokens", "Sessions.Turns"), so that every
// front end can name it its own way (Render): a scenarios file by its key, the
// configuration by its ANVIL_* variable.
type FieldError struct {
	Field string
	// Value is the offending value, shown after the name; nil shows none.
	Value any
	// Problem says what is wrong; each %s in it is one of Others, named as Field is.
	Problem string
	Others  []string
}

// Error names the fields by their Go names: `Requests=0: out of range (want 1..10000)`.
func (e *FieldError) Error() string { return e.Render(func(f string) string { return f }) }

// Render writes the problem with every field named by name.
func (e *FieldError) Render(name func(field string) string) string {
	var b strings.Builder
	b.WriteString(name(e.Field))
	switch v := e.Value.(type) {
	case nil:
	case string:
		fmt.Fprintf(&b, "=%q", v)
	default:
		fmt.Fprintf(&b, "=%v", v)
	}
	b.WriteString(": ")
	if len(e.Others) == 0 {
		b.WriteString(e.Problem)
		return b.String()
	}
	others := make([]any, len(e.Others))
	for i, o := range e.Others {
		others[i] = name(o)
	}
	fmt.Fprintf(&b, e.Problem, others...)
	return b.String()
}

// Errors returns the FieldErrors of an error from a Validate (joined errors, joins of
// joins included), in order; any other error in it is returned as is in rest.
func Errors(err error) (fields []*FieldError, rest []error) {
	switch e := err.(type) {
	case nil:
	case *FieldError:
		fields = append(fields, e)
	case interface{ Unwrap() []error }:
		for _, inner := range e.Unwrap() {
			f, r := Errors(inner)
			fields, rest = append(fields, f...), append(rest, r...)
		}
	default:
		rest = append(rest, err)
	}
	return fields, rest
}

// Problems are the FieldErrors of ptr's fields out of their ranges or choices, each
// described as such ("out of range (want 1..10000)"), but for those skip says another field
// takes the place of.
func Problems(ptr any, skip func(name string) bool) []error {
	var errs []error
	for _, v := range outOfRange(ptr) {
		if skip != nil && skip(v.Field.Name) {
			continue
		}
		errs = append(errs, &FieldError{Field: v.Field.Name, Value: v.Value, Problem: "out of range (want " + v.Field.Range.String() + ")"})
	}
	for _, v := range unknownChoices(ptr) {
		errs = append(errs, &FieldError{Field: v.Field.Name, Value: v.Value, Problem: "unknown value (want " + JoinChoices(v.Choices) + ")"})
	}
	return errs
}

// JoinChoices lists choices for a message: "a, b or c".
func JoinChoices(choices []string) string {
	if len(choices) < 2 {
		return strings.Join(choices, "")
	}
	return strings.Join(choices[:len(choices)-1], ", ") + " or " + choices[len(choices)-1]
}
