package fixedpoint

import (
	"errors"
	"math"
	"testing"
)

// solver adapts each method to a common signature.
type solver struct {
	name  string
	solve func(p Problem, x0 []float64) (*Result, error)
}

var solvers = []solver{
	{"Iterate", func(p Problem, x0 []float64) (*Result, error) { return Iterate(p, x0, nil) }},
	{"Anderson", func(p Problem, x0 []float64) (*Result, error) { return Anderson(p, x0, nil) }},
	{"Newton", func(p Problem, x0 []float64) (*Result, error) { return Newton(p, x0, nil) }},
	{"NewtonKrylov", func(p Problem, x0 []float64) (*Result, error) { return NewtonKrylov(p, x0, nil) }},
}

func TestSolversKnownAnswers(t *testing.T) {
	t.Parallel()
	_, linWant := linearMap()
	_, hamWant := hammerstein(60)
	lin := func() Problem { p, _ := linearMap(); return p }
	ham := func() Problem { p, _ := hammerstein(60); return p }
	cases := []struct {
		name string
		p    func() Problem // a fresh problem per subtest: maps keep work space
		x0   []float64
		want []float64 // source in the map's constructor
		tol  float64
	}{
		{"linear", lin, []float64{0, 0, 0}, linWant, 1e-9},
		{"cos", cosMap, []float64{1}, []float64{dottie}, 1e-9},
		// Fixed point 1 − 1/r of the logistic map, r = 2.5: 0.6.
		{"logistic2.5", func() Problem { return logistic(2.5) }, []float64{0.5}, []float64{1 - 1/2.5}, 1e-9},
		{"hammerstein60", ham, uniform(60), hamWant, 1e-9},
	}
	for _, c := range cases {
		for _, s := range solvers {
			t.Run(c.name+"/"+s.name, func(t *testing.T) {
				t.Parallel()
				res, err := s.solve(c.p(), c.x0)
				if err != nil {
					t.Fatalf("err = %v (status %v, residual %.3g, iterations %d)", err, res.Status, res.Residual, res.Iterations)
				}
				if res.Status != Converged || res.Residual > 1e-10 {
					t.Errorf("status %v, residual %.3g", res.Status, res.Residual)
				}
				checkClose(t, "X", res.X, c.want, c.tol)
			})
		}
	}
}

// The Markov chain x = xP conserves Σx, so DG = Pᵀ − I is singular and
// every multiple of π is a fixed point: Newton is restricted to
// S = {Σv = 0} to stay on Σx = 1; Anderson (affine combinations) and plain
// iteration preserve Σx = 1 by themselves.
func TestMarkovStationary(t *testing.T) {
	t.Parallel()
	const n = 40
	p, want := birthDeath(n, 0.3, 0.5) // π_i ∝ 0.6^i, see birthDeath
	x0 := uniform(n)
	cases := []struct {
		name  string
		solve func() (*Result, error)
	}{
		{"Newton", func() (*Result, error) { return Newton(p, x0, &NewtonSettings{Subspace: SumZero(n)}) }},
		{"NewtonKrylov", func() (*Result, error) {
			return NewtonKrylov(p, x0, &NewtonKrylovSettings{Subspace: SumZero(n)})
		}},
		// The error is the residual divided by 1 − λ₂ ≈ 0.028 (the spectral
		// gap of P), so the residual tolerance is 1e-12 for an error of 1e-10.
		{"Anderson", func() (*Result, error) { return Anderson(p, x0, &AndersonSettings{Depth: 10, Tol: 1e-12}) }},
		{"Iterate", func() (*Result, error) { return Iterate(p, x0, &IterateSettings{MaxIter: 20000, Tol: 1e-12}) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			res, err := c.solve()
			if err != nil {
				t.Fatalf("err = %v (residual %.3g)", err, res.Residual)
			}
			checkClose(t, "π", res.X, want, 1e-10)
			sum := 0.0
			for _, e := range res.X {
				sum += e
			}
			if math.Abs(sum-1) > 1e-12 {
				t.Errorf("Σπ = %.17g, want 1", sum)
			}
		})
	}
}

