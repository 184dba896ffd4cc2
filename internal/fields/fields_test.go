package fields

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

type color string

func (color) Choices() []string { return []string{"red", "blue"} }

type inner struct {
	Ratio float64 `key:"ratio" range:"(0,1)" default:"0.5" zero:"default"`
}

type Embedded struct {
	Level int `key:"level" range:"[0,9]" default:"4" zero:"default"`
}

type sample struct {
	Count  int           `key:"count" range:"[1,10]" default:"3"`
	Share  *float64      `key:"share" range:"(0,1]"`
	On     bool          `key:"on" default:"true"`
	Color  color         `key:"color" default:"red"`
	Big    int           `key:"big" range:"[0,1048576]"`
	Wait   time.Duration `key:"wait" default:"2s"`
	File   string        `key:"file" env:"FILE_PATH"`
	Name   string
	Nested inner
	Embedded
}

func TestTheTagsDescribeTheFields(t *testing.T) {
	t.Parallel()
	fs := Of(reflect.TypeFor[sample]())
	var keys []string
	for _, f := range fs {
		keys = append(keys, f.Key)
	}
	if !slices.Equal(keys, []string{"count", "share", "on", "color", "big", "wait", "file", "ratio", "level"}) {
		t.Fatalf("keys %v", keys)
	}
	var s sample
	if err := Defaults(&s); err != nil || s.Count != 3 || !s.On || s.Color != "red" || s.Nested.Ratio != 0.5 || s.Share != nil || s.Wait != 2*time.Second {
		t.Fatalf("defaults %+v %v", s, err)
	}
	for key, want := range map[string]string{"count": "1..10", "share": "a number in (0, 1]", "ratio": "a number in (0, 1)", "big": "0..1048576"} {
		if f, _ := Lookup(reflect.TypeFor[sample](), key); f.Range.String() != want {
			t.Errorf("%s: range %q, want %q", key, f.Range, want)
		}
	}
}

// A duration reads "500ms" from a variable and from a file; a field may name its variable.
func TestDurationsAndVariableNames(t *testing.T) {
	t.Parallel()
	wait, _ := Lookup(reflect.TypeFor[sample](), "wait")
	var a, b sample
	if err := wait.SetText(&a, "500ms"); err != nil || a.Wait != 500*time.Millisecond {
		t.Errorf("text: %v %v", err, a.Wait)
	}
	if err := wait.Set(&b, json.RawMessage(`"1m"`)); err != nil || b.Wait != time.Minute {
		t.Errorf("json: %v %v", err, b.Wait)
	}
	for _, bad := range []string{`5`, `"soon"`} {
		if err := wait.Set(&b, json.RawMessage(bad)); err == nil || !strings.Contains(err.Error(), "a duration") {
			t.Errorf("%s: %v", bad, err)
		}
	}
	if f, _ := Lookup(reflect.TypeFor[sample](), "file"); f.Variable != "FILE_PATH" {
		t.Errorf("file's variable %q", f.Variable)
	}
	if f, _ := Lookup(reflect.TypeFor[sample](), "count"); f.Variable != "COUNT" {
		t.Errorf("count's variable %q", f.Variable)
	}
}

// A variable's text and a file's JSON reach a field the same way.
func TestTextAndJSONDecodeAlike(t *testing.T) {
	t.Parallel()
	count, _ := Lookup(reflect.TypeFor[sample](), "count")
	share, _ := Lookup(reflect.TypeFor[sample](), "share")
	col, _ := Lookup(reflect.TypeFor[sample](), "color")
	var a, b sample
	if err := count.SetText(&a, "7"); err != nil || a.Count != 7 {
		t.Errorf("text 7: %v %d", err, a.Count)
	}
	if err := count.Set(&b, json.RawMessage("7")); err != nil || b.Count != 7 {
		t.Errorf("json 7: %v %d", err, b.Count)
	}
	if err := share.SetText(&a, "0.25"); err != nil || a.Share == nil || *a.Share != 0.25 {
		t.Errorf("a pointer: %v %v", err, a.Share)
	}
	if err := col.SetText(&a, "blue"); err != nil || a.Color != "blue" {
		t.Errorf("a string: %v %q", err, a.Color)
	}
	for text, want := range map[string]string{"seven": "want an integer", "7.5": "want an integer", "": "want an integer"} {
		if err := count.SetText(&a, text); err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
	}
	if err := count.Set(&a, json.RawMessage("null")); err == nil {
		t.Error("null set an integer")
	}
	if err := share.Set(&a, json.RawMessage("null")); err != nil || a.Share != nil {
		t.Errorf("null unsets a pointer: %v %v", err, a.Share)
	}
}

func TestOutOfRangeAndUnknown(t *testing.T) {
	t.Parallel()
	zero, one := 0.0, 1.0
	s := sample{Count: 11, Share: &zero, Color: "green", Nested: inner{Ratio: 1}}
	var names []string
	for _, v := range outOfRange(&s) {
		names = append(names, v.Field.Name)
	}
	// A field of a named struct field is named through it.
	if !slices.Equal(names, []string{"Count", "Share", "Nested.Ratio"}) {
		t.Errorf("out of range %v", names)
	}
	s.Share = &one
	if v := outOfRange(&s); len(v) != 2 {
		t.Errorf("1 lies in (0,1]: %v", v)
	}
	u := unknownChoices(&s)
	if len(u) != 1 || u[0].Value != "green" || strings.Join(u[0].Choices, ",") != "red,blue" {
		t.Errorf("unknown %+v", u)
	}
}

// A zero field whose tag says its zero stands for the default takes the default; other
// zero fields, and fields already set, keep their values.
func TestFillZerosTakesTheTagsDefaultWhereZeroStandsForIt(t *testing.T) {
	t.Parallel()
	var s sample
	if err := FillZeros(&s); err != nil {
		t.Fatal(err)
	}
	if s.Nested.Ratio != 0.5 || s.Level != 4 || s.Count != 0 || s.On || s.Color != "" {
		t.Errorf("filled %+v", s)
	}
	s = sample{Nested: inner{Ratio: 0.25}}
	s.Level = 7
	if err := FillZeros(&s); err != nil || s.Nested.Ratio != 0.25 || s.Level != 7 {
		t.Errorf("a set field changed: %+v %v", s, err)
	}
	if KeyOf(reflect.TypeFor[sample](), "Nested.Ratio") != "ratio" || KeyOf(reflect.TypeFor[sample](), "Level") != "level" || KeyOf(reflect.TypeFor[sample](), "Ratio") != "" {
		t.Error("KeyOf does not name fields as Of does")
	}
}
