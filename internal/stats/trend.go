package stats

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// trendPoints bounds the values a trend is tested over: a longer series is taken at 400
// evenly spaced points, so the tests' quadratic cost stays at about 80,000 pairs.
const trendPoints = 400

// Trend is what a series in time order says of its drift: Mann-Kendall's test for a
// monotonic trend (Mann 1945, Kendall 1975), Sen's slope (1968) with its confidence
// interval (Gilbert 1987, §16.5), and Pettitt's (1979) most likely change of level. Each
// assumes independent values: a caller whose values are correlated in time (requests that
// share batches) tests the medians of groups of them.
type Trend struct {
	// Points is how many values were tested (at most 400, evenly spaced).
	Points int
	// Z and P are Mann-Kendall's statistic, with ties corrected, and its two-sided p.
	Z, P float64
	// Slope is Sen's slope in y per unit of t; Low and High the ends of its interval at
	// the level asked for.
	Slope, Low, High float64
	// ShiftAt is the index of the first value after Pettitt's change of level, ShiftP its
	// approximate p.
	ShiftAt int
	ShiftP  float64
}

// TrendOf tests y, observed at t (ascending), for a trend and a change of level, with
// Sen's slope's interval at level (0.95: 95%). Fewer than 3 points give P and ShiftP 1.
func TrendOf(t, y []float64, level float64) Trend {
	if n := len(y); n > trendPoints {
		ts, ys := make([]float64, trendPoints), make([]float64, trendPoints)
		for k := range trendPoints {
			ts[k], ys[k] = t[k*n/trendPoints], y[k*n/trendPoints]
		}
		t, y = ts, ys
	}
	n := len(y)
	out := Trend{Points: n, P: 1, ShiftP: 1, Slope: math.NaN(), Low: math.NaN(), High: math.NaN()}
	if n < 3 {
		return out
	}
	var slopes []float64
	s := 0.0
	for i := range n - 1 {
		for j := i + 1; j < n; j++ {
			switch {
			case y[j] > y[i]:
				s++
			case y[j] < y[i]:
				s--
			}
			if dt := t[j] - t[i]; dt != 0 {
				slopes = append(slopes, (y[j]-y[i])/dt)
			}
		}
	}
	slices.Sort(slopes)
	if len(slopes) > 0 {
		out.Slope = quantileOfSorted(slopes, 0.5)
	}
	variance := tiedVariance(y)
	if variance <= 0 {
		return out
	}
	sd := math.Sqrt(variance)
	switch {
	case s > 0:
		out.Z = (s - 1) / sd
	case s < 0:
		out.Z = (s + 1) / sd
	}
	out.P = math.Erfc(math.Abs(out.Z) / math.Sqrt2)
	if len(slopes) > 0 {
		c := distuv.UnitNormal.Quantile(1-(1-level)/2) * sd
		lo, hi := int(math.Floor((float64(len(slopes))-c)/2)), int(math.Ceil((float64(len(slopes))+c)/2))
		out.Low, out.High = slopes[max(0, min(lo, len(slopes)-1))], slopes[max(0, min(hi, len(slopes)-1))]
	}
	out.ShiftAt, out.ShiftP = pettitt(y)
	return out
}

// tiedVariance is the variance of Mann-Kendall's S under no trend, less its ties' part.
func tiedVariance(y []float64) float64 {
	n := float64(len(y))
	v := n * (n - 1) * (2*n + 5)
	sorted := slices.Sorted(slices.Values(y))
	for i := 0; i < len(sorted); {
		j := i
		for j < len(sorted) && sorted[j] == sorted[i] {
			j++
		}
		if t := float64(j - i); t > 1 {
			v -= t * (t - 1) * (2*t + 5)
		}
		i = j
	}
	return v / 18
}

// pettitt is Pettitt's change point: U_t = U_{t−1} + Σ_j sgn(x_t − x_j), K = max |U_t|, and
// p ≈ 2·exp(−6K²/(n³+n²)), capped at 1.
func pettitt(x []float64) (at int, p float64) {
	n := len(x)
	u, k := 0.0, 0.0
	for t := range n - 1 {
		for _, xj := range x {
			switch {
			case x[t] > xj:
				u++
			case x[t] < xj:
				u--
			}
		}
		if math.Abs(u) > k {
			k, at = math.Abs(u), t+1
		}
	}
	nf := float64(n)
	return at, min(1, 2*math.Exp(-6*k*k/(nf*nf*nf+nf*nf)))
}

// quantileOfSorted is the linearly interpolated q-quantile of sorted values.
func quantileOfSorted(s []float64, q float64) float64 {
	pos := q * float64(len(s)-1)
	lo := int(math.Floor(pos))
	if lo >= len(s)-1 {
		return s[len(s)-1]
	}
	return s[lo] + (pos-float64(lo))*(s[lo+1]-s[lo])
}
