package compare

import (
	"math"
	"testing"

	"herd/meanfield"
)

// EdgeCost is k²/(1−λ)³ at k = 5 and grows as √k; phase-type sizes cost
// that times 15·max(C, 1/C)^2.4 (C the sizes' squared coefficient of
// variation: Erlang-K as dear as h2:K).
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
		{"h2:10 k=5 λ=0.9", cost(5, 0.9, h2), 25 / 1e-3 * 15 * math.Pow(10, 2.4)},
		{"h2:10 k=10 over k=5", cost(10, 0.9, h2) / cost(5, 0.9, h2), math.Sqrt2},
		{"erlang:4 over h2:4", cost(5, 0.9, meanfield.ErlangService(4)) / cost(5, 0.9, meanfield.H2Service(4)), 1},
		{"h2:1 over exp", cost(5, 0.9, meanfield.H2Service(1)) / cost(5, 0.9, exp), 15},
	} {
		if math.Abs(c.got/c.want-1) > 1e-12 {
			t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
		}
	}
}
