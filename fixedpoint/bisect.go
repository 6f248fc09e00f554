package fixedpoint

import "herd/fixedpoint/root"

// BisectInt bisects a predicate on the integers that is false at lo and
// true at hi (lo < hi; neither end is evaluated): it evaluates pred at
// lo + (hi − lo)/2 and keeps the half across which pred changes until
// hi − lo ≤ width (width ≥ 1), and returns the final hi, the smallest
// integer found true. It assumes pred is monotone. An error of pred ends
// the bisection and is returned with the current hi. It is root.Bisect
// with the rule root.Integer(width).
func BisectInt(pred func(n int) (bool, error), lo, hi, width int) (int, error) {
	_, hi, err := root.Bisect(pred, lo, hi, root.Integer(width))
	return hi, err
}

// BisectGeometric bisects a predicate on (0, ∞) in log μ: pred is true at
// good and false at bad (both positive, in either order; neither is
// evaluated). While |log(bad/good)| > relTol it evaluates pred at the
// geometric midpoint √(bad·good) and moves the end with the same value
// there. It returns the final ends, good the last μ found true. Use it for
// parameters whose scale matters more than their size, such as periods
// spanning decades. pred may keep state of its own between calls (for
// example a warm start taken from the last point where it held). An
// error of pred ends the bisection and is returned with the current ends.
// It is root.Bisect with the rule root.Geometric(relTol).
func BisectGeometric(pred func(mu float64) (bool, error), good, bad, relTol float64) (float64, float64, error) {
	bad, good, err := root.Bisect(pred, bad, good, root.Geometric(relTol))
	return good, bad, err
}
