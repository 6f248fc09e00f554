package meanfield

import (
	"errors"
	"math"
	"reflect"
	"testing"
)

// TestFindAttractorPublished checks the attractor's mean board value
// against the published infinite-server model values.
func TestFindAttractorPublished(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		k        int
		T        float64
		want     float64
		balanced bool
	}{
		// validation.md, "Infinite-server refresh map": mean board value,
		// k = 1, T = 600: 4.73 (1,600-server simulation 4.73).
		{"k1_T600", 1, 600, 4.73, true},
		// validation.md: k = 5, T = 400: 5.49 (simulation 5.50), empty start.
		{"k5_T400", 5, 400, 5.49, true},
		// validation.md: k = 5, T = 20: 15.9, "herded: a fixed point of the
		// map, worse than random".
		{"k5_T20_herd", 5, 20, 15.9, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			a, err := FindAttractor(Refresh{Dispatchers: c.k, Load: 0.9, Period: c.T}, BoardEmpty(), AttractorSettings{})
			if err != nil {
				t.Fatal(err)
			}
			if a.Status != FixedPoint || a.Period != 1 {
				t.Fatalf("kind %v, period %d, want a fixed point", a.Status, a.Period)
			}
			if rel := math.Abs(a.BoardMean-c.want) / c.want; rel > 0.002 {
				t.Errorf("board mean = %.5f, want %v (rel. diff %.2g > 0.2%%)", a.BoardMean, c.want, rel)
			}
			if a.Balanced != c.balanced {
				t.Errorf("Balanced = %v, want %v (board mean %.4f)", a.Balanced, c.balanced, a.BoardMean)
			}
			if a.Residual > DefaultAttractorTol || a.Truncation >= DefaultRefreshTol {
				t.Errorf("residual %.3g, truncation %.3g", a.Residual, a.Truncation)
			}
			if math.Abs(a.Response*0.9-a.QueueMean) > 1e-12*a.QueueMean {
				t.Errorf("Response·λ = %v ≠ QueueMean = %v", a.Response*0.9, a.QueueMean)
			}
			if !math.IsNaN(a.SpectralRadius) {
				t.Errorf("SpectralRadius = %v without Spectrum, want NaN", a.SpectralRadius)
			}
			t.Logf("%s: board mean %.6f, response %.4f, φ = %.4f, %d maps", c.name, a.BoardMean, a.Response, a.CutPhase, a.Maps)
		})
	}
}

// TestFindAttractorSpectrum checks the spectral radius at the balanced
// fixed point k = 5, λ = 0.9, T = 300 (T(1−λ)² = 3, above the edge 2.90 of
// validation.md): a stable node has radius below 1 (package doc, §5: 0.5–0.9
// near the edge).
func TestFindAttractorSpectrum(t *testing.T) {
	t.Parallel()
	a, err := FindAttractor(Refresh{Dispatchers: 5, Load: 0.9, Period: 300}, BoardEmpty(), AttractorSettings{Spectrum: true})
	if err != nil {
		t.Fatal(err)
	}
	if !a.Balanced || !(a.SpectralRadius > 0 && a.SpectralRadius < 1) {
		t.Errorf("balanced %v, spectral radius %.4f, want a stable balanced node", a.Balanced, a.SpectralRadius)
	}
	// The previous measurement quoted in issue 3: board mean 6.662, φ = 0.662.
	if math.Abs(a.BoardMean-6.662) > 1e-3 || math.Abs(a.CutPhase-0.662) > 1e-3 {
		t.Errorf("board mean %.5f, φ %.5f, want 6.662, 0.662", a.BoardMean, a.CutPhase)
	}
	t.Logf("radius %.4f, %d maps", a.SpectralRadius, a.Maps)
}

// TestFindAttractorUnconverged: a tiny MaxIter gives Unconverged with an
// error wrapping ErrNotConverged and the state reached.
func TestFindAttractorUnconverged(t *testing.T) {
	t.Parallel()
	a, err := FindAttractor(Refresh{Dispatchers: 5, Load: 0.9, Period: 300}, BoardEmpty(), AttractorSettings{MaxIter: 3})
	if !errors.Is(err, ErrNotConverged) {
		t.Fatalf("err = %v, want ErrNotConverged", err)
	}
	if a.Status != Unconverged || a.Period != 0 || a.Maps != 3 || len(a.Board) == 0 || a.Balanced {
		t.Errorf("got kind %v period %d iterations %d board len %d balanced %v", a.Status, a.Period, a.Maps, len(a.Board), a.Balanced)
	}
	if a.Status.String() != "unconverged" || FixedPoint.String() != "fixed" || Periodic.String() != "periodic" {
		t.Errorf("names %q %q %q", a.Status, FixedPoint, Periodic)
	}
}