func TestIteratePeriodTwo(t *testing.T) {
	t.Parallel()
	const r = 3.2
	// x± = ((r+1) ± sqrt((r+1)(r−3)))/(2r), see logistic.
	lo := ((r + 1) - math.Sqrt((r+1)*(r-3))) / (2 * r)
	hi := ((r + 1) + math.Sqrt((r+1)*(r-3))) / (2 * r)
	res, err := Iterate(logistic(r), []float64{0.3}, &IterateSettings{History: true})
	if !errors.Is(err, ErrNotConverged) {
		t.Fatalf("err = %v, want ErrNotConverged", err)
	}
	if res.Status != Periodic || res.Period != 2 || len(res.Orbit) != 2 {
		t.Fatalf("status %v, period %d, orbit %v; want periodic, 2", res.Status, res.Period, res.Orbit)
	}
	a, b := res.Orbit[0][0], res.Orbit[1][0]
	if a > b {
		a, b = b, a
	}
	checkClose(t, "orbit", []float64{a, b}, []float64{lo, hi}, 1e-9)
	if len(res.History) != res.Iterations {
		t.Errorf("history has %d entries for %d iterations", len(res.History), res.Iterations)
	}
}

// A fixed point approached with multiplier −0.99 alternates around its
// limit, ‖x_{n+1} − x_{n−1}‖ ≪ ‖x_{n+1} − x_n‖; it must converge, not be
// reported as period 2.
func TestIterateSlowFlipIsNotPeriodic(t *testing.T) {
	t.Parallel()
	p := Problem{F: func(dst, x []float64) error { dst[0] = -0.99*x[0] + 1.99; return nil }} // x* = 1.99/1.99 = 1
	res, err := Iterate(p, []float64{0}, &IterateSettings{MaxIter: 10000})
	if err != nil {
		t.Fatalf("err = %v, status %v, period %d", err, res.Status, res.Period)
	}
	checkClose(t, "X", res.X, []float64{1}, 1e-9)
}

func TestFailuresReportProgress(t *testing.T) {
	t.Parallel()
	t.Run("IterateBudget", func(t *testing.T) {
		t.Parallel()
		res, err := Iterate(cosMap(), []float64{1}, &IterateSettings{MaxIter: 3})
		if !errors.Is(err, ErrNotConverged) || res.Status != NotConverged || res.Iterations != 3 || !(res.Residual > 0) {
			t.Errorf("err %v, status %v, iterations %d, residual %v", err, res.Status, res.Iterations, res.Residual)
		}
	})
	t.Run("IterateDiverges", func(t *testing.T) {
		t.Parallel()
		p := Problem{F: func(dst, x []float64) error { dst[0] = 2*x[0] + 1; return nil }}
		res, err := Iterate(p, []float64{1}, &IterateSettings{MaxIter: 5000})
		if !errors.Is(err, ErrNotConverged) || res.Status != Diverged {
			t.Errorf("err %v, status %v", err, res.Status)
		}
	})
	t.Run("MapError", func(t *testing.T) {
		t.Parallel()
		bad := errors.New("outside the domain")
		p := Problem{F: func(dst, x []float64) error {
			if x[0] < 0 {
				return bad
			}
			dst[0] = math.Sqrt(x[0])
			return nil
		}}
		res, err := Iterate(p, []float64{-1}, nil)
		if !errors.Is(err, bad) || res.Status != MapFailed {
			t.Errorf("err %v, status %v", err, res.Status)
		}
		// Newton's line search steps back from the domain edge: x = √x has
		// the fixed point 1 (and 0).
		res, err = Newton(p, []float64{4}, nil)
		if err != nil {
			t.Fatalf("newton: %v", err)
		}
		checkClose(t, "sqrt fixed point", res.X, []float64{1}, 1e-9)
	})
	t.Run("NewtonNoRoot", func(t *testing.T) {
		t.Parallel()
		// x ↦ x + 1 + x² has G = 1 + x² > 0: no fixed point.
		p := Problem{F: func(dst, x []float64) error { dst[0] = x[0] + 1 + x[0]*x[0]; return nil }}
		for _, s := range solvers[2:] {
			res, err := s.solve(p, []float64{0.5})
			if !errors.Is(err, ErrNotConverged) || res.Status == Converged || !(res.Residual >= 1) {
				t.Errorf("%s: err %v, status %v, residual %v", s.name, err, res.Status, res.Residual)
			}
		}
	})
}

