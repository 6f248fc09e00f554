package meanfield

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestRefinedSupermarketMM1: with d = 1 each job joins one uniform server,
// so the N servers are N independent M/M/1 queues at load λ and the mean
// field is exact at every N. The drift is linear, so the 1/N term must be
// exactly zero; the mean queue is λ/(1 − λ) (Kleinrock 1975, Vol. 1,
// §3.2); and W, the covariance of the tails times N, is that of the
// indicators 1{q ≥ i}, 1{q ≥ j} of one M/M/1 queue, P(q ≥ i) = λ^i:
// W_ij = λ^max(i,j) − λ^(i+j). The truncation holds level n + 1 at x*,
// removing its variance and its covariance with level n (each below
// x*_{n+1}) from row n's noise: 2x*_{n+1} plus 10⁻¹² of rounding is the
// tolerance on W (measured: the worst entry, W_nn, is off by x*_{n+1}).
func TestRefinedSupermarketMM1(t *testing.T) {
	t.Parallel()
	for _, lam := range []float64{0.5, 0.9} {
		r, err := RefinedSupermarket{D: 1, Load: lam, Cut: 1e-8}.Solve()
		if err != nil {
			t.Fatalf("λ = %v: %v", lam, err)
		}
		if r.QueueTerm != 0 || r.ResponseTerm != 0 {
			t.Errorf("λ = %v: QueueTerm %g, ResponseTerm %g, want exactly 0", lam, r.QueueTerm, r.ResponseTerm)
		}
		for i, c := range r.Correction {
			if c != 0 {
				t.Errorf("λ = %v: c_%d = %g, want exactly 0", lam, i+1, c)
			}
		}
		want := lam / (1 - lam) // M/M/1 mean queue
		if got := r.QueueAt(10); math.Abs(got-want) > 1e-12*want {
			t.Errorf("λ = %v: mean queue at N = 10 %.15g, want λ/(1 − λ) = %.15g (difference %.3g)", lam, got, want, got-want)
		}
		if got, wantT := r.ResponseAt(10), 1/(1-lam); math.Abs(got-wantT) > 1e-12*wantT {
			t.Errorf("λ = %v: response at N = 10 %.15g, want 1/(1 − λ) = %.15g", lam, got, wantT)
		}
		next := math.Pow(lam, float64(r.Rows+1)) // x*_{n+1}
		tol := 2*next + 1e-12
		worst := 0.0
		for i := 1; i <= r.Rows; i++ {
			for j := 1; j <= r.Rows; j++ {
				w := math.Pow(lam, float64(max(i, j))) - math.Pow(lam, float64(i+j))
				got := r.Cov.At(i-1, j-1)
				if d := math.Abs(got - w); d > tol {
					t.Fatalf("λ = %v: W_%d,%d = %.12g, want λ^max(i,j) − λ^(i+j) = %.12g (difference %.3g > %.3g)", lam, i, j, got, w, d, tol)
				}
				worst = max(worst, math.Abs(got-w))
			}
		}
		t.Logf("λ = %v: %d levels, worst |W − W_M/M/1| = %.6g (x*_{n+1} = %.6g), Lyapunov residual %.3g", lam, r.Rows, worst, next, r.LyapunovResidual)
	}
}

