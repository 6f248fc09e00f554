package compare

import (
	"fmt"
	"math"
	"os"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"herd/fleet"
	"herd/meanfield"
	"herd/sim"
)

// TestRefinedSupermarketSimulated sets the refined mean field of the
// supermarket model SQ(2) (meanfield.RefinedSupermarket: Gast & Van Houdt,
// A refined mean field approximation, 2017) against herd's
// simulator: N = 10 and 20 servers, λ = 0.7 and 0.9, live information,
// exponential sizes, two probes sampled with replacement (the model's
// rates; fleet.Policy.WithReplacement). Each cell runs 6 independent runs of
// 100,000 service times (a quarter warm-up; HERD_SLOW=1: 8 runs of
// 500,000) and takes the mean time in system with its Student-t 95%
// interval (runs − 1 degrees of freedom).
//
// The refined value carries an O(1/N²) error of its own, which long runs
// resolve: with HERD_SLOW=1 (seed 45), sim − refined is +0.0064 ± 0.0026
// (λ = 0.7, N = 10; +0.37%), +0.0025 ± 0.0014 (0.7, 20; +0.15%), +0.066 ±
// 0.011 (0.9, 10; +2.2%) and +0.011 ± 0.005 (0.9, 20; +0.40%), against
// +0.128, +0.063, +0.509 and +0.233 for the mean field: the remainder
// falls 2.6- and 5.8-fold from N = 10 to 20 (fourfold for a pure 1/N²
// term), the mean field's error twofold. So the check is: the refined value lies in
// the interval; where it does not, the test reports the discrepancy (in
// the interval's half-widths and in per cent) and requires instead what
// issue 45 asks of a refined model, an error at least 3× smaller than the
// mean field's, with both errors taken at the interval's unfavourable end
// (nothing widened: a cell that meets neither fails).
func TestRefinedSupermarketSimulated(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 24 runs of SQ(2) (about 8 s of CPU)")
	}
	t.Parallel()
	runs, horizon := 6, 1e5
	if os.Getenv("HERD_SLOW") == "1" {
		runs, horizon = 8, 5e5
	}
	const master = 45
	tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(runs - 1)}.Quantile(0.975) // 2.5706 for 6 runs
	for _, lam := range []float64{0.7, 0.9} {
		ref, err := meanfield.RefinedSupermarket{D: 2, Load: lam}.Solve()
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range []int{10, 20} {
			t.Run(fmt.Sprintf("load=%v/servers=%d", lam, n), func(t *testing.T) {
				t.Parallel()
				c := sim.Config{Servers: n, Load: lam, Horizon: horizon,
					Policy: fleet.Policy{Kind: fleet.BestOfD, D: 2, WithReplacement: true}}
				xs := make([]float64, runs)
				for i := range runs {
					r, err := sim.Run(c, sim.Seed(master, c.Key(), i))
					if err != nil {
						t.Fatal(err)
					}
					xs[i] = r.ResponseMean
				}
				st := sim.NewStat(xs)
				half := tq * st.SE
				refined, mf := ref.ResponseAt(n), ref.ResponseMean
				dRef, dMF := st.Mean-refined, st.Mean-mf
				t.Logf("simulated %.4f ± %.4f (95%%, t%d), refined %.4f (sim − refined %+.4f ± %.4f, %.2f half-widths, %+.2f%%), mean field %.4f (%+.4f)",
					st.Mean, half, runs-1, refined, dRef, half, dRef/half, 100*dRef/refined, mf, dMF)
				if math.Abs(dRef) <= half {
					return
				}
				t.Logf("discrepancy: the refined value lies %.2f half-widths outside the simulation's 95%% interval (the expansion's O(1/N²) term)", math.Abs(dRef)/half-1)
				if worstRef, bestMF := math.Abs(dRef)+half, math.Abs(dMF)-half; !(3*worstRef <= bestMF) {
					t.Errorf("refined error up to %.4f is not 3× smaller than the mean field's, at least %.4f", worstRef, bestMF)
				}
			})
		}
	}
}
