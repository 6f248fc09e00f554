// Package root finds where a function of one real variable changes sign,
// or a predicate changes value: herd's one walk to a bracket (Walk
// evaluates a predicate along a Ladder of points, from a guess outwards,
// until it holds; WalkBatched hands the whole ladder to a batch
// evaluator), its one bisection (Bisect, with the midpoint and stopping
// rule of a Split: Midpoint, Finest, Geometric, Integer; BisectBatched
// makes Bisect's evaluations two levels at a time, for callers that
// evaluate several points at once) and its one Brent's method (Brent).
// The models (meanfield's edge and heavy-traffic edge searches,
// fixedpoint's sweeps), the comparisons (compare's bracket of the
// simulator's edge) and the simulator (sim) all bracket with it; it
// imports no herd package, so the simulator stays independent of the
// models (sim imports root and no other herd package).
//
// The searches keep what is theirs: the predicate (cancelled through its
// error), the state it carries and reports (progress, in the predicate or
// in a batched search's read), and the arithmetic of their points. A
// walk's ladder is computed as the caller's own loop computes it (x/1.5
// and x·(1/1.5) can differ in the last bit), as a bisection's midpoint is
// its Split's.
//
// A bisection is defined by its rule as much as by its loop: two
// bisections of one predicate that compute the midpoint as (lo + hi)/2 and
// as lo + (hi − lo)/2, or stop on an absolute and on a relative width,
// visit different points. Each Split is therefore one caller's exact
// arithmetic, kept so that results do not change by a bit, and the loop
// that applies it exists once.
//
// # References
//
//   - R. P. Brent, Algorithms for Minimization without Derivatives,
//     Prentice-Hall, 1973, ch. 4 (procedure zero).
//   - W. H. Press, S. A. Teukolsky, W. T. Vetterling and B. P. Flannery,
//     Numerical Recipes, 3rd ed., Cambridge University Press, 2007, §9.1
//     (bisection) and §9.3 (Brent's method, zbrent).
package root
