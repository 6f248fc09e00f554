package compare

import (
	"context"
	"fmt"
	"math"
	"time"

	"herd/fleet"
	"herd/meanfield"
	"herd/sim"
)

// Finite fleets (issue 45): the refresh map's predictions at N servers
// (meanfield's package doc, §8) against the simulator, as typed rows.
//
//   - FiniteEdgeCheck: the predicted edge (meanfield.FiniteEdge: the
//     particle runs with herd bracket's start, detector and run length)
//     against the simulator's bracket (Bracket, or a bracket measured
//     before and passed in).
//   - FiniteResponseCheck: the mean time in system at N from plain mean
//     field, the refined mean field's 1/N series and the particle runs,
//     against sim.Replicate.
//
// Nothing in a prediction is fitted to the simulator's numbers: the rows
// only set them side by side.

// FiniteEdgeSettings is one cell of the finite-N edge check.
type FiniteEdgeSettings struct {
	Servers, Dispatchers int
	Load                 float64
	Sizes                fleet.Sizes
	// ModelScaled is the map's edge T_edge(1−λ)²; 0 computes it
	// (meanfield.Edge).
	ModelScaled float64
	// Replications is the prediction's runs per period (meanfield's
	// FiniteEdgeSettings.Replications; 0: its default).
	Replications int
	// Refreshes is the run length of both the prediction and the bracket;
	// 0 means 1,000.
	Refreshes int
	// Bracket, when not nil, is the simulator's bracket measured before
	// (herd bracket with the same run length and detector); nil runs
	// Bracket with Runs runs per point.
	Bracket *BracketResult
	Runs    int
	Seed    uint64
	Workers int
	// Stop, when not nil, is polled with ctx before every refresh period
	// of the prediction's particle runs (and after the maps of the map's
	// edge search, where neither ModelScaled nor the bracket gives it);
	// either ends it (an error
	// wrapping meanfield.ErrStopped). A progress report counts the
	// periods through it; it is not a setting of the computation.
	Stop func() bool
	// Progress is meanfield.FiniteEdgeSettings.Progress for the
	// prediction (nil: none).
	Progress func(meanfield.FiniteEdgeProgress)
}

// FiniteEdgeRow is the finite-N edge check at one cell. Scaled values are
// T(1−λ)².
type FiniteEdgeRow struct {
	Dispatchers int
	Load        float64
	Sizes       string
	Servers     int
	// ModelScaled is the map's edge (N → ∞).
	ModelScaled float64
	// Predicted is meanfield.FiniteEdge's T_½(1−λ)², with its 95% interval
	// [PredictedLower, PredictedUpper] and the seconds it took.
	Predicted, PredictedLower, PredictedUpper float64
	PredictSeconds                            float64
	// BracketLower and BracketUpper are the simulator's bracket.
	BracketLower, BracketUpper float64
	// Miss is the distance from Predicted to the bracket (0 inside it),
	// Widths the same in bracket widths; Holds reports Widths ≤ 1 (the
	// issue's criterion).
	Miss, Widths float64
	Holds        bool
	// HalfZ sets Predicted against the simulator's own T_½ (the bracket's
	// Half: a fit to all its points): their difference over the root of
	// the sum of their variances, each standard error taken as its 95%
	// interval's width over 3.92; NaN where the bracket has no bounded
	// T_½ (TipHalf.Bounded) or the prediction's interval is open.
	HalfZ float64
	// PredictedHalf is the bracket's estimator, FiniteTipHalf, fitted to
	// the prediction's own runs, and PredictedHalfZ sets it against the
	// bracket's Half as HalfZ does Predicted: one estimator on both sides
	// (NaN where either is not bounded).
	PredictedHalf  TipHalf
	PredictedHalfZ float64
}

