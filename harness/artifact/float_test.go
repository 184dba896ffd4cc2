package artifact

import (
	"math"
	"testing"
)

// Each want is CPython's repr of the value (checked with CPython 3.11; json.dumps agrees).
func TestFloatRepr(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0.1, "0.1"},
		{add(0.1, 0.2), "0.30000000000000004"}, // float64 sum, not the exact constant
		{1.0 / 3, "0.3333333333333333"},
		{2.0 / 3, "0.6666666666666666"},
		{0, "0.0"},
		{math.Copysign(0, -1), "-0.0"},
		{1, "1.0"},
		{-1.5, "-1.5"},
		{33, "33.0"},
		{100, "100.0"},
		{60771, "60771.0"},
		{123456789.0, "123456789.0"},
		{5.997075000777841, "5.997075000777841"},
		{2.728494780999433, "2.728494780999433"},
		{72567.48349999543, "72567.48349999543"},
		{167.30757675903405, "167.30757675903405"},
		// positional while the decimal exponent is in [-4, 16)
		{0.001, "0.001"},
		{0.0001, "0.0001"},
		{0.00012345, "0.00012345"},
		{999999999999999.9, "999999999999999.9"},
		{1e15, "1000000000000000.0"},
		{1234567890123456.0, "1234567890123456.0"},
		{9999999999999998.0, "9999999999999998.0"},
		{9007199254740993.0, "9007199254740992.0"}, // rounds to 2^53 on parse
		// scientific outside it, two exponent digits at least
		{0.00001, "1e-05"},
		{1e-05, "1e-05"},
		{1.5e-05, "1.5e-05"},
		{1.23e-05, "1.23e-05"},
		{-1e-7, "-1e-07"},
		{1e16, "1e+16"},
		{1e21, "1e+21"},
		{1e22, "1e+22"},
		{1e100, "1e+100"},
		{1.5e300, "1.5e+300"},
		{-2.5e-300, "-2.5e-300"},
		{12345678901234567890.0, "1.2345678901234567e+19"},
		{123456789012345678.0, "1.2345678901234568e+17"},
		{1.7976931348623157e+308, "1.7976931348623157e+308"},
		{2.2250738585072014e-308, "2.2250738585072014e-308"},
		{5e-324, "5e-324"},
	}
	for _, tt := range tests {
		got, err := Float(tt.in).MarshalJSON()
		if err != nil {
			t.Errorf("Float(%v): %v", tt.in, err)
			continue
		}
		if string(got) != tt.want {
			t.Errorf("Float(%v) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestFloatNonFinite(t *testing.T) {
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if got, err := Float(f).MarshalJSON(); err == nil {
			t.Errorf("Float(%v) = %s, want an error", f, got)
		}
		if _, err := Encode(struct{ X Float }{Float(f)}); err == nil {
			t.Errorf("Encode with Float(%v): want an error", f)
		}
	}
}

// TestFloatNull checks that a nil *Float encodes as null.
func TestFloatNull(t *testing.T) {
	got, err := Encode(struct {
		A *Float `json:"a"`
		B *Float `json:"b"`
	}{B: F(2)})
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"a\": null,\n  \"b\": 2.0\n}\n"; string(got) != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// add sums at run time; Go would fold constant operands exactly.
func add(a, b float64) float64 { return a + b }
