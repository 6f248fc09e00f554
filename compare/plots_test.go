package compare

import (
	"errors"
	"math"
	"testing"

	"herd/fleet"
	"herd/meanfield"
	"herd/sim"
)

// SimPlot puts the first list-valued setting on x and makes one series per
// policy, its bars t(0.975, runs − 1)·SE; with no list it has no axis.
func TestSimPlot(t *testing.T) {
	t.Parallel()
	c := sim.Config{Servers: 10, Dispatchers: 1, Load: 0.9, Policy: fleet.Policy{Kind: fleet.Random}}
	d := c
	d.Policy = fleet.Policy{Kind: fleet.RoundRobin}
	sum := func(c sim.Config, load, mean float64) sim.Summary {
		c.Load = load
		s := sim.Summary{Config: c}
		s.Response.Mean, s.Response.SE, s.Response.N = mean, 0.1, 3
		return s
	}
	sums := []sim.Summary{sum(c, 0.5, 2), sum(d, 0.5, 1.5), sum(c, 0.9, 10), sum(d, 0.9, 5)}
	p, err := SimPlot(sums, []int{10}, []int{1}, []float64{0.5, 0.9}, []float64{0})
	if err != nil {
		t.Fatal(err)
	}
	if p.XLabel != "load λ" || len(p.Series) != 2 || p.Series[0].Name != "random" || p.Series[1].Name != "rr" {
		t.Fatalf("x %q, series %+v; want load and one series per policy", p.XLabel, p.Series)
	}
	if want := "Simulated mean time in system against the load (N = 10, k = 1, live board)"; p.Title != want {
		t.Errorf("title %q, want %q", p.Title, want)
	}
	// 4.303 = t(0.975, 2), Student-t tables.
	if s := p.Series[0]; s.X[1] != 0.9 || s.Y[1] != 10 || math.Abs(s.YErr[1]-0.4303) > 1e-4 {
		t.Errorf("random at λ = 0.9: x %v, y %v, bar %v; want 0.9, 10, 0.4303", s.X[1], s.Y[1], s.YErr[1])
	}
	if _, err := SimPlot(sums[:1], []int{10}, []int{1}, []float64{0.5}, []float64{0}); !errors.Is(err, ErrNoPlotAxis) {
		t.Errorf("no list: %v, want ErrNoPlotAxis", err)
	}
}

// BracketPlot draws complete brackets at their midpoints with half their
// width as bars, the fitted law through At, and T_½ where it is bounded.
func TestBracketPlot(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	rs := []BracketResult{
		{Settings: BracketSettings{Servers: 25}, Lower: 2, Upper: 3, LowerCut: nan, UpperCut: nan, ModelScaled: 2.9},
		{Settings: BracketSettings{Servers: 100}, Lower: nan, Upper: 3, LowerCut: 2.5, UpperCut: 2.7, ModelScaled: 2.9},
	}
	fit := &ScalingFit{EdgeInf: 2.9, A: -4, Beta: 0.5}
	p := BracketPlot(rs, fit)
	full, cut, model, law := p.Series[0], p.Series[1], p.Series[2], p.Series[3]
	if len(full.X) != 1 || full.Y[0] != 2.5 || full.YErr[0] != 0.5 || len(cut.X) != 1 || cut.X[0] != 106 || len(model.X) != 2 {
		t.Errorf("full %+v, cut %+v, model %+v", full, cut, model)
	}
	if len(law.X) != 41 || law.Y[0] != fit.At(25) || fit.At(100) != 2.9-0.4 {
		t.Errorf("law from %v: %v, want %v (2.9 − 4/√25)", law.X[0], law.Y[0], fit.At(25))
	}
	if len(p.Series) != 4 {
		t.Errorf("%d series without any T_½, want 4", len(p.Series))
	}
	// T_½ where a bracket has one with both ends: at 1.12·N, bar the
	// larger half.
	rs[0].Half = TipHalf{Scaled: 2.5, Lower: 2.3, Upper: 2.8}
	rs[1].Half = TipHalf{Scaled: 2.6, Lower: nan, Upper: 2.8}
	if h := BracketPlot(rs, fit).Series[4]; len(h.X) != 1 || math.Abs(h.X[0]-28) > 1e-12 || h.Y[0] != 2.5 || math.Abs(h.YErr[0]-0.3) > 1e-12 {
		t.Errorf("T_½ series %+v, want one point (28, 2.5) with bar 0.3", h)
	}
}

