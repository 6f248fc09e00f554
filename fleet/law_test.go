package fleet

import "testing"

// The law is 0.9(k − 2), written with the same float64 operations as the
// figures and checks that compare against it, bit for bit.
func TestLawScaled(t *testing.T) {
	t.Parallel()
	for k, want := range map[int]float64{2: 0, 3: 0.9, 5: 2.7, 10: 7.2} {
		if got := LawScaled(k); got != 0.9*float64(k-2) || got-want > 1e-12 || want-got > 1e-12 {
			t.Errorf("LawScaled(%d) = %v, want %v", k, got, want)
		}
	}
}
