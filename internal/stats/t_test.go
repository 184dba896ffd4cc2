package stats

import (
	"math"
	"testing"
)

// Quantiles and tails of Student's t match the printed tables (to their four digits), and
// the normal's at an infinite df.
func TestStudentsT(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ p, df, want float64 }{
		{0.975, 1, 12.706}, {0.975, 4, 2.776}, {0.99, 7, 2.998}, {0.995, 9, 3.250}, {0.95, 30, 1.697},
		{0.975, math.Inf(1), 1.960}, {0.99, math.Inf(1), 2.326},
	} {
		if got := TQuantile(c.p, c.df); math.Abs(got-c.want) > 5e-4 {
			t.Errorf("t(%g, df %g) = %.4f, want %.3f", c.p, c.df, got, c.want)
		}
		if got := TUpper(TQuantile(c.p, c.df), c.df); math.Abs(got-(1-c.p)) > 1e-9 {
			t.Errorf("upper tail at t(%g, df %g) = %g, want %g", c.p, c.df, got, 1-c.p)
		}
	}
	if m, sd := MeanSD([]float64{2, 4, 4, 4, 5, 5, 7, 9}); m != 5 || math.Abs(sd-2.138) > 1e-3 {
		t.Errorf("mean %v sd %v", m, sd)
	}
}
