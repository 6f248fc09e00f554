package root

// Ladder returns the points a walk visits after from: step(from), then
// step of that point, and so on, up to (and without) the first point that
// step refuses (ok false: it lies beyond the walk's range). from itself
// is not included. Each point is computed from the one before it, as a
// loop x = step(x) does, so a rule such as x·1.5 or x/1.5 gives the loop's
// points to the bit. step must refuse a point eventually.
func Ladder[T any](from T, step func(x T) (next T, ok bool)) []T {
	var xs []T
	for x, ok := step(from); ok; x, ok = step(x) {
		xs = append(xs, x)
	}
	return xs
}

// Walk evaluates pred at xs[0], xs[1], … in turn until it holds at one,
// and returns that point's index, or len(xs) when it holds at none: the
// first step of a search for the point where pred changes value, from a
// guess outwards (a Ladder), before the last two points are bisected.
// pred may keep state of its own between calls (for example the last
// point where it held). An error of pred ends the walk and is returned
// with the index of the point at which it occurred.
func Walk[T any](pred func(x T) (bool, error), xs []T) (int, error) {
	for i, x := range xs {
		in, err := pred(x)
		if err != nil || in {
			return i, err
		}
	}
	return len(xs), nil
}

// WalkBatched is Walk(pred, xs) with every point handed to batch at
// once: a batch evaluator can run the points after the one in hand while
// it runs (on idle workers, dropping those the walk does not reach),
// which a predicate evaluated one point at a time cannot express. It
// makes Walk's evaluations in Walk's order and returns Walk's index.
//
// batch evaluates pred at the points xs as the loop
//
//	for t := 0; t < len(xs); t = next(t, pred(xs[t])) {}
//
// does (next returns the index of the point to evaluate next, len(xs) to
// stop), and returns a result for every point, evaluated or not. read
// reports of the result v at point x whether x was evaluated, pred's
// value there and pred's error, which ends the walk as in Walk. read is
// called on the results in index order up to the point where pred holds
// or fails: it sees the evaluations in Walk's order, so a caller may keep
// state in it as Walk's pred may.
func WalkBatched[T, V any](batch func(xs []T, next func(t int, in bool) int) []V, read func(x T, v V) (evaluated, in bool, err error), xs []T) (int, error) {
	if len(xs) == 0 {
		return 0, nil
	}
	vs := batch(xs, func(t int, in bool) int {
		if in {
			return len(xs)
		}
		return t + 1
	})
	for t, v := range vs {
		evaluated, in, err := read(xs[t], v)
		if !evaluated {
			break
		}
		if err != nil || in {
			return t, err
		}
	}
	return len(xs), nil
}
