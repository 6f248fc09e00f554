package compare

import (
	"context"
	"errors"
	"fmt"
	"math"

	"herd/fleet"
	"herd/meanfield"
	"herd/sim"
)

// Figures 3 and 4: live boards, against the load and against the job
// sizes' variability.

func figRoundRobin(ctx context.Context, r *figureRun) ([]*FigurePlot, error) {
	var loads []float64
	for i := 0; i <= 9; i++ {
		loads = append(loads, float64(50+5*i)/100)
	}
	len3 := simLength{runs: 6, minHorizon: 100000}
	if r.Quick {
		len3 = simLength{runs: 3, minHorizon: 3000}
	}
	pols := []figPolicy{
		{name: "random", group: "random", p: fleet.Policy{Kind: fleet.Random}},
		{name: "round robin", group: "rr", p: fleet.Policy{Kind: fleet.RoundRobin}},
		{name: "best of two, live", group: "sq2", p: fleet.Policy{Kind: fleet.BestOfD, D: 2}},
	}
	var cfgs []sim.Config
	for _, pl := range pols {
		for _, l := range loads {
			cfgs = append(cfgs, sim.Config{Servers: 100, Load: l, Policy: pl.p, Horizon: len3.horizon(0)})
		}
	}
	sums, err := r.simulate(ctx, cfgs, len3.runs)
	if err != nil {
		return nil, err
	}
	cross, err := meanfield.SupermarketRoundRobinCrossing(2)
	if err != nil {
		return nil, err
	}
	p := &FigurePlot{
		Stem:   "fig3-round-robin",
		Title:  "Round robin against random and best of two, live boards (N = 100)",
		XLabel: "load λ (arrivals per server per service time)",
		YLabel: "mean time in system (service times)",
		LogY:   true,
		XCol:   "load", YCol: "response_mean", ErrCol: "ci95",
		ErrMeaning: ciMeaning,
	}
	lines, err := liveClosedForms()
	if err != nil {
		return nil, err
	}
	for j, pl := range pols {
		p.add(simSeries(pl.name, pl.group, loads, sums[j*len(loads):(j+1)*len(loads)]))
		p.add(lines[j])
	}
	p.Bands = []FigureBand{{XMin: cross.Load - 0.002, XMax: cross.Load + 0.002,
		Label: fmt.Sprintf("SQ(2) = D/M/1 at λ = %.3f", cross.Load)}}
	p.Notes = append(p.Notes, len3.describe()+"; loads "+joinFloats(loads),
		fmt.Sprintf("closed forms on a grid of step 0.005; the crossing of live best of two (supermarket SQ(2)) and round robin (D/M/1), both N → ∞, is at λ = %.4f (mean time %.4f), drawn as a band of width 0.004 (the CSV's band rows give its ends)", cross.Load, cross.Response))
	return []*FigurePlot{p}, nil
}

// liveClosedForms are figure 3's lines: M/M/1 (random), D/M/1 (round
// robin, N → ∞) and the supermarket model SQ(2), for λ from 0.5 to 0.95
// in steps of 0.005.
func liveClosedForms() ([]FigureSeries, error) {
	lines := []FigureSeries{
		lineSeries("M/M/1", "random", "closed_form"),
		lineSeries("D/M/1 (N → ∞)", "rr", "closed_form"),
		lineSeries("SQ(2) (N → ∞)", "sq2", "closed_form"),
	}
	for i := 0; i <= 90; i++ {
		l := 0.5 + float64(i)*0.005
		if i == 90 {
			l = 0.95
		}
		mm1, err1 := meanfield.MM1Response(l)
		dm1, err2 := meanfield.DM1(l)
		sq, err3 := meanfield.SupermarketResponse(2, l)
		if err := errors.Join(err1, err2, err3); err != nil {
			return nil, err
		}
		lines[0].point(l, mm1, 0, "")
		lines[1].point(l, dm1.Response, 0, "")
		lines[2].point(l, sq, 0, "")
	}
	return lines, nil
}

func h2Sizes(c float64) fleet.Sizes {
	if c == 1 {
		return fleet.Sizes{Kind: fleet.Exp}
	}
	return fleet.Sizes{Kind: fleet.H2, Param: c}
}

// pkResponse is random dispatching's mean time with h2 sizes of squared
// coefficient of variation c (Pollaczek–Khinchine).
func pkResponse(c float64) (float64, error) {
	m2, err := meanfield.SecondMomentH2(c)
	if err != nil {
		return 0, err
	}
	return meanfield.PKResponse(figLoad, m2)
}

