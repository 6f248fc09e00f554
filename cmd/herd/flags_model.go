package main

import (
	"math"

	"github.com/spf13/pflag"

	"herd/compare"
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
	return fs.Float64("branch-from", 0, "T(1−λ)² at which the footing search starts (it climbs by ×1.25 until every low board reaches the balanced state), 0 or in (0.02, 1000]; 0 means the law's estimate 0.9(k−2), raised to 4·max(1, C)·(1−λ) (C: the sizes' squared coefficient of variation) where that is higher")
}

// checkBranchFrom checks --branch-from against the edge search's range.
func checkBranchFrom(x float64) error {
	if x != 0 && !(x > meanfield.DefaultEdgeMinScaled && x <= meanfield.DefaultEdgeMaxScaled) {
		return usagef("--branch-from %v: want 0 (the law's estimate) or T(1−λ)² in (%g, %g]", x, meanfield.DefaultEdgeMinScaled, float64(meanfield.DefaultEdgeMaxScaled))
	}
	return nil
}

// iterationFlags are the limits of plain iteration of the refresh map to
// its attractor.
type iterationFlags struct {
	maxIter *int
	tol     *float64
}

// addIterationFlags adds --max-iter and --tol.
func addIterationFlags(fs *pflag.FlagSet) *iterationFlags {
	return &iterationFlags{
		maxIter: fs.Int("max-iter", 5000, "most refresh-map applications before giving up"),
		tol:     fs.Float64("tol", 1e-10, "convergence: L1 distance between a board and the one a period earlier"),
	}
}

// check checks --max-iter and --tol.
func (f *iterationFlags) check() (compare.PointSettings, error) {
	s := compare.PointSettings{MaxIter: *f.maxIter, Tol: *f.tol}
	switch {
	case s.MaxIter < 1:
		return s, usagef("--max-iter %d: want an integer ≥ 1", s.MaxIter)
	case !(s.Tol > 0) || math.IsInf(s.Tol, 0):
		return s, usagef("--tol %v: want a number > 0", s.Tol)
	}
	return s, nil
}
