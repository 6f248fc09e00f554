package compare

import (
	"context"
	"math"
	"testing"

	"herd/fleet"
	"herd/meanfield"
	"herd/sim"
)

// TestBracketMiss checks the distance of a prediction from a bracket, in
// scaled units and in bracket widths.
func TestBracketMiss(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name         string
		x, lo, hi    float64
		miss, widths float64
		holds        bool
	}{
		{"inside", 3.3, 3.2, 3.4, 0, 0, true},
		{"below, half a width", 3.15, 3.2, 3.4, 0.05, 0.25, true},
		{"above, one width", 3.6, 3.2, 3.4, 0.2, 1, true},
		{"above, two widths", 3.8, 3.2, 3.4, 0.4, 2, false},
	}
	for _, c := range cases {
		m, w, h := bracketMiss(c.x, c.lo, c.hi)
		if math.Abs(m-c.miss) > 1e-12 || math.Abs(w-c.widths) > 1e-9 || h != c.holds {
			t.Errorf("%s: got (%.4g, %.4g, %v), want (%.4g, %.4g, %v)", c.name, m, w, h, c.miss, c.widths, c.holds)
		}
	}
}

// TestFiniteEdgeCheckK5 sets the prediction at k = 5, λ = 0.8, N = 100
// against the bracket herd bracket measured for issue 45 (--servers 100
// --dispatchers 5 --load 0.8, seed 1: [3.47952, 3.5586], model edge
// 3.16320): the row must hold (within one bracket width); with a T_½
// given the bracket, the row's z's are the hazard fit's and the logistic
// fit's (FiniteTipHalf, bounded here) of the same runs, each by its own
// interval.
func TestFiniteEdgeCheckK5(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the particle map (about 15 s)")
	}
	t.Parallel()
	half := TipHalf{Scaled: 3.52, Lower: 3.48, Upper: 3.56} // a made-up T_½ of the bracket, for the z's
	br := &BracketResult{Lower: 3.47952, Upper: 3.5586, ModelScaled: 3.1631964844955442, Half: half}
	row, err := FiniteEdgeCheck(context.Background(), FiniteEdgeSettings{Servers: 100, Dispatchers: 5, Load: 0.8,
		Bracket: br, Replications: 6, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !row.Holds {
		t.Errorf("predicted %.4f [%.4f, %.4f], bracket [%.4f, %.4f]: %.2f widths off", row.Predicted, row.PredictedLower, row.PredictedUpper, row.BracketLower, row.BracketUpper, row.Widths)
	}
	if row.Sizes != "exp" || row.ModelScaled != br.ModelScaled {
		t.Errorf("row %+v", row)
	}
	// The z's: the hazard fit's and the logistic fit's of the same runs,
	// each against the bracket's T_½ by the same formula.
	z := func(x, lo, hi float64) float64 {
		a, b := (hi-lo)/3.92, (half.Upper-half.Lower)/3.92
		return (x - half.Scaled) / math.Sqrt(a*a+b*b)
	}
	ph := row.PredictedHalf
	if !ph.Bounded() || row.HalfZ != z(row.Predicted, row.PredictedLower, row.PredictedUpper) || row.PredictedHalfZ != z(ph.Scaled, ph.Lower, ph.Upper) {
		t.Errorf("logistic T_½ of the prediction %+v, z %v and %v: want bounded, each z from its own fit", ph, row.HalfZ, row.PredictedHalfZ)
	}
}

// TestFiniteResponseCheck: a row of the response check is its parts as
// each is computed alone, with the job sizes reaching both sides: the
// model's (meanfield.FiniteMean with the phase-type service) and the
// simulator's (sim.Replicate with the same sizes), each error the model's
// value less the simulator's; exponential sizes give other values (the
// sizes are not dropped on either side), and sizes with no refresh map
// are an error. Short runs (k = 3, λ = 0.8, T = 40, N = 25, h2:4: about a
// second).
func TestFiniteResponseCheck(t *testing.T) {
	t.Parallel()
	h2 := fleet.Sizes{Kind: fleet.H2, Param: 4}
	run := meanfield.FiniteRun{Periods: 40, Replications: 2, Seed: 3, Workers: 2}
	s := FiniteResponseSettings{Servers: 25, Dispatchers: 3, Load: 0.8, Refresh: 40, Sizes: h2, SimRuns: 2, Particle: run, Seed: 5, Workers: 2}
	row, err := FiniteResponseCheck(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	fm, err := meanfield.FiniteMean(meanfield.FiniteN{Refresh: meanfield.Refresh{Dispatchers: 3, Load: 0.8, Period: 40, Service: meanfield.H2Service(4)}, Servers: 25}, run)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := sim.Replicate(context.Background(), sim.Config{Servers: 25, Dispatchers: 3, Load: 0.8, Refresh: 40,
		Policy: fleet.Policy{Kind: fleet.LeastLoaded}, Tally: sim.TallyOwn, Sizes: h2}, 2, 5, 1)
	if err != nil {
		t.Fatal(err)
	}
	want := FiniteResponseRow{Dispatchers: 3, Load: 0.8, Refresh: 40, Sizes: "h2:4", Servers: 25,
		Sim: sum.Response.Mean, SimSE: sum.Response.SE, MeanField: fm.Linear.Response, Refined: fm.Linear.RefinedResponse,
		BorderZ: fm.Linear.BorderZ, Particle: fm.Response, ParticleSE: fm.ResponseSE, ParticleTipped: fm.Tipped}
	want.ErrMeanField, want.ErrRefined, want.ErrParticle = want.MeanField-want.Sim, want.Refined-want.Sim, want.Particle-want.Sim
	if row != want {
		t.Errorf("row\n%+v\nwant its parts\n%+v", row, want)
	}
	s.Sizes = fleet.Sizes{}
	exp, err := FiniteResponseCheck(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if exp.Sizes != "exp" || exp.MeanField == row.MeanField || exp.Sim == row.Sim {
		t.Errorf("exp sizes: sizes %q, mean field %v, sim %v; h2:4: %v, %v: want exp and both values changed", exp.Sizes, exp.MeanField, exp.Sim, row.MeanField, row.Sim)
	}
	s.Sizes = fleet.Sizes{Kind: fleet.Pareto, Param: 2.5}
	if _, err := FiniteResponseCheck(context.Background(), s); err == nil {
		t.Error("pareto sizes: no error, want one (no refresh map)")
	}
}

// TestFiniteResponseServers: the servers' runs, herd point --servers'
// default, give herd sim's mean time in system below the edge: at k = 5,
// λ = 0.8, T = 120, N = 100, exponential sizes, 32 runs of 1,000 periods
// each, their difference lies within validate's band (Student-t on the
// Welch–Satterthwaite degrees of freedom, false alarm 10⁻³), while plain
// mean field's lies outside it (13 standard errors: the check has the
// power to see mean field's error, −0.06). About 9 s on two cores.
func TestFiniteResponseServers(t *testing.T) {
	if testing.Short() {
		t.Skip("long: 64 runs of 1,000 periods")
	}
	t.Parallel()
	const runs = 32
	s := FiniteResponseSettings{Servers: 100, Dispatchers: 5, Load: 0.8, Refresh: 120, SimRuns: runs,
		Particle: meanfield.FiniteRun{Replications: runs, Seed: 1, Workers: 2}, Seed: 1, Workers: 2}
	row, err := FiniteResponseCheck(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if row.ParticleTipped > 0 || row.SimTipped > 0 {
		t.Fatalf("runs tipped (model %d, sim %d): not the balanced cell", row.ParticleTipped, row.SimTipped)
	}
	d := combine([]float64{1, -1}, []estimate{{row.Particle, row.ParticleSE, runs - 1}, {row.Sim, row.SimSE, runs - 1}})
	band := bandDF(d.DF) * d.SE
	if math.Abs(d.Mean) > band {
		t.Errorf("servers' runs %.4f ± %.4f, herd sim %.4f ± %.4f: differ by %.4f, band ±%.4f (%.1f degrees of freedom)",
			row.Particle, row.ParticleSE, row.Sim, row.SimSE, d.Mean, band, d.DF)
	}
	if math.Abs(row.ErrMeanField) <= bandDF(runs-1)*row.SimSE {
		t.Errorf("mean field %.4f within herd sim's band %.4f ± %.4f: the check cannot see its error", row.MeanField, row.Sim, bandDF(runs-1)*row.SimSE)
	}
}
