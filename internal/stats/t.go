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

// Mixture is the distribution of Z/√(Share·Q/DF + 1 − Share) for a standard normal Z and
// an independent chi-square Q on DF degrees of freedom: a change over the square root of a
// variance of which the part Share was estimated on DF degrees of freedom and the rest is
// known. Share 1 is Student's t, Share 0 the normal.
type Mixture struct {
	DF, Share float64
	scale     []float64
}

// mixtureNodes is how many quantiles of Q the tail averages over.
const mixtureNodes = 256

// Upper is P(X > t): the normal tail averaged over quantiles of Q.
func (m *Mixture) Upper(t float64) float64 {
	if m.scale == nil {
		chi := distuv.ChiSquared{K: m.DF}
		for i := range mixtureNodes {
			q := chi.Quantile((float64(i) + 0.5) / mixtureNodes)
			m.scale = append(m.scale, math.Sqrt(m.Share*q/m.DF+1-m.Share))
		}
	}
	sum := 0.0
	for _, s := range m.scale {
		sum += distuv.UnitNormal.Survival(t * s)
	}
	return sum / mixtureNodes
}

// Quantile is the t with P(X <= t) = p, by bisection.
func (m *Mixture) Quantile(p float64) float64 {
	lo, hi := -60.0, 60.0
	for range 60 {
		mid := (lo + hi) / 2
		if 1-m.Upper(mid) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}