// Anderson with a depth larger than the dimension of a linear problem
// keeps linearly dependent differences; the QR safeguard must drop them.
func TestAndersonIllConditioned(t *testing.T) {
	t.Parallel()
	p, want := linearMap()
	for _, depth := range []int{1, 3, 10} {
		for _, beta := range []float64{1, 0.5} {
			res, err := Anderson(p, []float64{0, 0, 0}, &AndersonSettings{Depth: depth, Mixing: beta, History: true})
			if err != nil {
				t.Fatalf("depth %d, β %v: %v", depth, beta, err)
			}
			checkClose(t, "X", res.X, want, 1e-9)
		}
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		err  error
	}{
		{"IterateTol", (&IterateSettings{Tol: -1}).Validate()},
		{"IterateDamping", (&IterateSettings{Damping: 1.5}).Validate()},
		{"AndersonDepth", (&AndersonSettings{Depth: -1}).Validate()},
		{"AndersonMixing", (&AndersonSettings{Mixing: math.NaN()}).Validate()},
		{"AndersonMaxCond", (&AndersonSettings{MaxCond: 0.5}).Validate()},
		{"NewtonStep", (&NewtonSettings{Step: 2}).Validate()},
		{"NewtonMaxIter", (&NewtonSettings{MaxIter: -2}).Validate()},
		{"KrylovForcing", (&NewtonKrylovSettings{Forcing: 1}).Validate()},
		{"ArnoldiTol", (&ArnoldiSettings{Tol: math.Inf(1)}).Validate()},
		{"LocatePoints", (&LocateSettings{Points: 1}).Validate()},
		{"ContinuationStep", (&ContinuationSettings{Step: 1, MaxStep: 0.5}).Validate()},
		{"ContinuationNewton", (&ContinuationSettings{Newton: NewtonSettings{Tol: -1}}).Validate()},
	}
	for _, c := range cases {
		if c.err == nil {
			t.Errorf("%s: Validate accepted an invalid setting", c.name)
		}
	}
	for _, v := range []interface{ Validate() error }{&IterateSettings{}, &AndersonSettings{}, &NewtonSettings{},
		&NewtonKrylovSettings{}, &SpectrumSettings{}, &ArnoldiSettings{}, &LocateSettings{}, &ContinuationSettings{}, &DiffSettings{}} {
		if err := v.Validate(); err != nil {
			t.Errorf("zero value %T: %v", v, err)
		}
	}
	if _, err := Iterate(cosMap(), []float64{1}, &IterateSettings{MaxIter: -1}); err == nil {
		t.Error("Iterate accepted MaxIter = -1")
	}
}

// TestAndersonMixer: driven by hand on a linear contraction x = Ax + b in
// R³ with spectral radius 0.9, the mixer reaches the fixed point to 1e-10
// within 8 steps (Anderson on a linear map is GMRES: exact after n + 1
// steps up to rounding); the plain iteration gains a factor 0.9 a step.
func TestAndersonMixer(t *testing.T) {
	a := [3][3]float64{{0.9, 0.05, 0}, {0, 0.5, 0.1}, {0.02, 0, -0.6}}
	b := []float64{1, -2, 0.5}
	F := func(dst, x []float64) {
		for i := range dst {
			dst[i] = b[i]
			for j := range x {
				dst[i] += a[i][j] * x[j]
			}
		}
	}
	// The fixed point, by plain iteration to rounding.
	want := make([]float64, 3)
	g := make([]float64, 3)
	for range 2000 {
		F(g, want)
		copy(want, g)
	}
	mx := NewAndersonMixer(3, 5, 1e10)
	x := make([]float64, 3)
	steps := 0
	for ; steps < 50; steps++ {
		F(g, x)
		if normInf(sub(g, x)) <= 1e-10 {
			break
		}
		mx.Step(x, g)
	}
	if steps > 8 || normInf(sub(x, want)) > 1e-9 {
		t.Errorf("mixer: %d steps, x = %v, want %v", steps, x, want)
	}
	mx.Reset()
	F(g, x)
	if mx.Step(x, g) {
		t.Error("the first step after Reset was accelerated")
	}
}

func sub(a, b []float64) []float64 {
	d := make([]float64, len(a))
	for i := range a {
		d[i] = a[i] - b[i]
	}
	return d
}
