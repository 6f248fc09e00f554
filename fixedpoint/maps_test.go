package fixedpoint

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// Test maps with known fixed points. Each constructor documents where its
// exact answer comes from.

// logistic is x ↦ r·x(1−x), with fixed point 1 − 1/r and multiplier 2 − r
// there; it loses stability in a flip at r = 3 and has the period-2 orbit
// x± = ((r+1) ± sqrt((r+1)(r−3)))/(2r) for 3 < r < 1+sqrt(6) (see e.g.
// Strogatz, Nonlinear Dynamics and Chaos, 1994, §10.3).
func logistic(r float64) Problem {
	return Problem{F: func(dst, x []float64) error {
		dst[0] = r * x[0] * (1 - x[0])
		return nil
	}}
}

// linearMap is x ↦ Ax + b with A the 3×3 matrix below (‖A‖∞ = 0.8 < 1, a
// contraction); the exact fixed point solves (I − A)x = b.
func linearMap() (Problem, []float64) {
	a := mat.NewDense(3, 3, []float64{
		0.5, 0.2, 0.1,
		-0.3, 0.4, 0.0,
		0.1, -0.2, 0.3,
	})
	b := []float64{1, -2, 0.5}
	p := Problem{
		F: func(dst, x []float64) error {
			mat.NewVecDense(3, dst).MulVec(a, mat.NewVecDense(3, x))
			for i := range dst {
				dst[i] += b[i]
			}
			return nil
		},
		Jacobian: func(jac *mat.Dense, x []float64) error {
			jac.Copy(a)
			return nil
		},
	}
	var ima mat.Dense
	ima.Sub(eye(3), a)
	var want mat.VecDense
	if err := want.SolveVec(&ima, mat.NewVecDense(3, b)); err != nil {
		panic(err)
	}
	return p, want.RawVector().Data
}

func eye(n int) *mat.Dense {
	m := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		m.Set(i, i, 1)
	}
	return m
}

// hammerstein is the Nyström (trapezoid) discretisation on n nodes of the
// integral equation x(s) = f(s) + λ∫₀¹ exp(−|s−t|) x(t)² dt with λ = 0.3
// and f manufactured so that the discrete solution is exactly
// x*(s_i) = 1 + sin(πs_i)/2: f_i = x*_i − λΣ_j w_j K_ij (x*_j)². The map's
// Lipschitz constant is at most 2λ·max x*·max_s∫K = 2·0.3·1.5·0.787 < 1.
func hammerstein(n int) (Problem, []float64) {
	const lambda = 0.3
	s := make([]float64, n)
	w := make([]float64, n)
	want := make([]float64, n)
	for i := range s {
		s[i] = float64(i) / float64(n-1)
		w[i] = 1 / float64(n-1)
		want[i] = 1 + math.Sin(math.Pi*s[i])/2
	}
	w[0], w[n-1] = w[0]/2, w[n-1]/2
	k := mat.NewDense(n, n, nil)
	for i := range s {
		for j := range s {
			k.Set(i, j, lambda*w[j]*math.Exp(-math.Abs(s[i]-s[j])))
		}
	}
	f := make([]float64, n)
	for i := range f {
		sum := 0.0
		for j := range s {
			sum += k.At(i, j) * want[j] * want[j]
		}
		f[i] = want[i] - sum
	}
	sq := make([]float64, n)
	p := Problem{F: func(dst, x []float64) error {
		for j, e := range x {
			sq[j] = e * e
		}
		mat.NewVecDense(n, dst).MulVec(k, mat.NewVecDense(n, sq))
		for i := range dst {
			dst[i] += f[i]
		}
		return nil
	}}
	return p, want
}

// birthDeath is x ↦ xP for the reflecting birth–death chain on
// {0, …, n−1} with up-probability pu and down-probability pd (the stay
// probabilities fill the rows). Detailed balance π_i·pu = π_{i+1}·pd gives
// the stationary distribution π_i = ρ^i(1−ρ)/(1−ρⁿ), ρ = pu/pd.
func birthDeath(n int, pu, pd float64) (Problem, []float64) {
	rho := pu / pd
	want := make([]float64, n)
	for i := range want {
		want[i] = math.Pow(rho, float64(i)) * (1 - rho) / (1 - math.Pow(rho, float64(n)))
	}
	p := Problem{F: func(dst, x []float64) error {
		for j := range dst {
			// (xP)_j = x_{j−1}·pu + x_j·P_jj + x_{j+1}·pd.
			stay := 1 - pu - pd
			if j == 0 {
				stay = 1 - pu
			} else if j == n-1 {
				stay = 1 - pd
			}
			v := x[j] * stay
			if j > 0 {
				v += x[j-1] * pu
			}
			if j < n-1 {
				v += x[j+1] * pd
			}
			dst[j] = v
		}
		return nil
	}}
	return p, want
}

// borderCollision is the continuous piecewise-linear map (the 1-D
// border-collision normal form of di Bernardo et al. 2008, ch. 3, shifted
// so that the border is at x = 1)
//
//	F(x; μ) = a·x + μ              for x ≤ 1,
//	F(x; μ) = b·x + (a − b) + μ    for x > 1,
//
// with a = 1/2 and b = 2. For μ < 1 − a = 1/2 it has the stable fixed point
// x_L = μ/(1−a) = 2μ < 1 (multiplier a) and the unstable one
// x_R = (a − b + μ)/(1 − b) = 3/2 − μ > 1 (multiplier b); at μ = 1/2 both
// reach the border x = 1 and for μ > 1/2 neither exists: a nonsmooth fold.
const (
	bcA      = 0.5
	bcB      = 2.0
	bcBorder = 1.0
	bcMuC    = 1 - bcA // collision parameter 1 − a
)

func borderCollision(mu float64, kinkAware bool) Problem {
	p := Problem{F: func(dst, x []float64) error {
		if x[0] <= bcBorder {
			dst[0] = bcA*x[0] + mu
		} else {
			dst[0] = bcB*x[0] + (bcA - bcB) + mu
		}
		return nil
	}}
	if kinkAware {
		p.Kink = func(x, d []float64) float64 {
			switch {
			case d[0] > 0 && x[0] < bcBorder:
				return (bcBorder - x[0]) / d[0]
			case d[0] < 0 && x[0] > bcBorder:
				return (x[0] - bcBorder) / -d[0]
			}
			return math.Inf(1)
		}
	}
	return p
}

func checkClose(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %d components, want %d", what, len(got), len(want))
	}
	d := 0.0
	for j := range got {
		if e := math.Abs(got[j] - want[j]); !(e <= d) {
			d = e // NaN sticks
		}
	}
	if !(d <= tol) {
		i := 0
		for j := range got {
			if math.Abs(got[j]-want[j]) > math.Abs(got[i]-want[i]) {
				i = j
			}
		}
		t.Errorf("%s: ‖got − want‖∞ = %.3g > %.3g (component %d: got %.17g, want %.17g)", what, d, tol, i, got[i], want[i])
	}
}
