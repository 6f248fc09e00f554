package fixedpoint

import (
	"cmp"
	"math"
	"math/cmplx"
	"slices"
	"testing"
)

func TestEigenvaluesLogistic(t *testing.T) {
	t.Parallel()
	for _, r := range []float64{1.5, 2.5, 2.9, 3.2} {
		// Multiplier of the fixed point 1 − 1/r is r(1 − 2x) = 2 − r, see logistic.
		want := 2 - r
		x := []float64{1 - 1/r}
		ev, err := Eigenvalues(logistic(r), x, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(ev) != 1 || cmplx.Abs(ev[0]-complex(want, 0)) > 1e-7 {
			t.Errorf("r = %v: eigenvalues %v, want [%v]", r, ev, want)
		}
		if got := SpectralRadius(ev); math.Abs(got-math.Abs(want)) > 1e-7 {
			t.Errorf("r = %v: spectral radius %v, want %v", r, got, math.Abs(want))
		}
	}
}

// The reflecting birth–death chain with up-probability p and
// down-probability q has eigenvalues 1 and 1 − p − q + 2√(pq)·cos(kπ/n),
// k = 1, …, n−1 (closed form: D^{1/2}PD^{−1/2}, D = diag(π), is symmetric
// tridiagonal with off-diagonal √(pq); the trigonometric ansatz
// v_i = sin(θ(i+1))·√(pq) − sin(θi)·q satisfies the interior rows for every θ
// and both reflecting rows exactly when θ = kπ/n). The eigenvalue 1 has
// left eigenvector 1, so S = {Σv = 0} is Pᵀ-invariant and QᵀPᵀQ has exactly
// the other n−1.
func TestEigenvaluesMarkovOnSubspace(t *testing.T) {
	t.Parallel()
	const n = 12
	const pu, pd = 0.3, 0.5
	p, pi := birthDeath(n, pu, pd)
	ev, err := Eigenvalues(p, pi, &SpectrumSettings{Subspace: SumZero(n)})
	if err != nil {
		t.Fatal(err)
	}
	var want []float64
	for k := 1; k < n; k++ {
		want = append(want, 1-pu-pd+2*math.Sqrt(pu*pd)*math.Cos(float64(k)*math.Pi/n))
	}
	got := make([]float64, len(ev))
	for i, e := range ev {
		if math.Abs(imag(e)) > 1e-7 {
			t.Errorf("eigenvalue %v is not real", e)
		}
		got[i] = real(e)
	}
	slices.SortFunc(want, func(a, b float64) int { return cmp.Compare(b, a) })
	slices.SortFunc(got, func(a, b float64) int { return cmp.Compare(b, a) })
	checkClose(t, "spectrum on S", got, want, 1e-7)
}

// Arnoldi on finite-difference Jacobian–vector products must reproduce the
// leading part of the dense finite-difference spectrum.
func TestArnoldiMatchesDense(t *testing.T) {
	t.Parallel()
	ham, xs := hammerstein(80)
	// The chain's spectrum is clustered near its top (1 − 0.8 + 0.77·cos(kπ/n)),
	// hard for Arnoldi without restarts; at n = 30 the Krylov space fills
	// S (dimension 29) and becomes invariant, which checks the projection.
	bd, pi := birthDeath(30, 0.3, 0.5)
	cases := []struct {
		name string
		p    Problem
		x    []float64
		arn  ArnoldiSettings
		spec SpectrumSettings
	}{
		{"hammerstein80", ham, xs, ArnoldiSettings{}, SpectrumSettings{}},
		{"markov30OnS", bd, pi, ArnoldiSettings{Subspace: SumZero(30)}, SpectrumSettings{Subspace: SumZero(30)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			const k = 4
			dense, err := Eigenvalues(c.p, c.x, &c.spec)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Arnoldi(c.p, c.x, k, &c.arn)
			if err != nil {
				t.Fatalf("%v (dim %d, residuals %v)", err, res.Dim, res.Residuals)
			}
			for i := 0; i < k; i++ {
				if d := cmplx.Abs(res.Values[i] - dense[i]); d > 1e-6 {
					t.Errorf("λ_%d: Arnoldi %v, dense %v, |diff| %.3g", i, res.Values[i], dense[i], d)
				}
			}
			if res.Evaluations != res.Dim+1 {
				t.Errorf("evaluations %d, want dimension + 1 = %d", res.Evaluations, res.Dim+1)
			}
			t.Logf("Arnoldi dim %d, evaluations %d, leading %v", res.Dim, res.Evaluations, res.Values)
		})
	}
}

func TestArnoldiInvariantSubspace(t *testing.T) {
	t.Parallel()
	// The 3×3 linear map: the Krylov space is all of R³ after 3 steps, so
	// the Ritz values are the eigenvalues of A (those of the dense
	// eigensolver on the analytic Jacobian).
	p, x := linearMap()
	dense, err := Eigenvalues(p, x, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Arnoldi(p, x, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Converged || res.Dim != 3 {
		t.Errorf("converged %v, dim %d", res.Converged, res.Dim)
	}
	for i := range dense {
		if d := cmplx.Abs(res.Values[i] - dense[i]); d > 1e-7 {
			t.Errorf("λ_%d: Arnoldi %v, dense %v", i, res.Values[i], dense[i])
		}
	}
}
