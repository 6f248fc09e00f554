package compare

import (
	"testing"

	"herd/meanfield"
)

// TestPointMapped: PointSettings.Mapped is called once for each map of a
// point's iteration, with the point's place in idx: the herd just below
// the k = 5, λ = 0.9 edge (T = 287), aperiodic with Settle = Average = 16,
// whose run has no spectrum's maps, so the count is its Maps exactly; and
// the result is the same without the hook. The reports count the maps
// 1, 2, …, and the run in the herd regime (board mean above 1.2/(1 − λ) =
// 12) up to the 32 maps the verdict needs.
func TestPointMapped(t *testing.T) {
	r0 := meanfield.Refresh{Dispatchers: 5, Load: 0.9, Period: 287}
	jobs := []PointJob{{Refresh: r0, Board: meanfield.BoardEmpty}, {Refresh: r0, Board: meanfield.BoardEmpty}}
	s := PointSettings{MaxIter: 5000, Tol: 1e-10, Settle: 16, Average: 16}
	plain, _, _ := PointAttractors(jobs, []int{1}, s, serialPool)
	var counts [2]int
	var reps []meanfield.MapReport
	s.Mapped = func(k int, r meanfield.MapReport) {
		counts[k]++
		reps = append(reps, r)
	}
	got, errs, done := PointAttractors(jobs, []int{1}, s, serialPool)
	if !done[0] || errs[0] != nil {
		t.Fatalf("done %v, err %v", done[0], errs[0])
	}
	h := got[0]
	if h.Status != meanfield.Aperiodic || h.Averaged != 16 {
		t.Fatalf("status %v averaged %d: want an aperiodic herd averaged over 16 maps", h.Status, h.Averaged)
	}
	if counts[0] != h.Maps || counts[1] != 0 {
		t.Errorf("Mapped counts %v, want [%d 0] (the run's maps, reported as idx's place 0)", counts, h.Maps)
	}
	run := 0
	for i, r := range reps {
		if r.BoardMean*(1-r0.Load) > meanfield.BalancedQueueScale {
			run++
		} else {
			run = 0
		}
		if r.Maps != i+1 || r.HerdRun != run || r.HerdNeed != 32 {
			t.Fatalf("report %d: %+v, want Maps %d, HerdRun %d, HerdNeed 32", i, r, i+1, run)
		}
	}
	if n := len(reps); n == 0 || reps[n-1].HerdRun != 32 {
		t.Errorf("last report %+v: want the 32nd map in the herd regime", reps[max(n-1, 0)])
	}
	if plain[0].Response != h.Response || plain[0].Maps != h.Maps {
		t.Errorf("with Mapped: response %v in %d maps; without: %v in %d", h.Response, h.Maps, plain[0].Response, plain[0].Maps)
	}
}

// serialPool runs every item in turn.
func serialPool(n int, work func(i int)) []bool {
	done := make([]bool, n)
	for i := range done {
		work(i)
		done[i] = true
	}
	return done
}
