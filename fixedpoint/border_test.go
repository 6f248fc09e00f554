package fixedpoint

import (
	"math"
	"testing"
)

// The finite-difference Jacobian near the border is the one-sided slope of
// the piece containing x, not an average across the kink.
func TestBorderCollisionOneSidedJacobian(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		x    float64
		want float64
	}{
		{"left/far", 0.5, bcA},
		{"left/1e-9", bcBorder - 1e-9, bcA},   // the forward step (1.5e-8) would straddle the border
		{"left/1e-14", bcBorder - 1e-14, bcA}, // far inside the forward step
		{"right/1e-9", bcBorder + 1e-9, bcB},
		{"right/far", 3, bcB},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			jac, err := Jacobian(borderCollision(0.3, true), []float64{c.x}, nil)
			if err != nil {
				t.Fatal(err)
			}
			// Affine pieces: the one-sided difference is exact up to the
			// rounding of x + h, about ε·|x|/h ≲ 1e-7 relative.
			if got := jac.At(0, 0); math.Abs(got-c.want) > 1e-6 {
				t.Errorf("DF = %.12g, want %v (diff %.3g)", got, c.want, got-c.want)
			}
			ev, err := Eigenvalues(borderCollision(0.3, true), []float64{c.x}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(real(ev[0])-c.want) > 1e-6 {
				t.Errorf("eigenvalue %v, want %v", ev[0], c.want)
			}
		})
	}
	// Without the KinkFunc the forward step from 1 − 1e-9 crosses the border
	// and mixes the slopes: the control shows the test can fail.
	jac, err := Jacobian(borderCollision(0.3, false), []float64{bcBorder - 1e-9}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := jac.At(0, 0); math.Abs(got-bcA) < 0.1 {
		t.Errorf("kink-blind DF = %v unexpectedly equals the left slope", got)
	}
}
