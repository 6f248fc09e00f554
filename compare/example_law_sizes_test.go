package compare_test

import (
	"fmt"

	"herd/compare"
	"herd/meanfield"
)

// The variability law pooled over two job-size laws: exp edges on
// x = 0.9(k − 2) and h2:4 edges 5% above x = 4·0.9(k − 2). Per load the
// fit of x/C over both has a = 0.9·(1 + 1.05)/2 = 0.9225 and b = 2, and
// every point lies within 10% of it.
func ExamplePoolLaws() {
	var laws []compare.Law
	for _, c := range []struct {
		svc  meanfield.Service
		high float64
	}{{meanfield.ExpService(), 1}, {meanfield.H2Service(4), 1.05}} {
		s := compare.LawSettings{Dispatchers: []int{3, 4, 5, 6}, FitLoads: []float64{0.9}, Ladder: []float64{0.8, 0.9},
			Band: 0.1, RelTol: 1e-4, Service: c.svc}
		var pts []compare.EdgePoint
		for _, es := range s.Edges() {
			x := c.high * compare.LimitVariance(c.svc) * 0.9 * float64(es.Dispatchers-2)
			pts = append(pts, compare.EdgePoint{Settings: es, Done: true,
				Result: meanfield.EdgeResult{Status: meanfield.Found, Scaled: x}})
		}
		laws = append(laws, compare.AnalyseLaw(s, pts))
	}
	p := compare.PoolLaws(laws)
	f := p.Pooled[1] // λ = 0.9 (the loads are 0.8, 0.9)
	fmt.Printf("x/C = %.4f(k − %.3f) on %d points\n", f.A, f.B, f.Points)
	// Output: x/C = 0.9225(k − 2.000) on 8 points
}
