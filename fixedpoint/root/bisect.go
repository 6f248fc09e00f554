package root

import "math"

// Split is a bisection's rule: given the bracket's ends lo, where the
// predicate is false, and hi, where it is true, it returns the point to
// evaluate next, or false when the bracket is narrow enough and the
// bisection stops.
type Split[T any] func(lo, hi T) (mid T, ok bool)

// Bisect bisects a predicate that is false at lo and true at hi (neither
// is evaluated; they need not be in increasing order): while split(lo, hi)
// gives a point mid, it evaluates pred(mid) and moves hi to mid where pred
// holds there, lo otherwise. It returns the final ends. It assumes pred
// changes value once between lo and hi (it finds one change otherwise).
// pred may keep state of its own between calls (for example a warm start
// taken from the last point where it held). An error of pred ends the
// bisection and is returned with the current ends.
func Bisect[T any](pred func(x T) (bool, error), lo, hi T, split Split[T]) (T, T, error) {
	for {
		mid, ok := split(lo, hi)
		if !ok {
			return lo, hi, nil
		}
		in, err := pred(mid)
		if err != nil {
			return lo, hi, err
		}
		if in {
			hi = mid
		} else {
			lo = mid
		}
	}
}

// Midpoint is the rule mid = (lo + hi)/2 while |hi − lo| > absTol +
// relTol·|hi|: an absolute width, or a width relative to the end where
// the predicate holds.
func Midpoint(absTol, relTol float64) Split[float64] {
	return func(lo, hi float64) (float64, bool) {
		return (lo + hi) / 2, math.Abs(hi-lo) > absTol+relTol*math.Abs(hi)
	}
}

// Halvings is the rule mid = (lo + hi)/2 for n evaluations, whatever the
// bracket's width: the bracket halved n times. The rule counts its
// points, so each bisection takes a rule of its own.
func Halvings(n int) Split[float64] {
	return func(lo, hi float64) (float64, bool) {
		if n <= 0 {
			return 0, false
		}
		n--
		return (lo + hi) / 2, true
	}
}

// Finest is the rule mid = a + (b − a)/2, for the ends a < b in increasing
// order, while b − a > relTol·max(|a|, |b|) and mid lies strictly between
// a and b: with relTol = 0 it bisects until no float64 lies strictly
// inside the bracket.
func Finest(relTol float64) Split[float64] {
	return func(lo, hi float64) (float64, bool) {
		a, b := lo, hi
		if b < a {
			a, b = b, a
		}
		w := b - a
		if w <= relTol*math.Max(math.Abs(a), math.Abs(b)) {
			return 0, false
		}
		m := a + w/2
		return m, m > a && m < b
	}
}

// Geometric is the rule mid = √(lo·hi), the midpoint in log x, while
// |log(lo/hi)| > relTol, for positive ends in either order: for
// parameters whose scale matters more than their size, such as periods
// spanning decades.
func Geometric(relTol float64) Split[float64] {
	return func(lo, hi float64) (float64, bool) {
		return math.Sqrt(lo * hi), math.Abs(math.Log(lo/hi)) > relTol
	}
}

// Integer is the rule mid = lo + (hi − lo)/2 on the integers, lo < hi,
// while hi − lo > width (width ≥ 1).
func Integer(width int) Split[int] {
	return func(lo, hi int) (int, bool) {
		return lo + (hi-lo)/2, hi-lo > width
	}
}
