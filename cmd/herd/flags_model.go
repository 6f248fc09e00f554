package main

import (
	"github.com/spf13/pflag"
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