// FiniteTipHalf fits the bracket's T_½ estimator (FitTipHalf, a logistic
// curve) to meanfield.FiniteEdge's probes with runs (where the empty
// board does not reach the balanced state there are none), beside
// FiniteEdge's own constant-hazard fit: the two are different curves and
// need not agree on the same runs. An estimate outside the probes' span
// is an extrapolation and is not given (all NaN, Why says so).
func FiniteTipHalf(points []meanfield.FiniteEdgePoint) TipHalf {
	var stats []PointStat
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range points {
		if p.Runs > 0 {
			stats = append(stats, PointStat{Scaled: p.Scaled, Refresh: p.Refresh, Runs: p.Runs, Tipped: p.Tipped, MedianTip: p.MedianTip})
			lo, hi = min(lo, p.Scaled), max(hi, p.Scaled)
		}
	}
	h := FitTipHalf(stats)
	if !(h.Scaled >= lo && h.Scaled <= hi) {
		out := NoTipHalf("outside the probes")
		out.Slope = h.Slope
		return out
	}
	return h
}

// halfZ is (x − h)/√(s_x² + s_h²) for two estimates with 95% intervals,
// each standard error the interval's width over 3.92; NaN where an
// interval is open (a NaN end) or h is not bounded.
func halfZ(x, lower, upper float64, h TipHalf) float64 {
	if !h.Bounded() {
		return math.NaN()
	}
	sx, sh := (upper-lower)/3.92, (h.Upper-h.Lower)/3.92
	return (x - h.Scaled) / math.Sqrt(sx*sx+sh*sh)
}

// FiniteEdgeCheck predicts the edge at one cell and sets it against the
// simulator's bracket. Cancelling ctx stops the prediction within one
// period of one run (an error wrapping meanfield.ErrStopped).
func FiniteEdgeCheck(ctx context.Context, s FiniteEdgeSettings) (FiniteEdgeRow, error) {
	svc, err := ModelService(s.Sizes)
	if err != nil {
		return FiniteEdgeRow{}, err
	}
	row := FiniteEdgeRow{Dispatchers: s.Dispatchers, Load: s.Load, Sizes: svc.String(), Servers: s.Servers}
	br := s.Bracket
	if br == nil {
		b, err := Bracket(ctx, BracketSettings{Servers: s.Servers, Dispatchers: s.Dispatchers, Load: s.Load,
			Runs: s.Runs, Refreshes: s.Refreshes, ModelScaled: s.ModelScaled, Sizes: s.Sizes, Seed: s.Seed, Workers: s.Workers}, nil, nil)
		if err != nil {
			return row, err
		}
		br = &b
	}
	model := s.ModelScaled
	if model == 0 && !math.IsNaN(br.ModelScaled) {
		model = br.ModelScaled
	}
	start := time.Now()
	e, err := meanfield.FiniteEdge(meanfield.FiniteEdgeSettings{Dispatchers: s.Dispatchers, Load: s.Load, Service: svc,
		Servers: s.Servers, Refreshes: s.Refreshes, Replications: s.Replications, ModelScaled: model, Seed: s.Seed, Workers: s.Workers,
		Stop: func() bool { return (s.Stop != nil && s.Stop()) || ctx.Err() != nil }, Progress: s.Progress})
	row.PredictSeconds = time.Since(start).Seconds()
	if err != nil {
		return row, err
	}
	if e.Status != meanfield.Found {
		return row, fmt.Errorf("compare: finite edge: no edge found at N = %d (runs still tip at 1.64 times the map's edge)", s.Servers)
	}
	row.ModelScaled = e.ModelScaled
	row.Predicted, row.PredictedLower, row.PredictedUpper = e.Scaled, e.Lower, e.Upper
	row.BracketLower, row.BracketUpper = br.Lower, br.Upper
	row.Miss, row.Widths, row.Holds = bracketMiss(e.Scaled, br.Lower, br.Upper)
	row.HalfZ = halfZ(e.Scaled, e.Lower, e.Upper, br.Half)
	ph := FiniteTipHalf(e.Points)
	row.PredictedHalf, row.PredictedHalfZ = ph, halfZ(ph.Scaled, ph.Lower, ph.Upper, br.Half)
	return row, nil
}

