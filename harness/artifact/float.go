package artifact

import (
	"fmt"
	"math"
	"strconv"
)

// MarshalJSON encodes f as Python's repr(float) does, so artifacts match the original tool
// byte for byte: shortest round-trip digits, positional notation with at least one
// fractional digit when the decimal exponent e satisfies -4 <= e < 16 ("33.0", "0.0001"),
// scientific otherwise ("1e+16", "1.5e-05"). NaN and ±Inf are an error: the original refuses
// them (allow_nan=False), and so must we.
func (f Float) MarshalJSON() ([]byte, error) {
	return appendRepr(make([]byte, 0, 24), float64(f))
}

// appendRepr appends Python's repr of x to dst.
func appendRepr(dst []byte, x float64) ([]byte, error) {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return dst, fmt.Errorf("float %v is not representable in JSON", x)
	}
	if x == 0 {
		if math.Signbit(x) {
			return append(dst, "-0.0"...), nil
		}
		return append(dst, "0.0"...), nil
	}
	// The decimal exponent of the shortest representation, as in d.ddd × 10^e.
	var scratch [32]byte
	sci := strconv.AppendFloat(scratch[:0], x, 'e', -1, 64)
	e := exponent(sci)
	if e < -4 || e >= 16 {
		// Go's 'e' form already matches Python's: "1e+16", "1.5e-05", two exponent digits minimum.
		return append(dst, sci...), nil
	}
	start := len(dst)
	dst = strconv.AppendFloat(dst, x, 'f', -1, 64)
	for _, c := range dst[start:] {
		if c == '.' {
			return dst, nil
		}
	}
	return append(dst, ".0"...), nil
}

// exponent parses the signed exponent after the 'e' of strconv's 'e' format.
func exponent(sci []byte) int {
	i := len(sci) - 1
	for i >= 0 && sci[i] != 'e' {
		i--
	}
	e := 0
	for _, c := range sci[i+2:] {
		e = e*10 + int(c-'0')
	}
	if sci[i+1] == '-' {
		return -e
	}
	return e
}
