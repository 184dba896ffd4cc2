// Package fields reads the description a struct gives of its own fields in tags, so that a
// scenario (capacity.Scenario) and a gate (gate.Spec) are each described once: their
// validation, their decoding from ANVIL_* variables and from scenarios files, their error
// messages and the reference's defaults all come from the same tags.
//
//	Requests int `key:"requests" range:"[1,10000]" default:"60"`
//
// key names the field in a scenarios file and, upper-cased after ANVIL_, its variable (env
// names the variable instead, when a file's key would make a poor one: a trace file);
// range is an interval over the field's numbers (a pointer's when set), "[a,b]" closed,
// "(a,b)" open, an empty end unbounded; default is the value, in the variable's text, a
// configuration starts from. A time.Duration is written as time.ParseDuration reads it,
// in a variable and in a file ("500ms"). A struct-typed field without a key is searched for keyed
// fields of its own, named through it ("Sessions.Turns"; an embedded struct adds no name).
// zero:"default" says that the field's zero value stands for its default (FillZeros).
package fields

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Field is one keyed field of a struct type.
type Field struct {
	// Name is the Go field's name, dotted through the named struct fields that hold it
	// ("Sessions.Turns"); Key its key; Variable its variable's name after the prefix (the
	// env tag, else Key upper-cased).
	Name, Key, Variable string
	// Default is the default value as a variable would spell it; "" for none.
	Default string
	// ZeroIsDefault says that the field's zero value stands for Default (zero:"default").
	ZeroIsDefault bool
	// Range bounds the field's number, when it has one.
	Range *Range
	index []int
	typ   reflect.Type
}

// Range is an interval of numbers.
type Range struct {
	Min, Max             float64 // ±Inf when unbounded
	OpenLow, OpenHigh    bool
	integer, unboundedHi bool
}

// Contains reports whether x lies in the interval.
func (r Range) Contains(x float64) bool {
	if math.IsNaN(x) {
		return false
	}
	lowOK := x > r.Min || (!r.OpenLow && x == r.Min)
	highOK := x < r.Max || (!r.OpenHigh && x == r.Max)
	return lowOK && highOK
}

// String writes the interval for people: "1..10000" for a closed integer range, else
// "a number in (0, 1]", "a number of at least 0", "a number above 0".
func (r Range) String() string {
	num := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	switch {
	case r.integer && !r.OpenLow && !r.OpenHigh && !r.unboundedHi:
		return num(r.Min) + ".." + num(r.Max)
	case r.unboundedHi && r.OpenLow:
		return "a number above " + num(r.Min)
	case r.unboundedHi:
		return "a number of at least " + num(r.Min)
	}
	lo, hi := "[", "]"
	if r.OpenLow {
		lo = "("
	}
	if r.OpenHigh {
		hi = ")"
	}
	return "a number in " + lo + num(r.Min) + ", " + num(r.Max) + hi
}

var cache sync.Map // reflect.Type -> []Field

// Of lists the keyed fields of struct type t, in declaration order, those of struct-typed
// fields without a key in place. It panics on a malformed tag: a programming error.
func Of(t reflect.Type) []Field {
	if fs, ok := cache.Load(t); ok {
		return fs.([]Field)
	}
	var out []Field
	collect(t, nil, "", &out)
	cache.Store(t, out)
	return out
}

func collect(t reflect.Type, at []int, prefix string, out *[]Field) {
	for i := range t.NumField() {
		sf := t.Field(i)
		index := append(append([]int(nil), at...), i)
		key, ok := sf.Tag.Lookup("key")
		if !ok {
			// An embedded struct's exported fields are promoted, exported or not.
			if sf.Type.Kind() == reflect.Struct && (sf.IsExported() || sf.Anonymous) {
				inner := prefix
				if !sf.Anonymous {
					inner += sf.Name + "."
				}
				collect(sf.Type, index, inner, out)
			}
			continue
		}
		f := Field{Name: prefix + sf.Name, Key: key, Variable: strings.ToUpper(key), Default: sf.Tag.Get("default"),
			ZeroIsDefault: sf.Tag.Get("zero") == "default", index: index, typ: sf.Type}
		if f.ZeroIsDefault && f.Default == "" {
			panic(fmt.Sprintf("fields: %s.%s: zero:\"default\" without a default", t, sf.Name))
		}
		if v, ok := sf.Tag.Lookup("env"); ok {
			f.Variable = v
		}
		if r, ok := sf.Tag.Lookup("range"); ok {
			parsed, err := parseRange(r, isInteger(sf.Type))
			if err != nil {
				panic(fmt.Sprintf("fields: %s.%s: %v", t, sf.Name, err))
			}
			f.Range = &parsed
		}
		*out = append(*out, f)
	}
}

