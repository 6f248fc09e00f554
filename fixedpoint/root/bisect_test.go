package root

import (
	"errors"
	"math"
	"testing"
)

// TestBisectRules: each rule's bisection of a threshold x* brackets it
// to the rule's tolerance, with the number of evaluations that halving
// the bracket to that width takes, and never evaluates an end.
func TestBisectRules(t *testing.T) {
	t.Parallel()
	const x = math.Sqrt2 // the threshold: pred(μ) = μ ≥ √2
	cases := []struct {
		name   string
		lo, hi float64
		split  Split[float64]
		width  func(lo, hi float64) float64 // the final bracket's allowed width
		evals  int
	}{
		// 1/2^n ≤ 1e-10·hi from width 1, hi ≈ √2: n = 33 (log₂(1/(1.41e-10)) = 32.7).
		{"Midpoint/rel", 1, 2, Midpoint(0, 1e-10), func(_, hi float64) float64 { return 1e-10 * hi }, 33},
		// 1/2^n ≤ 1e-6 from width 1: n = 20 (log₂ 1e6 = 19.9).
		{"Midpoint/abs", 1, 2, Midpoint(1e-6, 0), func(_, _ float64) float64 { return 1e-6 }, 20},
		// The same bracket with the ends swapped (the predicate reversed)
		// by Finest, relative to max(|lo|, |hi|) ≈ √2: n = 33 again.
		{"Finest", 1, 2, Finest(1e-10), func(lo, hi float64) float64 { return 1e-10 * math.Max(lo, hi) }, 33},
		// With relTol 0, to adjacent float64s: 52 halvings of [1, 2], whose
		// float64s are 2⁻⁵² apart.
		{"Finest/ulp", 1, 2, Finest(0), func(lo, _ float64) float64 { return math.Nextafter(lo, 3) - lo }, 52},
		// |log(lo/hi)| ≤ 1e-3 from log 2 = 0.693: n = 10 (log₂ 693 = 9.4).
		{"Geometric", 1, 2, Geometric(1e-3), func(lo, _ float64) float64 { return lo * (math.Exp(1e-3) - 1) }, 10},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			evals := 0
			pred := func(mu float64) (bool, error) {
				evals++
				if mu == c.lo || mu == c.hi {
					t.Errorf("end %v evaluated", mu)
				}
				return mu >= x, nil
			}
			lo, hi, err := Bisect(pred, c.lo, c.hi, c.split)
			if err != nil {
				t.Fatal(err)
			}
			if !(lo < x && hi >= x) || hi-lo > c.width(lo, hi) {
				t.Errorf("bracket [%v, %v] (width %.3g), want one of √2 no wider than %.3g", lo, hi, hi-lo, c.width(lo, hi))
			}
			if evals != c.evals {
				t.Errorf("%d evaluations, want %d", evals, c.evals)
			}
		})
	}
}

// TestBisectReversed: with the predicate true at the lower end, Finest
// brackets the same point and Bisect returns the false end first.
func TestBisectReversed(t *testing.T) {
	t.Parallel()
	up, upHi, _ := Bisect(func(mu float64) (bool, error) { return mu >= math.Sqrt2, nil }, 1, 2, Finest(1e-10))
	down, downLo, _ := Bisect(func(mu float64) (bool, error) { return mu < math.Sqrt2, nil }, 2, 1, Finest(1e-10))
	if up != downLo || upHi != down {
		t.Errorf("reversed bracket [%v, %v], want [%v, %v]", downLo, down, up, upHi)
	}
}

// TestBisectInteger: the smallest n with n² ≥ 2000 is 45 (44² = 1936).
func TestBisectInteger(t *testing.T) {
	t.Parallel()
	lo, hi, err := Bisect(func(n int) (bool, error) { return n*n >= 2000, nil }, 0, 2000, Integer(1))
	if err != nil || lo != 44 || hi != 45 {
		t.Errorf("[%d, %d] (%v), want [44, 45]", lo, hi, err)
	}
}

// TestBisectError: an error of the predicate ends the bisection with the
// bracket as it stood.
func TestBisectError(t *testing.T) {
	t.Parallel()
	stop := errors.New("stop")
	calls := 0
	lo, hi, err := Bisect(func(mu float64) (bool, error) {
		if calls++; calls == 3 {
			return false, stop
		}
		return true, nil
	}, 0, 1, Midpoint(1e-9, 0))
	// Two evaluations true: hi = 1/2, then 1/4.
	if !errors.Is(err, stop) || lo != 0 || hi != 0.25 {
		t.Errorf("[%v, %v] (%v), want [0, 0.25] and the error", lo, hi, err)
	}
}

// Halvings evaluates exactly n midpoints, each the midpoint of the
// bracket left by the last, whatever the bracket's width.
func TestHalvings(t *testing.T) {
	for _, n := range []int{0, 1, 5, 60} {
		var seen []float64
		lo, hi, err := Bisect(func(x float64) (bool, error) {
			seen = append(seen, x)
			return x > 0.3, nil
		}, 0, 1, Halvings(n))
		if err != nil || len(seen) != n {
			t.Fatalf("n = %d: %d evaluations, error %v", n, len(seen), err)
		}
		wlo, whi := 0.0, 1.0
		for i, x := range seen {
			if m := (wlo + whi) / 2; x != m {
				t.Fatalf("n = %d: evaluation %d at %v, want the midpoint %v", n, i, x, m)
			}
			if x > 0.3 {
				whi = x
			} else {
				wlo = x
			}
		}
		if lo != wlo || hi != whi || !(lo <= 0.3 && 0.3 < hi) {
			t.Errorf("n = %d: ends [%v, %v], want [%v, %v] around 0.3", n, lo, hi, wlo, whi)
		}
	}
}