// TestRefinedSupermarketSQ2 checks the pieces of the d = 2 expansion that
// have closed forms: x* (SupermarketTails), Q_ii = 2(x*_i − x*_{i+1}) at
// the fixed point (arrivals and departures balance, so each supplies half
// of the jump variance), the Lyapunov residual, a stable drift, and
// c = −A⁻¹h recomputed from its definition.
func TestRefinedSupermarketSQ2(t *testing.T) {
	t.Parallel()
	lam := 0.9
	r, err := RefinedSupermarket{D: 2, Load: lam}.Solve()
	if err != nil {
		t.Fatal(err)
	}
	tails, _ := SupermarketTails(2, lam, DefaultRefinedSupermarketCut)
	if r.Rows != len(tails)-1 {
		t.Fatalf("rows %d, want %d", r.Rows, len(tails)-1)
	}
	for i, x := range r.Tails {
		next := math.Pow(lam, math.Pow(2, float64(i+2))-1) // x*_{i+2} = λ^(2^(i+2) − 1)
		if want := 2 * (x - next); math.Abs(r.Noise[i]-want) > 1e-15 {
			t.Errorf("Q_%d,%d = %.17g, want 2(x*_i − x*_{i+1}) = %.17g", i+1, i+1, r.Noise[i], want)
		}
	}
	if r.LyapunovResidual > 1e-12 {
		t.Errorf("Lyapunov residual %.3g, want ≤ 1e-12", r.LyapunovResidual)
	}
	if !(r.SpectralAbscissa < 0) {
		t.Errorf("spectral abscissa %g, want < 0", r.SpectralAbscissa)
	}
	// A·c = −h, h_i = ½λd(d − 1)(W_{i−1,i−1} − W_ii) at d = 2.
	var Ac mat.VecDense
	Ac.MulVec(r.Drift, mat.NewVecDense(r.Rows, r.Correction))
	for i := range r.Rows {
		h := -r.Cov.At(i, i)
		if i > 0 {
			h += r.Cov.At(i-1, i-1)
		}
		h *= 0.5 * lam * 2
		if got := Ac.AtVec(i); math.Abs(got+h) > 1e-12 {
			t.Errorf("(A·c)_%d = %.15g, want −h_%d = %.15g", i+1, got, i+1, -h)
		}
	}
	mf, _ := SupermarketResponse(2, lam)
	if math.Abs(r.ResponseMean-mf) > 1e-14*mf {
		t.Errorf("mean-field response %.15g, want SupermarketResponse %.15g", r.ResponseMean, mf)
	}
	// A finite fleet queues more than the mean field (the term is
	// positive; the comparison with the simulator is compare's
	// TestRefinedSupermarketSimulated).
	if !(r.QueueTerm > 0) {
		t.Errorf("QueueTerm %g, want > 0", r.QueueTerm)
	}
}

// TestContinuousLyapunov: for diagonal A the solution is W_ij =
// Q_ij/−(a_i + a_j); for a non-normal A the residual is checked.
func TestContinuousLyapunov(t *testing.T) {
	t.Parallel()
	A := mat.NewDense(2, 2, []float64{-0.5, 0, 0, -2})
	Q := mat.NewSymDense(2, []float64{1, 0.5, 0.5, 3})
	W, err := ContinuousLyapunov(A, Q)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{1 / 1.0, 0.5 / 2.5, 3 / 4.0} // Q_ij/−(a_i + a_j)
	for k, ij := range [][2]int{{0, 0}, {0, 1}, {1, 1}} {
		if got := W.At(ij[0], ij[1]); math.Abs(got-want[k]) > 1e-13 {
			t.Errorf("W_%d%d = %.15g, want %.15g", ij[0], ij[1], got, want[k])
		}
	}
	B := mat.NewDense(3, 3, []float64{-1, 5, 0, 0, -0.01, 2, 0, 0, -3}) // eigenvalues −1, −0.01, −3
	Q3 := mat.NewSymDense(3, []float64{2, 0.1, 0, 0.1, 1, 0.2, 0, 0.2, 0.5})
	W3, err := ContinuousLyapunov(B, Q3)
	if err != nil {
		t.Fatal(err)
	}
	if res := lyapunovResidual(B, W3, Q3); res > 1e-10 {
		t.Errorf("non-normal A: residual %.3g, want ≤ 1e-10", res)
	}
	if _, err := ContinuousLyapunov(mat.NewDense(1, 1, []float64{0.1}), mat.NewSymDense(1, []float64{1})); err == nil {
		t.Error("unstable A: got no error")
	}
}

// TestRefinedSupermarketValidate: settings out of range name their field.
func TestRefinedSupermarketValidate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		s     RefinedSupermarket
		field string
	}{
		{"d 0", RefinedSupermarket{D: 0, Load: 0.5}, "D"},
		{"load 1", RefinedSupermarket{D: 2, Load: 1}, "Load"},
		{"load NaN", RefinedSupermarket{D: 2, Load: math.NaN()}, "Load"},
		{"cut 0.5", RefinedSupermarket{D: 2, Load: 0.5, Cut: 0.5}, "Cut"},
		{"d 1 near 1", RefinedSupermarket{D: 1, Load: 0.9999}, "levels"},
	}
	for _, c := range cases {
		_, err := c.s.Solve()
		if err == nil || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: got %v, want an error naming %s", c.name, err, c.field)
		}
	}
}