func isInteger(t reflect.Type) bool {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() >= reflect.Int && t.Kind() <= reflect.Int64
}

// parseRange reads "[1,10000]", "(0,1]", "[0,)".
func parseRange(s string, integer bool) (Range, error) {
	r := Range{integer: integer}
	if len(s) < 3 || !strings.ContainsRune("[(", rune(s[0])) || !strings.ContainsRune("])", rune(s[len(s)-1])) {
		return r, fmt.Errorf("range %q: want [a,b], (a,b], [a,) ...", s)
	}
	r.OpenLow, r.OpenHigh = s[0] == '(', s[len(s)-1] == ')'
	lo, hi, ok := strings.Cut(s[1:len(s)-1], ",")
	if !ok {
		return r, fmt.Errorf("range %q: no comma", s)
	}
	var err error
	if r.Min, err = strconv.ParseFloat(strings.TrimSpace(lo), 64); err != nil {
		return r, fmt.Errorf("range %q: %v", s, err)
	}
	if strings.TrimSpace(hi) == "" {
		r.Max, r.unboundedHi, r.OpenHigh = math.Inf(1), true, true
		return r, nil
	}
	if r.Max, err = strconv.ParseFloat(strings.TrimSpace(hi), 64); err != nil {
		return r, fmt.Errorf("range %q: %v", s, err)
	}
	return r, nil
}

// Lookup finds the field of t with key.
func Lookup(t reflect.Type, key string) (Field, bool) {
	for _, f := range Of(t) {
		if f.Key == key {
			return f, true
		}
	}
	return Field{}, false
}

// KeyOf is the key of t's field named name (Field.Name); "" when it has none.
func KeyOf(t reflect.Type, name string) string {
	for _, f := range Of(t) {
		if f.Name == name {
			return f.Key
		}
	}
	return ""
}

// Keys lists the keys of t's fields.
func Keys(t reflect.Type) []string {
	var out []string
	for _, f := range Of(t) {
		out = append(out, f.Key)
	}
	return out
}

// Value is the field in the struct v points to.
func (f Field) Value(v reflect.Value) reflect.Value { return v.Elem().FieldByIndex(f.index) }

// Kind says what the field holds, for a message: "an integer", "a number", "true or false",
// "a string".
func (f Field) Kind() string {
	t := f.typ
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == durationType:
		return `a duration ("500ms", "2s")`
	case isInteger(t):
		return "an integer"
	case t.Kind() == reflect.Float64 || t.Kind() == reflect.Float32:
		return "a number"
	case t.Kind() == reflect.Bool:
		return "true or false"
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.String:
		return "a string or a list of strings"
	}
	return "a string"
}

// Set decodes the JSON value raw into the field of the struct ptr points to. JSON null is
// accepted only by a pointer field (which it unsets). A string-valued field takes a JSON
// string; a field whose type reads text (encoding.TextUnmarshaler) takes it as text.
func (f Field) Set(ptr any, raw json.RawMessage) error {
	dst := f.Value(reflect.ValueOf(ptr))
	if strings.TrimSpace(string(raw)) == "null" && dst.Kind() != reflect.Pointer {
		return fmt.Errorf("want %s", f.Kind())
	}
	if dst.Type() == durationType {
		var text string
		if json.Unmarshal(raw, &text) != nil {
			return fmt.Errorf("want %s", f.Kind())
		}
		d, err := time.ParseDuration(text)
		if err != nil {
			return fmt.Errorf("want %s", f.Kind())
		}
		dst.SetInt(int64(d))
		return nil
	}
	fresh := reflect.New(dst.Type())
	if err := json.Unmarshal(raw, fresh.Interface()); err != nil {
		var typeErr *json.UnmarshalTypeError
		var syntaxErr *json.SyntaxError
		if errors.As(err, &typeErr) || errors.As(err, &syntaxErr) {
			return fmt.Errorf("want %s", f.Kind())
		}
		return err
	}
	dst.Set(fresh.Elem())
	return nil
}

