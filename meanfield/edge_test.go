package meanfield

import (
	"math"
	"os"
	"testing"
	"time"
)

// TestEdgeK5 checks the edge at k = 5, λ = 0.9 against the published
// T(1−λ)² = 2.90 (validation.md) within 0.5%, its kind (model.md §2: a
// border collision of a stable node, spectral radius ≈ 0.5–0.9, with an
// unstable saddle, real eigenvalue > 1) and the herd below it (model.md §2:
// period 2 for k ≥ 4 near the edge).
func TestEdgeK5(t *testing.T) {
	t.Parallel()
	r, err := Edge(EdgeSettings{Dispatchers: 5, Load: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Found || math.Abs(r.Scaled-2.90) > 0.005*2.90 {
		t.Errorf("found %v, edge T(1−λ)² = %.5f, want 2.90 ± 0.5%%", r.Found, r.Scaled)
	}
	if r.Crossing != CrossingBorder {
		t.Errorf("crossing %q, want %q", r.Crossing, CrossingBorder)
	}
	if !(r.NodeRadius > 0.3 && r.NodeRadius < 1) {
		t.Errorf("node radius %.4f, want a stable node (model.md §2: ≈ 0.5–0.9)", r.NodeRadius)
	}
	if !(r.SaddleEigenvalue > 1) {
		t.Errorf("saddle eigenvalue %.4f, want > 1", r.SaddleEigenvalue)
	}
	// model.md §2: the branch edge is 0–2% above the protocol edge.
	if d := r.BranchScaled/r.Scaled - 1; d < -r.BranchScaled*1e-4 || d > 0.02 {
		t.Errorf("branch edge %.5f vs protocol edge %.5f", r.BranchScaled, r.Scaled)
	}
	if r.Herd.Kind != Periodic || r.Herd.Period != 2 || r.Herd.Balanced {
		t.Errorf("herd %v period %d balanced %v, want a period-2 herd", r.Herd.Kind, r.Herd.Period, r.Herd.Balanced)
	}
	if m := r.Herd.BoardMean / r.Refresh; m < 0.3 || m > 0.8 {
		t.Errorf("herd board mean %.4f·T, want 0.3–0.8·T (model.md §2)", m)
	}
	t.Logf("edge %.5f (T %.3f), branch %.5f, %s, node %.4f, saddle %.4f, herd %v/%d mean %.3f, %d maps, %d probes, %d steps",
		r.Scaled, r.Refresh, r.BranchScaled, r.Crossing, r.NodeRadius, r.SaddleEigenvalue, r.Herd.Kind, r.Herd.Period, r.Herd.BoardMean, r.Maps, r.Probes, r.Steps)
}

// TestEdgeNone: with two dispatchers no edge exists down to
// T(1−λ)² = 0.02 (model.md §2; validation.md: "k = 2: never tips").
func TestEdgeNone(t *testing.T) {
	t.Parallel()
	for _, lam := range []float64{0.8, 0.9, 0.95} {
		r, err := Edge(EdgeSettings{Dispatchers: 2, Load: lam})
		if err != nil {
			t.Fatal(err)
		}
		if r.Found || r.Crossing != CrossingNone || !math.IsNaN(r.Scaled) {
			t.Errorf("λ = %v: found %v at %.5f, crossing %q, want none", lam, r.Found, r.Scaled, r.Crossing)
		}
		t.Logf("λ = %v: none, %d maps, %d steps", lam, r.Maps, r.Steps)
	}
}

func TestEdgeSettingsValidate(t *testing.T) {
	t.Parallel()
	for _, s := range []EdgeSettings{
		{Dispatchers: 0, Load: 0.9},
		{Dispatchers: 5, Load: 1},
		{Dispatchers: 5, Load: 0},
		{Dispatchers: 5, Load: math.NaN()},
		{Dispatchers: 5, Load: 0.9, RelTol: 1},
		{Dispatchers: 5, Load: 0.9, MinScaled: -1},
		{Dispatchers: 5, Load: 0.9, MinScaled: 9, BranchFrom: 8},
		{Dispatchers: 5, Load: 0.9, MinScaled: 600},
		{Dispatchers: 5, Load: 0.9, BranchFrom: -1},
		{Dispatchers: 5, Load: 0.999, BranchFrom: 1000},
	} {
		if err := s.Validate(); err == nil {
			t.Errorf("%+v accepted", s)
		}
		if _, err := Edge(s); err == nil {
			t.Errorf("Edge accepted %+v", s)
		}
	}
	if err := (EdgeSettings{Dispatchers: 5, Load: 0.9}).Validate(); err != nil {
		t.Error(err)
	}
}

// TestEdgeTableSlow computes the default 21-edge table (about 1–2 minutes
// on one core); it needs HERD_SLOW=1. validation.md: at λ = 0.9 the edges
// for k = 3…10 lie within about 10% of 0.9(k − 2); k = 2 never tips.
func TestEdgeTableSlow(t *testing.T) {
	if testing.Short() || os.Getenv("HERD_SLOW") != "1" {
		t.Skip("set HERD_SLOW=1 (and drop -short) to run")
	}
	t.Parallel()
	for _, lam := range []float64{0.8, 0.9, 0.95} {
		for _, k := range []int{2, 3, 4, 5, 6, 8, 10} {
			start := time.Now()
			r, err := Edge(EdgeSettings{Dispatchers: k, Load: lam})
			if err != nil {
				t.Errorf("k=%d λ=%v: %v", k, lam, err)
				continue
			}
			t.Logf("k=%2d λ=%.2f found=%-5v edge=%.5f branch=%.5f %-6s node=%.4f saddle=%.4f herd=%v/%d mean=%.2f maps=%d %.2fs",
				k, lam, r.Found, r.Scaled, r.BranchScaled, r.Crossing, r.NodeRadius, r.SaddleEigenvalue, r.Herd.Kind, r.Herd.Period, r.Herd.BoardMean, r.Maps, time.Since(start).Seconds())
			if k == 2 && r.Found {
				t.Errorf("k=2 λ=%v: edge %.5f, want none", lam, r.Scaled)
			}
			if lam == 0.9 && k >= 3 {
				if want := 0.9 * float64(k-2); math.Abs(r.Scaled-want) > 0.1*want {
					t.Errorf("k=%d λ=0.9: edge %.5f, want within 10%% of 0.9(k−2) = %.2f", k, r.Scaled, want)
				}
			}
			if r.Found && (r.Crossing != CrossingBorder || !(r.NodeRadius < 1)) {
				t.Errorf("k=%d λ=%v: crossing %q, node radius %.4f", k, lam, r.Crossing, r.NodeRadius)
			}
		}
	}
}
