package main

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// t975 returns t(0.975, runs − 1), the Student-t factor of a 95% interval
// for a mean over runs independent runs (4.30 for 3 runs, 2.57 for 6);
// NaN for fewer than 2 runs.
func t975(runs int) float64 {
	if runs < 2 {
		return math.NaN()
	}
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(runs - 1)}.Quantile(0.975)
}

// ci95 returns the half-width of the 95% interval of a mean over runs
// independent runs with standard error se: t(0.975, runs − 1)·se.
func ci95(se float64, runs int) float64 { return t975(runs) * se }