// SetText decodes a variable's text into the field: numbers and booleans as JSON, strings
// and text-reading types as they stand. It is Set with the text as the JSON a file holds,
// so a variable and a scenarios file reach the field the same way.
func (f Field) SetText(ptr any, text string) error {
	raw := json.RawMessage(text)
	if f.textual() || !json.Valid(raw) {
		raw, _ = json.Marshal(text)
	}
	return f.Set(ptr, raw)
}

// textual reports whether the field reads a JSON string: a string, or text.
func (f Field) textual() bool {
	t := f.typ
	if reflect.PointerTo(t).Implements(reflect.TypeFor[encoding.TextUnmarshaler]()) {
		return true
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t.Kind() == reflect.String || t == durationType
}

// durationType is time.Duration, which a variable and a file both spell as "2s".
var durationType = reflect.TypeFor[time.Duration]()

// Defaults sets every field of the struct ptr points to that has a default to it.
func Defaults(ptr any) error {
	for _, f := range Of(reflect.TypeOf(ptr).Elem()) {
		if f.Default == "" {
			continue
		}
		if err := f.SetText(ptr, f.Default); err != nil {
			return fmt.Errorf("fields: default of %s (%q): %v", f.Name, f.Default, err)
		}
	}
	return nil
}

// FillZeros sets every field of the struct ptr points to that is zero and whose zero
// stands for its default (zero:"default") to that default: what a zero field means is then
// written once, in its tag.
func FillZeros(ptr any) error {
	v := reflect.ValueOf(ptr)
	for _, f := range Of(v.Type().Elem()) {
		if !f.ZeroIsDefault || !f.Value(v).IsZero() {
			continue
		}
		if err := f.SetText(ptr, f.Default); err != nil {
			return fmt.Errorf("fields: default of %s (%q): %v", f.Name, f.Default, err)
		}
	}
	return nil
}

// violation is a field outside its range.
type violation struct {
	Field Field
	Value any
}

// outOfRange lists the fields of the struct ptr points to whose numbers lie outside their
// ranges (a nil pointer lies nowhere).
func outOfRange(ptr any) []violation {
	v := reflect.ValueOf(ptr)
	var out []violation
	for _, f := range Of(v.Type().Elem()) {
		if f.Range == nil {
			continue
		}
		x := f.Value(v)
		if x.Kind() == reflect.Pointer {
			if x.IsNil() {
				continue
			}
			x = x.Elem()
		}
		var n float64
		switch {
		case x.CanInt():
			n = float64(x.Int())
		case x.CanFloat():
			n = x.Float()
		default:
			continue
		}
		if !f.Range.Contains(n) {
			out = append(out, violation{Field: f, Value: x.Interface()})
		}
	}
	return out
}

// Choice is a field type with a fixed set of values; its empty value stands for its
// default.
type Choice interface{ Choices() []string }

// unknownChoice is a field whose value is not one of its type's choices.
type unknownChoice struct {
	Field   Field
	Value   string
	Choices []string
}

// unknownChoices lists the fields of the struct ptr points to whose type is a Choice and whose
// non-empty value is not one of its choices.
func unknownChoices(ptr any) []unknownChoice {
	v := reflect.ValueOf(ptr)
	var out []unknownChoice
	for _, f := range Of(v.Type().Elem()) {
		x := f.Value(v)
		c, ok := x.Interface().(Choice)
		if !ok || x.Kind() != reflect.String || x.String() == "" {
			continue
		}
		if !slices.Contains(c.Choices(), x.String()) {
			out = append(out, unknownChoice{Field: f, Value: x.String(), Choices: c.Choices()})
		}
	}
	return out
}