// TestFindAttractorPeriodic follows k = 5, λ = 0.9 below the edge
// (T(1−λ)² = 2.88 < 2.90, validation.md) into the herd, a 2-cycle
// (package doc, §4: period 2 for k ≥ 4 near the edge). Herds drift slowly, so
// the tolerance is 1e-5.
func TestFindAttractorPeriodic(t *testing.T) {
	t.Parallel()
	a, err := FindAttractor(Refresh{Dispatchers: 5, Load: 0.9, Period: 288}, BoardEmpty(), AttractorSettings{Tol: 1e-5, MaxIter: 400})
	if err != nil {
		t.Fatal(err)
	}
	if a.Status != Periodic || a.Period != 2 || a.Balanced {
		t.Errorf("kind %v period %d balanced %v, want a period-2 herd", a.Status, a.Period, a.Balanced)
	}
	// Package doc, §4: a herd's board mean is 0.3–0.8·T near the edge.
	if r := a.BoardMean / 288; r < 0.3 || r > 0.8 {
		t.Errorf("herd board mean %.4f = %.3f·T, want 0.3–0.8·T", a.BoardMean, r)
	}
	t.Logf("herd: board mean %.4f, response %.3f, %d maps", a.BoardMean, a.Response, a.Maps)
}

// TestFindAttractorStop: AttractorSettings.Stop ends a run within the map
// it first reports true after (ErrStopped, the maps made so far), and a
// Stop that never fires leaves the result as it is without one, here and
// in FindHerdAttractor (herd point and herd hysteresis poll Ctrl-C so).
func TestFindAttractorStop(t *testing.T) {
	t.Parallel()
	r := Refresh{Dispatchers: 5, Load: 0.9, Period: 300}
	polls := 0
	a, err := FindAttractor(r, BoardEmpty(), AttractorSettings{Stop: func() bool { polls++; return polls == 4 }})
	if !errors.Is(err, ErrStopped) || a.Maps != 4 {
		t.Errorf("stopped at the 4th poll: err %v after %d maps, want ErrStopped after 4", err, a.Maps)
	}
	plain, err := FindAttractor(r, BoardEmpty(), AttractorSettings{Spectrum: true})
	if err != nil {
		t.Fatal(err)
	}
	never, err := FindAttractor(r, BoardEmpty(), AttractorSettings{Spectrum: true, Stop: func() bool { return false }})
	if err != nil {
		t.Fatal(err)
	}
	never.Runtime, plain.Runtime = 0, 0
	if !reflect.DeepEqual(never, plain) {
		t.Errorf("with a Stop that never fires: %+v, without: %+v", never.Stats, plain.Stats)
	}
	polls = 0
	h, err := FindHerdAttractor(Refresh{Dispatchers: 5, Load: 0.9, Period: 100}, BoardEmpty(),
		HerdSettings{AttractorSettings: AttractorSettings{Stop: func() bool { polls++; return polls == 7 }}})
	if !errors.Is(err, ErrStopped) || h.Maps != 7 {
		t.Errorf("herd run stopped at the 7th poll: err %v after %d maps, want ErrStopped after 7", err, h.Maps)
	}
}

func TestAttractorSettingsValidate(t *testing.T) {
	t.Parallel()
	for _, s := range []AttractorSettings{{MaxIter: -1}, {Tol: -1}, {Tol: math.NaN()}, {MaxPeriod: -1}, {MaxPeriod: 65}} {
		if err := s.Validate(); err == nil {
			t.Errorf("%+v accepted", s)
		}
		if _, err := FindAttractor(Refresh{Dispatchers: 1, Load: 0.5, Period: 1}, BoardEmpty(), s); err == nil {
			t.Errorf("FindAttractor accepted %+v", s)
		}
	}
	if _, err := FindAttractor(Refresh{Dispatchers: 0, Load: 0.5, Period: 1}, BoardEmpty(), AttractorSettings{}); err == nil {
		t.Error("FindAttractor accepted Dispatchers = 0")
	}
}
