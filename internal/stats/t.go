package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// TQuantile is the p-quantile of Student's t distribution with df degrees of freedom;
// the standard normal's for an infinite df.
func TQuantile(p, df float64) float64 {
	if math.IsInf(df, 1) {
		return distuv.UnitNormal.Quantile(p)
	}
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(p)
}

// TUpper is the probability that Student's t with df degrees of freedom exceeds t: the
// one-sided p-value of a t statistic; the standard normal's for an infinite df.
func TUpper(t, df float64) float64 {
	if math.IsInf(df, 1) {
		return distuv.UnitNormal.Survival(t)
	}
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Survival(t)
}

// MeanSD is the mean and the sample standard deviation (n-1) of values; SD is NaN for
// fewer than two.
func MeanSD(values []float64) (mean, sd float64) {
	n := float64(len(values))
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	mean = FMean(values)
	if n < 2 {
		return mean, math.NaN()
	}
	ss := 0.0
	for _, v := range values {
		ss += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(ss / (n - 1))
}
