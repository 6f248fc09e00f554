package fixedpoint

import (
	"math"
	"testing"
)

// TestBatchMeans checks the batch means, their standard error and slope
// on series whose answers are known in closed form.
func TestBatchMeans(t *testing.T) {
	t.Parallel()
	// x(i) = i: batch b of length 3 holds 3b, 3b+1, 3b+2, mean 3b + 1.
	means := BatchMeans(func(i int) float64 { return float64(i) }, 4, 3)
	for b, m := range means {
		if want := float64(3*b + 1); m != want {
			t.Errorf("batch %d: mean %v, want %v", b, m, want)
		}
	}
	// Means 1, 4, 7, 10 about 5.5: Σ(m − 5.5)² = 45, SE = √(45/3/4).
	if got, want := BatchSE(means, 5.5), math.Sqrt(45.0/12); math.Abs(got-want) > 1e-15 {
		t.Errorf("SE %v, want %v", got, want)
	}
	if got := BatchSlope(means, 5.5); math.Abs(got-3) > 1e-15 {
		t.Errorf("slope %v per batch, want 3", got)
	}
	// A constant series has no error and no drift; one batch has no SE.
	flat := BatchMeans(func(int) float64 { return 2 }, 5, 7)
	if se, sl := BatchSE(flat, 2), BatchSlope(flat, 2); se != 0 || sl != 0 {
		t.Errorf("constant series: SE %v, slope %v", se, sl)
	}
	if se := BatchSE([]float64{3}, 3); se != 0 {
		t.Errorf("one batch: SE %v, want 0", se)
	}
}
