package fixedpoint

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// DiffSettings controls finite-difference derivatives.
type DiffSettings struct {
	// Step is the relative step h0; the displacement is h0·max(1, |x_j|)
	// along a coordinate direction and h0·max(1, ‖x‖∞) along a general one,
	// shortened to half the distance to the nearest kink. Zero means
	// sqrt(ε) ≈ 1.49e-8.
	Step float64
}

// Validate reports whether the settings are usable.
func (s *DiffSettings) Validate() error { return checkStep("DiffSettings.Step", s.Step) }

// differ computes one-sided, kink-aware directional derivatives of F.
type differ struct {
	p    *Problem
	f    *counter
	h0   float64
	xh   []float64
	fh   []float64
	negd []float64
}

func newDiffer(p *Problem, f *counter, n int, step float64) *differ {
	return &differ{p: p, f: f, h0: orDefault(step, defaultStep),
		xh: make([]float64, n), fh: make([]float64, n), negd: make([]float64, n)}
}

// allowed returns the largest admissible step no longer than h when the
// first kink along the direction is t away.
func allowed(t, h float64) float64 {
	if !(t > 0) {
		return 0
	}
	return math.Min(h, t/2)
}

// step returns the signed step along d: positive for a forward difference,
// negative for a backward one. See the package documentation.
func (df *differ) step(x, d []float64, scale float64) float64 {
	h := df.h0 * math.Max(1, scale) / normInf(d)
	if df.p.Kink == nil {
		return h
	}
	hf := allowed(df.p.Kink(x, d), h)
	if hf == h {
		return h
	}
	for i, e := range d {
		df.negd[i] = -e
	}
	hb := allowed(df.p.Kink(x, df.negd), h)
	switch {
	case hb > hf:
		return -hb
	case hf > 0:
		return hf
	}
	// Both directions are blocked at distance zero: nothing one-sided is
	// possible, fall back to the plain forward step.
	return h
}

// deriv sets dst ≈ DF(x)·d by a one-sided difference, given f0 = F(x).
// scale sizes the step (see DiffSettings.Step). When coord ≥ 0, d is the
// coordinate vector e_coord and the step is rounded so that x_coord + h is
// exact (Kelley 1995, §5.6).
func (df *differ) deriv(dst, x, f0, d []float64, scale float64, coord int) error {
	dn := normInf(d)
	if dn == 0 {
		for i := range dst {
			dst[i] = 0
		}
		return nil
	}
	if !finite(dn) {
		return fmt.Errorf("fixedpoint: non-finite difference direction")
	}
	h := df.step(x, d, scale)
	for i := range x {
		df.xh[i] = x[i] + h*d[i]
	}
	if coord >= 0 {
		h = df.xh[coord] - x[coord]
	}
	if err := df.f.eval(df.fh, df.xh); err != nil {
		return err
	}
	for i := range dst {
		dst[i] = (df.fh[i] - f0[i]) / h
	}
	return nil
}

// jacobian sets jac (n×n) to DF(x), analytic when available, given f0 = F(x).
func (df *differ) jacobian(jac *mat.Dense, x, f0 []float64) error {
	n := len(x)
	if df.p.Jacobian != nil {
		return df.p.Jacobian(jac, x)
	}
	e := make([]float64, n)
	col := make([]float64, n)
	for j := 0; j < n; j++ {
		e[j] = 1
		err := df.deriv(col, x, f0, e, math.Abs(x[j]), j)
		e[j] = 0
		if err != nil {
			return err
		}
		jac.SetCol(j, col)
	}
	return nil
}

// jacobianOn sets dfq (n×r) to DF(x)·Q for the basis Q, given f0 = F(x):
// r directional differences along the columns of Q, or a product with the
// analytic Jacobian.
func (df *differ) jacobianOn(dfq *mat.Dense, q *mat.Dense, x, f0 []float64) error {
	n, r := q.Dims()
	if df.p.Jacobian != nil {
		jac := mat.NewDense(n, n, nil)
		if err := df.p.Jacobian(jac, x); err != nil {
			return err
		}
		dfq.Mul(jac, q)
		return nil
	}
	scale := normInf(x)
	d := make([]float64, n)
	col := make([]float64, n)
	for j := 0; j < r; j++ {
		mat.Col(d, j, q)
		if err := df.deriv(col, x, f0, d, scale, -1); err != nil {
			return err
		}
		dfq.SetCol(j, col)
	}
	return nil
}

// Jacobian returns the n×n Jacobian DF(x): the problem's analytic Jacobian
// if it has one, otherwise one-sided finite differences along the
// coordinate directions that respect Problem.Kink (see the package
// documentation). It costs n+1 evaluations of F. s may be nil.
func Jacobian(p Problem, x []float64, s *DiffSettings) (*mat.Dense, error) {
	p.check("Jacobian", x)
	if s == nil {
		s = &DiffSettings{}
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	n := len(x)
	f := &counter{f: p.F}
	jac := mat.NewDense(n, n, nil)
	f0 := make([]float64, n)
	if p.Jacobian == nil {
		if err := f.eval(f0, x); err != nil {
			return nil, fmt.Errorf("fixedpoint: jacobian: map: %w", err)
		}
	}
	if err := newDiffer(&p, f, n, s.Step).jacobian(jac, x, f0); err != nil {
		return nil, fmt.Errorf("fixedpoint: jacobian: %w", err)
	}
	return jac, nil
}
