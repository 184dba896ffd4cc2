// Package compare judges a benchmark artifact against a baseline artifact of the same
// workload: whether the two are comparable at all (artifact.Differences), whether one metric regressed
// beyond noise (Regression), and a table of the key metrics for people and CI (Compare).
//
// A regression is decided on the per-request rows (request_timings) of both artifacts, not on
// their summary figures alone, so that the noise of each run is part of the judgement: a
// change must be both practically large (more than half the gate) and statistically
// significant (a one-sided Mann–Whitney test and a bootstrap confidence interval of the
// ratio) to fail. See Regression for the exact rule.
package compare
