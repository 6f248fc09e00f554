package main

import (
	"fmt"

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
// its attractor, and the averaging of an aperiodic herd.
type iterationFlags struct {
	fs              *pflag.FlagSet
	maxIter         *int
	tol             *float64
	settle, average *int
}

// maxHerdSettle bounds --settle (--average has meanfield.HerdSettings'
// range).
const maxHerdSettle = 100000

// addIterationFlags adds --max-iter, --tol, --settle and --average.
func addIterationFlags(fs *pflag.FlagSet) *iterationFlags {
	return &iterationFlags{
		fs:      fs,
		maxIter: fs.Int("max-iter", 5000, "most refresh-map applications before giving up"),
		tol:     fs.Float64("tol", 1e-10, "convergence: L1 distance between a board and the one a period earlier, in (0, 1)"),
		settle: fs.Int("settle", meanfield.DefaultHerdSettle, fmt.Sprintf(
			"an orbit that never settles (aperiodic herd): maps in the herd regime taken as transient before averaging, in [1, %d]", maxHerdSettle)),
		average: fs.Int("average", meanfield.DefaultHerdAverage, fmt.Sprintf(
			"an aperiodic herd: maps averaged (board and response means with batch-means standard errors), in [%d, %d]", meanfield.MinHerdAverage, meanfield.MaxHerdAverage)),
	}
}

// check checks --max-iter, --tol, --settle and --average.
func (f *iterationFlags) check() (compare.PointSettings, error) {
	s := compare.PointSettings{MaxIter: *f.maxIter, Tol: *f.tol, Settle: *f.settle, Average: *f.average}
	switch {
	case s.MaxIter < 1:
		return s, usagef("--max-iter %d: want an integer ≥ 1", s.MaxIter)
	case !(s.Tol > 0 && s.Tol < 1):
		return s, usagef("--tol %v: want a number in (0, 1) (an L1 distance between boards, which is at most 2)", s.Tol)
	case s.Settle < 1 || s.Settle > maxHerdSettle:
		return s, usagef("--settle %d: want an integer in [1, %d]", s.Settle, maxHerdSettle)
	case s.Average < meanfield.MinHerdAverage || s.Average > meanfield.MaxHerdAverage:
		return s, usagef("--average %d: want an integer in [%d, %d]", s.Average, meanfield.MinHerdAverage, meanfield.MaxHerdAverage)
	case (f.fs.Changed("settle") || f.fs.Changed("average")) && s.Settle+s.Average > s.MaxIter:
		return s, usagef("--settle %d + --average %d exceed --max-iter %d: an aperiodic herd could never be averaged; raise --max-iter to at least %d",
			s.Settle, s.Average, s.MaxIter, s.Settle+s.Average)
	}
	return s, nil
}
