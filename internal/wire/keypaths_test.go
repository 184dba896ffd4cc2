package wire

import (
	"maps"
	"testing"
)

func TestKeyPaths(t *testing.T) {
	got, err := KeyPaths([]byte(`{"a": [{"x": 1, "y": null}, {"x": "s", "y": {"z": true}}], "b": [], "c": 1.5}`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"a": "array", "a[]": "object", "a[].x": "number|string", "a[].y": "null|object",
		"a[].y.z": "bool", "b": "array", "c": "number",
	}
	if !maps.Equal(got, want) {
		t.Errorf("KeyPaths = %v, want %v", got, want)
	}
	for _, bad := range []string{`{"a":`, `{} {}`, ``} {
		if _, err := KeyPaths([]byte(bad)); err == nil {
			t.Errorf("KeyPaths(%q) succeeded", bad)
		}
	}
}
