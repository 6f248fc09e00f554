package root

// BisectBatched is Bisect(pred, lo, hi, split) evaluated two levels at a
// time: it visits Bisect's points, in Bisect's order, and returns Bisect's
// ends, but hands batch three points at once: the midpoint m and the
// midpoints of the two halves m may leave, the half left when pred holds
// at m and the half left when it fails (either is absent when split stops
// there). A batch evaluator can thus run the next level while m runs,
// which a predicate evaluated one point at a time cannot express; only
// the half that m's value calls for is evaluated.
//
// batch evaluates pred at the points xs as the loop
//
//	for t := 0; t < len(xs); t = next(t, pred(xs[t])) {}
//
// does (next returns the index of the point to evaluate next, len(xs) to
// stop), and returns a result for every point, evaluated or not. read
// reports of the result v at point x whether x was evaluated, pred's
// value there and pred's error, which ends the bisection and is returned
// with the current ends, as in Bisect. read is called on each batch's
// results in index order, up to the first error: it sees the evaluations
// in Bisect's order, so a caller may keep state in it as Bisect's pred
// may.
func BisectBatched[T, V any](batch func(xs []T, next func(t int, in bool) int) []V, read func(x T, v V) (evaluated, in bool, err error), lo, hi T, split Split[T]) (T, T, error) {
	for {
		m, ok := split(lo, hi)
		if !ok {
			return lo, hi, nil
		}
		xs := []T{m}
		child := [2]int{-1, -1} // the index in xs of the point after m where pred holds, where it fails
		if c, ok := split(lo, m); ok {
			child[0] = len(xs)
			xs = append(xs, c)
		}
		if c, ok := split(m, hi); ok {
			child[1] = len(xs)
			xs = append(xs, c)
		}
		vs := batch(xs, func(t int, in bool) int {
			j := 0
			if !in {
				j = 1
			}
			if t > 0 || child[j] < 0 {
				return len(xs)
			}
			return child[j]
		})
		for t, v := range vs {
			evaluated, in, err := read(xs[t], v)
			if !evaluated {
				continue
			}
			if err != nil {
				return lo, hi, err
			}
			if in {
				hi = xs[t]
			} else {
				lo = xs[t]
			}
		}
	}
}