func figHeavyTails(ctx context.Context, r *figureRun) ([]*FigurePlot, error) {
	cs := []float64{1, 4, 10, 30}
	ts := []float64{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000}
	len4 := simLength{runs: 6, minHorizon: 400000, perT: 300}
	if r.Quick {
		len4 = simLength{runs: 3, minHorizon: 5000, perT: 20}
	}
	pols := []figPolicy{
		{name: "random", group: "random", p: fleet.Policy{Kind: fleet.Random}},
		{name: "round robin", group: "rr", p: fleet.Policy{Kind: fleet.RoundRobin}},
		{name: "best of two", group: "sq2", p: fleet.Policy{Kind: fleet.BestOfD, D: 2}},
		{name: "least loaded", group: "ll", p: fleet.Policy{Kind: fleet.LeastLoaded}},
		{name: "least-work oracle", group: "oracle", p: fleet.Policy{Kind: fleet.Oracle}},
	}
	var cfgs []sim.Config
	for _, pl := range pols {
		for _, c := range cs {
			cfgs = append(cfgs, sim.Config{Servers: 100, Load: figLoad, Policy: pl.p, Sizes: h2Sizes(c), Horizon: len4.horizon(0)})
		}
	}
	for _, pl := range pols[2:4] {
		for _, T := range ts {
			cfgs = append(cfgs, sim.Config{Servers: 100, Load: figLoad, Refresh: T, Policy: pl.p, Sizes: h2Sizes(30), Horizon: len4.horizon(T)})
		}
	}
	sums, err := r.simulate(ctx, cfgs, len4.runs)
	if err != nil {
		return nil, err
	}
	a, err := heavyTailsLive(pols, cs, sums[:len(pols)*len(cs)])
	if err != nil {
		return nil, err
	}
	a.Notes = append(a.Notes, len4.describe()+"; C = 1 is exponential sizes, the others balanced-means hyperexponential (h2:C)",
		"the Pollaczek–Khinchine line is the M/G/1 mean time 1 + λ(1+C)/(2(1−λ)) of random dispatching")
	b := responseVsRefresh("fig4b-heavy-tails-refresh", "Heavy tails on a stale board (N = 100, λ = 0.9, h2 sizes, C = 30)")
	off := len(pols) * len(cs)
	b.add(simSeries("best of two", "sq2", ts, sums[off:off+len(ts)]))
	b.add(simSeries("least loaded", "ll", ts, sums[off+len(ts):off+2*len(ts)]))
	v30, err := pkResponse(30)
	if err != nil {
		return nil, err
	}
	b.add(flatLine("random, Pollaczek–Khinchine", "random", ts, v30))
	b.Notes = append(b.Notes, len4.describe()+"; refresh periods T = "+joinFloats(ts),
		fmt.Sprintf("the flat line is random dispatching's Pollaczek–Khinchine mean at C = 30, %.4g (random does not read the board)", v30))
	return []*FigurePlot{a, b}, nil
}

// heavyTailsLive is figure 4a: the live policies against C, with random's
// Pollaczek–Khinchine line.
func heavyTailsLive(pols []figPolicy, cs []float64, sums []sim.Summary) (*FigurePlot, error) {
	a := &FigurePlot{
		Stem:   "fig4a-heavy-tails",
		Title:  "Heavy tails, live boards (N = 100, λ = 0.9, h2 sizes)",
		XLabel: "squared coefficient of variation of job sizes C",
		YLabel: "mean time in system (service times)",
		LogX:   true, LogY: true,
		XCol: "scv", YCol: "response_mean", ErrCol: "ci95",
		ErrMeaning: ciMeaning,
	}
	pkLine := lineSeries("random, Pollaczek–Khinchine", "random", "closed_form")
	for i := 0; i <= 30; i++ {
		c := math.Pow(30, float64(i)/30)
		if i == 30 {
			c = 30
		}
		v, err := pkResponse(c)
		if err != nil {
			return nil, err
		}
		pkLine.point(c, v, 0, "")
	}
	for j, pl := range pols {
		a.add(simSeries(pl.name, pl.group, cs, sums[j*len(cs):(j+1)*len(cs)]))
		if j == 0 {
			a.add(pkLine)
		}
	}
	return a, nil
}