// HysteresisPlot: a model line and simulator points per start, in the
// start's colour, and the bistable band only when it was computed.
func TestHysteresisPlot(t *testing.T) {
	t.Parallel()
	half := fleet.Start{Kind: fleet.StartHalf, Value: 0.1, PerRefresh: true}
	row := func(T float64, st fleet.Start, model float64) HysteresisRow {
		r := HysteresisRow{Refresh: T, Start: st, HasModel: true, HasSim: true}
		r.Model.Response = model
		r.Sim.Response.Mean, r.Sim.Response.SE, r.Sim.Response.N = model*1.1, 0.5, 4
		return r
	}
	h := Hysteresis{Rows: []HysteresisRow{row(300, fleet.Start{}, 10), row(300, half, 100), row(500, fleet.Start{}, 11), row(500, half, math.NaN())},
		HasBistable: true, Bistable: meanfield.BistableResult{Low: 280, High: 900}}
	p := HysteresisPlot(h, 100)
	if len(p.Series) != 4 || p.Series[0].Group != p.Series[1].Group || p.Series[2].Group == p.Series[0].Group {
		t.Fatalf("%d series, groups %q %q %q; want line and points per start, one colour each", len(p.Series), p.Series[0].Group, p.Series[1].Group, p.Series[2].Group)
	}
	if len(p.Series[2].X) != 1 || len(p.Series[3].X) != 2 {
		t.Errorf("half's model line has %d points (a NaN response is left out, want 1), its points %d (want 2)", len(p.Series[2].X), len(p.Series[3].X))
	}
	if len(p.Bands) != 1 || p.Bands[0].XMin != 280 {
		t.Errorf("bands %+v, want the bistable range", p.Bands)
	}
	// An aperiodic herd's window average has a bar over its batch means:
	// t(0.975, 7) = 2.3646 (standard t tables) times its s.e.
	h.Rows[1].Model.ResponseSE, h.Rows[1].Model.Batches = 2, 8
	if s := HysteresisPlot(h, 100).Series[2]; len(s.YErr) != 1 || math.Abs(s.YErr[0]-4.72925) > 1e-4 || s.SE[0] != 2 || s.Runs[0] != 8 {
		t.Errorf("half's model line: bars %v, se %v, batches %v; want 4.7292, 2, 8", s.YErr, s.SE, s.Runs)
	}
	if s := HysteresisPlot(h, 100).Series[0]; s.YErr != nil {
		t.Errorf("balanced start's fixed points have bars %v, want none", s.YErr)
	}
	h.BistableErr = errors.New("no edge")
	if p := HysteresisPlot(h, 100); len(p.Bands) != 0 {
		t.Errorf("bands %+v after a failed bistable range, want none", p.Bands)
	}
}

// AddPrediction draws the predictions as one line in increasing N, beside
// the brackets (0.94·N), with each 95% interval as a bar; a row without a
// prediction breaks the line.
func TestAddPrediction(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	p := BracketPlot(nil, nil)
	before := len(p.Series)
	AddPrediction(p, []FiniteEdgeRow{
		{Servers: 400, Predicted: 3.1, PredictedLower: 3.0, PredictedUpper: 3.2},
		{Servers: 25, Predicted: 4.0, PredictedLower: 3.9, PredictedUpper: 4.1},
		{Servers: 100, Predicted: nan, PredictedLower: nan, PredictedUpper: nan},
	})
	if len(p.Series) != before+1 {
		t.Fatalf("%d series, want %d", len(p.Series), before+1)
	}
	s := p.Series[before]
	wantX := []float64{0.94 * 25, 0.94 * 100, 0.94 * 400}
	if !s.Line || len(s.X) != 3 || s.X[0] != wantX[0] || s.X[1] != wantX[1] || s.X[2] != wantX[2] {
		t.Fatalf("series %+v, want a line at %v", s, wantX)
	}
	if s.Y[0] != 4.0 || !math.IsNaN(s.Y[1]) || s.Y[2] != 3.1 {
		t.Errorf("Y = %v, want [4 NaN 3.1]", s.Y)
	}
	if math.Abs(s.YErr[0]-0.1) > 1e-12 || math.Abs(s.YErr[2]-0.1) > 1e-12 {
		t.Errorf("bars %v, want the half-widths 0.1", s.YErr)
	}
}
