package meanfield

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestRefreshFarCacheBitIdentical applies a sequence of maps to boards that
// change from one map to the next as the particle map's do (the empirical
// law of N = 100 draws from the last result, with a fixed board every
// seventh map), so the window count and with it the far windows'
// truncation budget moves, and compares one reused RefreshMap, whose
// far-plan cache (farPlanCache) serves plans made for earlier boards,
// with a fresh map per board, which can reuse nothing: every field of
// every result must agree bit for bit. The phase-type maps take no far
// plans; they check that reuse changes nothing there either. One case
// changes the period between maps as the edge search does (edgeRun.mapAt).
func TestRefreshFarCacheBitIdentical(t *testing.T) {
	cases := []struct {
		name      string
		r         Refresh
		periods   []float64 // the period of map i is periods[i%len]; nil: r.Period
		boardOnly bool
		maps      int
	}{
		{"k5_l0.9_T435_board", Refresh{Dispatchers: 5, Load: 0.9, Period: 435}, nil, true, 60},
		{"k5_l0.9_T290_full", Refresh{Dispatchers: 5, Load: 0.9, Period: 290}, nil, false, 40},
		{"k10_l0.95_T400_board", Refresh{Dispatchers: 10, Load: 0.95, Period: 400}, nil, true, 30},
		{"k2_l0.8_T50_full_tol1e-12_nodes8", Refresh{Dispatchers: 2, Load: 0.8, Period: 50, Tol: 1e-12, Nodes: 8}, nil, false, 40},
		{"k16_l0.9_T200_full", Refresh{Dispatchers: 16, Load: 0.9, Period: 200}, nil, false, 20},
		{"k5_l0.9_periods_board", Refresh{Dispatchers: 5, Load: 0.9, Period: 300}, []float64{250, 300, 290, 435, 300}, true, 40},
		{"k5_l0.9_periods_full", Refresh{Dispatchers: 5, Load: 0.9, Period: 300}, []float64{435, 250, 290}, false, 24},
		{"h2_4_k5_l0.9_T200_full", Refresh{Dispatchers: 5, Load: 0.9, Period: 200, Service: H2Service(4)}, nil, false, 12},
		{"erlang2_k5_l0.9_T200_board", Refresh{Dispatchers: 5, Load: 0.9, Period: 200, Service: ErlangService(2)}, nil, true, 12},
	}
	for ci, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			reused, err := NewRefreshMap(c.r)
			if err != nil {
				t.Fatal(err)
			}
			reused.boardOnly = c.boardOnly
			fixed := [][]float64{BoardHalf(30), BoardSpread(20), BoardGeometric(c.r.Load, 0), BoardBalanced(3)}
			rng := rand.New(rand.NewPCG(uint64(ci), 0x5eed))
			x := c.r.Service.Lift(BoardEmpty())
			var cdf []float64
			var freshMade, farMaps int
			for i := range c.maps {
				r := c.r
				if c.periods != nil {
					r.Period = c.periods[i%len(c.periods)]
				}
				fresh, err := NewRefreshMap(r)
				if err != nil {
					t.Fatal(err)
				}
				fresh.boardOnly = c.boardOnly
				want, werr := fresh.Apply(nil, x)
				reused.set.Period = r.Period // as edgeRun.mapAt
				if reused.ph != nil {
					reused.ph.set.Period = r.Period
				}
				got, gerr := reused.Apply(nil, x)
				if fmt.Sprint(gerr) != fmt.Sprint(werr) {
					t.Fatalf("map %d: error %v, want %v", i, gerr, werr)
				}
				if werr != nil {
					t.Fatalf("map %d: %v", i, werr)
				}
				if d := resultBitsDiff(got, want); d != "" {
					t.Fatalf("map %d (T = %v, %d board rows, %d windows): reused map differs from a fresh one: %s", i, r.Period, len(x), want.Windows, d)
				}
				freshMade += fresh.far.made
				if fresh.far.made > 0 {
					farMaps++
				}
				// The next board: a fixed one every seventh map, else N
				// draws from this result.
				if i%7 == 6 {
					x = c.r.Service.Lift(fixed[(i/7)%len(fixed)])
					continue
				}
				x, cdf = particleStep(append([]float64(nil), want.Next...), 100, rng, cdf)
			}
			t.Logf("%d maps, %d with far windows; far plans made: %d fresh, %d reused (%d operators built)", c.maps, farMaps, freshMade, reused.far.made, reused.far.built)
			if c.r.Service.PhaseCount() == 1 && !(reused.far.made < freshMade) {
				t.Errorf("reused map made %d far plans, fresh maps %d: want fewer (the cache served none)", reused.far.made, freshMade)
			}
		})
	}
}

// resultBitsDiff names the first field in which got and want differ as
// float64 bits (or as integers), or returns "".
func resultBitsDiff(got, want RefreshResult) string {
	if len(got.Next) != len(want.Next) {
		return fmt.Sprintf("len(Next) = %d, want %d", len(got.Next), len(want.Next))
	}
	for i := range got.Next {
		if math.Float64bits(got.Next[i]) != math.Float64bits(want.Next[i]) {
			return fmt.Sprintf("Next[%d] = %v, want %v (difference %g)", i, got.Next[i], want.Next[i], got.Next[i]-want.Next[i])
		}
	}
	floats := []struct {
		name      string
		got, want float64
	}{
		{"QueueMean", got.QueueMean, want.QueueMean},
		{"Response", got.Response, want.Response},
		{"BoardMean", got.BoardMean, want.BoardMean},
		{"Truncation", got.Truncation, want.Truncation},
		{"CutPhase", got.CutPhase, want.CutPhase},
		{"KinkDistance", got.KinkDistance, want.KinkDistance},
	}
	for _, f := range floats {
		if math.Float64bits(f.got) != math.Float64bits(f.want) {
			return fmt.Sprintf("%s = %v, want %v (difference %g)", f.name, f.got, f.want, f.got-f.want)
		}
	}
	ints := []struct {
		name      string
		got, want int
	}{
		{"Rows", got.Rows, want.Rows},
		{"Steps", got.Steps, want.Steps},
		{"Window", got.Window, want.Window},
		{"Windows", got.Windows, want.Windows},
	}
	for _, f := range ints {
		if f.got != f.want {
			return fmt.Sprintf("%s = %d, want %d", f.name, f.got, f.want)
		}
	}
	return ""
}

// TestSameWeights checks the comparison that lets a far plan serve another
// budget: the whole vector, zeros below the cut included, bit for bit.
func TestSameWeights(t *testing.T) {
	t.Parallel()
	pmf := []float64{0.25, 0.5, 0.25}
	cases := []struct {
		name string
		uw   []float64
		lo   int
		want bool
	}{
		{"same", []float64{0, 0.25, 0.5, 0.25}, 1, true},
		{"longer", []float64{0, 0.25, 0.5, 0.25, 1e-300}, 1, false},
		{"lower cut", []float64{1e-300, 0.25, 0.5, 0.25}, 1, false},
		{"shifted", []float64{0.25, 0.5, 0.25, 0}, 1, false},
		{"one ulp", []float64{0, 0.25, math.Nextafter(0.5, 1), 0.25}, 1, false},
	}
	for _, c := range cases {
		if got := sameWeights(c.uw, c.lo, pmf); got != c.want {
			t.Errorf("%s: sameWeights(%v, %d, %v) = %v, want %v", c.name, c.uw, c.lo, pmf, got, c.want)
		}
	}
}
