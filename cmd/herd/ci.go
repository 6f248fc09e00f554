package main

import "herd/compare"

// t975 returns t(0.975, runs − 1), the Student-t factor of a 95% interval
// for a mean over runs independent runs (4.30 for 3 runs, 2.57 for 6);
// NaN for fewer than 2 runs (compare.T975).
func t975(runs int) float64 { return compare.T975(runs) }

// ci95 returns the half-width of the 95% interval of a mean over runs
// independent runs with standard error se: t(0.975, runs − 1)·se.
func ci95(se float64, runs int) float64 { return t975(runs) * se }
