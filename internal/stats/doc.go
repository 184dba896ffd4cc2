// Package stats computes the distribution statistics of a benchmark artifact exactly the way
// Python 3.11's statistics module does, to the last bit.
//
// Every latency and throughput family in an artifact ("ttft", "tpot", "e2e", ...) is reduced
// to the same thirteen numbers by Summarize. Other tools use the same names for different
// quantities, so this package says exactly what each number is:
//
//   - mean: the correctly rounded exact sum of the values divided by n in float64
//     (Python statistics.fmean, i.e. math.fsum(values) / n).
//   - stddev: the SAMPLE standard deviation, with the n−1 (Bessel) denominator. The sum of
//     squared deviations from the exact mean is computed in exact rational arithmetic,
//     divided by n−1, and its square root is rounded once to the nearest float64
//     (Python ≥ 3.11 statistics.stdev). It is 0 for a single value.
//   - mean_ci95_low / mean_ci95_high: the normal-approximation (z = 1.96, not Student-t) 95%
//     confidence interval of the mean, mean ∓ 1.96·stddev/√n, evaluated in float64.
//   - min, max: the smallest and the largest value.
//   - pQ: the nearest-rank percentile, the ⌈Q/100·n⌉-th smallest value (1-based; the smallest
//     value when that rank is 0). It is always one of the values, never an interpolation.
//
// Naive float64 formulas differ from the reference artifact in the last ulp for several
// families, which is why the sums here are exact: float64 values are dyadic rationals, so
// they are scaled to integers over one common power-of-two denominator and summed with
// math/big.
package stats
