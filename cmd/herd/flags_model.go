package main

import (
	"github.com/spf13/pflag"

	"herd/meanfield"
)

// Flags of the model commands that several of them share, each defined
// once with one help text (the common flags are in flags.go).

// addToleranceFlag adds --tolerance, the relative precision of each edge
// in T, for a command that searches for edges.
func addToleranceFlag(fs *pflag.FlagSet) *float64 {
	return fs.Float64("tolerance", 1e-4, "relative precision of each edge in T, in [1e-8, 0.1)")
}

// checkTolerance checks --tolerance: meanfield.EdgeSettings refuses a
// relative precision below 1e-8.
func checkTolerance(tol float64) error {
	if !(tol >= 1e-8 && tol < 0.1) {
		return usagef("--tolerance %v: want a number in [1e-8, 0.1)", tol)
	}
	return nil
}

// addBranchFromFlag adds --branch-from, where the edge's footing search
// starts.
func addBranchFromFlag(fs *pflag.FlagSet) *float64 {
	return fs.Float64("branch-from", 0, "T(1−λ)² at which the footing search starts (it climbs by ×1.25 until every low board reaches the balanced state), 0 or in (0.02, 1000]; 0 means the law's estimate 0.9(k−2)")
}

// checkBranchFrom checks --branch-from against the edge search's range.
func checkBranchFrom(x float64) error {
	if x != 0 && !(x > meanfield.DefaultEdgeMinScaled && x <= meanfield.DefaultEdgeMaxScaled) {
		return usagef("--branch-from %v: want 0 (the law's estimate) or T(1−λ)² in (%g, %g]", x, meanfield.DefaultEdgeMinScaled, float64(meanfield.DefaultEdgeMaxScaled))
	}
	return nil
}
