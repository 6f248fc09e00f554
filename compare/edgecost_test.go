package compare

import (
	"math"
	"testing"

	"herd/meanfield"
)

// EdgeCost is k²/(1−λ)³ at k = 5 and grows as √k; phase-type sizes keep
// the price every map had before the exponential map's closed form (k²,
// in the old unit, 162/24.2 of today's), times 10·C³.
func TestEdgeCostSized(t *testing.T) {
	t.Parallel()
	cost := func(k int, lam float64, svc meanfield.Service) float64 {
		return EdgeCostSized(meanfield.EdgeSettings{Dispatchers: k, Load: lam, Service: svc})
	}
	exp := meanfield.Service{}
	h2 := meanfield.Service{Kind: meanfield.ServiceH2, SCV: 10}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"exp k=5 λ=0.99", cost(5, 0.99, exp), 2.5e7},
		{"exp k=20 over k=5", cost(20, 0.95, exp) / cost(5, 0.95, exp), 2},
		{"exp k=3 over k=5", cost(3, 0.95, exp) / cost(5, 0.95, exp), math.Sqrt(0.6)},
		{"h2:10 k=5 λ=0.9", cost(5, 0.9, h2), 25 / 1e-3 * 162 / 24.2 * 10 * 1000},
		{"h2:10 k=10 over k=5", cost(10, 0.9, h2) / cost(5, 0.9, h2), 4},
	} {
		if math.Abs(c.got/c.want-1) > 1e-12 {
			t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
		}
	}
}