// bracketMiss returns how far x lies outside [lo, hi] (0 inside), that
// distance in bracket widths, and whether it is at most one width.
func bracketMiss(x, lo, hi float64) (miss, widths float64, holds bool) {
	switch {
	case x < lo:
		miss = lo - x
	case x > hi:
		miss = x - hi
	}
	w := hi - lo
	widths = miss / w
	return miss, widths, widths <= 1+1e-9 // rounding of the two differences
}

// FiniteResponseSettings is one point of the finite-N response check.
type FiniteResponseSettings struct {
	Servers, Dispatchers int
	Load, Refresh        float64
	// Sizes is the job-size law of both the simulator and the model
	// (zero value: exponential; the model takes the phase-type laws,
	// ModelService).
	Sizes fleet.Sizes
	// SimRuns is the number of simulator runs (1,000 refresh periods each,
	// warm-up a quarter); 0 means 8.
	SimRuns int
	// Particle is the particle runs (meanfield.FiniteRun; its Particles
	// zero value runs the servers up to 10⁵ of them, at any sizes).
	Particle meanfield.FiniteRun
	Seed     uint64
	Workers  int
}

// FiniteResponseRow is the mean time in system at one point: the
// simulator's, plain mean field's, the refined mean field's (1/N series)
// and the particle runs', with their errors against the simulator.
type FiniteResponseRow struct {
	Dispatchers   int
	Load, Refresh float64
	Sizes         string
	Servers       int
	Sim, SimSE    float64
	SimTipped     int
	MeanField     float64
	Refined       float64
	// BorderZ is the linear-noise distance of the node to its window's
	// end in standard deviations (meanfield.LinearNoise.BorderZ): the 1/N
	// series needs it large.
	BorderZ                               float64
	Particle, ParticleSE                  float64
	ParticleTipped                        int
	ErrMeanField, ErrRefined, ErrParticle float64
}

// FiniteResponseCheck computes one row of the response check.
func FiniteResponseCheck(ctx context.Context, s FiniteResponseSettings) (FiniteResponseRow, error) {
	svc, err := ModelService(s.Sizes)
	if err != nil {
		return FiniteResponseRow{}, err
	}
	row := FiniteResponseRow{Dispatchers: s.Dispatchers, Load: s.Load, Refresh: s.Refresh, Sizes: svc.String(), Servers: s.Servers}
	fm, err := meanfield.FiniteMean(meanfield.FiniteN{Refresh: meanfield.Refresh{Dispatchers: s.Dispatchers, Load: s.Load, Period: s.Refresh, Service: svc}, Servers: s.Servers}, s.Particle)
	if err != nil {
		return row, err
	}
	row.MeanField, row.Refined, row.BorderZ = fm.Linear.Response, fm.Linear.RefinedResponse, fm.Linear.BorderZ
	row.Particle, row.ParticleSE, row.ParticleTipped = fm.Response, fm.ResponseSE, fm.Tipped
	runs := s.SimRuns
	if runs == 0 {
		runs = 8
	}
	cfg := sim.Config{Servers: s.Servers, Dispatchers: s.Dispatchers, Load: s.Load, Refresh: s.Refresh,
		Policy: fleet.Policy{Kind: fleet.LeastLoaded}, Tally: sim.TallyOwn, Sizes: s.Sizes}
	sum, err := sim.Replicate(ctx, cfg, runs, s.Seed, max(1, s.Workers))
	if err != nil {
		return row, err
	}
	row.Sim, row.SimSE = sum.Response.Mean, sum.Response.SE
	theta := TipThreshold(s.Load, s.Refresh)
	for _, r := range sum.Results {
		if r.BoardMean > theta {
			row.SimTipped++
		}
	}
	row.ErrMeanField = row.MeanField - row.Sim
	row.ErrRefined = row.Refined - row.Sim
	row.ErrParticle = row.Particle - row.Sim
	return row, nil
}
