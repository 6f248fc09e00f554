package meanfield

import (
	"fmt"
	"os"
	"testing"
)

// TestEdgeLeaveStopKeepsVerdicts tests the one early stop of the edge's
// iteration runs against running them out. runOn ends a run once its
// board has left the balanced basin (the board mean in the herd regime,
// above BalancedQueueScale/(1 − λ), and rising for edgeLeaveRun maps);
// the edge is defined by plain iteration from the low boards to
// edgeMaxIter maps (package doc, §5), and no proof says the stop gives
// the same verdict, so it is checked here: at 20 periods either side of
// the edges of four (k, λ) (within 0.1%, 1% and 2%), each low board's run
// with the stop and the same run without it (FindAttractor, edgeMaxIter
// maps, the search's tolerance) must agree on whether a balanced fixed
// point is reached. The stop must fire on runs below the edge, or the
// comparison shows nothing. The edges are herd edge's at tolerance 1e-4,
// used only to place the periods. HERD_SLOW=1 adds k = 8 at λ = 0.8 and
// k = 4 and 5 at λ = 0.9, whose full runs below the edge are the dearest
// (aperiodic herds, all 3,000 maps: 62 s of CPU more here).
func TestEdgeLeaveStopKeepsVerdicts(t *testing.T) {
	t.Parallel()
	type edgeAt struct {
		k         int
		lam, edge float64
		factors   []float64
	}
	wide := []float64{0.98, 0.99, 0.999, 1.001, 1.01, 1.02}
	near := []float64{0.999, 1.001}
	edges := []edgeAt{
		{4, 0.8, 52.80465791143099, wide},
		{5, 0.8, 79.07991211238864, wide},
		{3, 0.9, 99.29856951805975, wide},
		{6, 0.8, 103.50190572599901, near},
	}
	if os.Getenv("HERD_SLOW") == "1" && !testing.Short() {
		edges = append(edges, edgeAt{8, 0.8, 149.9889900091233, near},
			edgeAt{4, 0.9, 196.95511063699564, near}, edgeAt{5, 0.9, 289.92204893718167, near})
	}
	for _, c := range edges {
		for _, f := range c.factors {
			T := c.edge * f
			t.Run(fmt.Sprintf("k=%d/λ=%g/T=edge×%g", c.k, c.lam, f), func(t *testing.T) {
				t.Parallel()
				e := newEdgeRun(EdgeSettings{Dispatchers: c.k, Load: c.lam, Workers: 1}.withDefaults(), &EdgeResult{})
				fired := 0
				for _, j := range e.lowJobs(T, true) {
					o := e.runOn(0, j, edgeFPTol, nil)
					if o.err != nil {
						t.Fatalf("low board %d: %v", j.low, o.err)
					}
					full, err := FindAttractor(Refresh{Dispatchers: c.k, Load: c.lam, Period: T}, j.start,
						AttractorSettings{MaxIter: edgeMaxIter, Tol: edgeFPTol, MaxPeriod: DefaultAttractorMaxPeriod})
					if err != nil && full.Status != Unconverged {
						t.Fatalf("low board %d, full run: %v", j.low, err)
					}
					if o.ok != full.Balanced {
						t.Errorf("low board %d: the stopped run says balanced = %v after %d maps, the full run %v after %d maps (%v)",
							j.low, o.ok, o.att.Maps, full.Balanced, full.Maps, full.Status)
					}
					if o.att.Status == Unconverged && o.att.Maps < full.Maps {
						fired++
					}
				}
				if f < 1 && fired == 0 {
					t.Errorf("below the edge the stop fired on none of the low boards' runs: the comparison shows nothing")
				}
			})
		}
	}
}
