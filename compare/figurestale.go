package compare

import (
	"context"
	"fmt"
	"strconv"

	"herd/fleet"
	"herd/meanfield"
	"herd/sim"
)

// Figures 1 and 2: the mean time in system on a stale board against the
// refresh period T, with one dispatcher and with several.

// figPolicy is a dispatching policy as a figure names and colours it.
type figPolicy struct {
	name, group string
	p           fleet.Policy
	tally       sim.Tally
}

// classicPoint is a point of a periodic-update model line of figure 1:
// line is the line's key ("ll" or "sqd"), p the policy its model solves.
type classicPoint struct {
	line string
	p    fleet.Policy
	T    float64
	r    meanfield.ClassicResult
	err  error
}

func figStaleBoard(ctx context.Context, r *figureRun) ([]*FigurePlot, error) {
	ts := []float64{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000}
	len1 := simLength{runs: 6, minHorizon: 100000, perT: 300}
	llT := []float64{1, 1.5, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30}
	sqT := []float64{1, 1.5, 2, 3, 5, 7, 10, 15, 20, 30, 50, 70, 100, 150, 200, 300, 500, 700, 1000}
	if r.Quick {
		len1 = simLength{runs: 3, minHorizon: 3000, perT: 20}
		llT = []float64{1, 2, 3, 5, 7, 10, 15, 20, 30}
		sqT = []float64{1, 2, 5, 10, 20, 50, 100, 200, 500}
	}
	pols := []figPolicy{
		{"least loaded", "ll", fleet.Policy{Kind: fleet.LeastLoaded}, sim.TallyNone},
		{"best of two", "sq2", fleet.Policy{Kind: fleet.BestOfD, D: 2}, sim.TallyNone},
		{"least loaded + own tally", "llown", fleet.Policy{Kind: fleet.LeastLoaded}, sim.TallyOwn},
		{"random", "random", fleet.Policy{Kind: fleet.Random}, sim.TallyNone},
		{"round robin", "rr", fleet.Policy{Kind: fleet.RoundRobin}, sim.TallyNone},
	}
	var cfgs []sim.Config
	for _, p := range pols {
		for _, T := range ts {
			cfgs = append(cfgs, sim.Config{Servers: 100, Load: figLoad, Refresh: T, Policy: p.p, Tally: p.tally, Horizon: len1.horizon(T)})
		}
	}
	sums, err := r.simulate(ctx, cfgs, len1.runs)
	if err != nil {
		return nil, err
	}
	// The periodic-update models, least loaded and best of two.
	var mps []*classicPoint
	for _, T := range llT {
		mps = append(mps, &classicPoint{line: "ll", p: fleet.Policy{Kind: fleet.LeastLoaded}, T: T})
	}
	for _, T := range sqT {
		mps = append(mps, &classicPoint{line: "sqd", p: fleet.Policy{Kind: fleet.BestOfD, D: 2}, T: T})
	}
	if err := r.models(ctx, len(mps), func(i int) {
		m := mps[i]
		m.r, m.err = meanfield.ClassicModel(meanfield.ClassicSettings{Policy: m.p, Load: figLoad, Refresh: m.T})
	}); err != nil {
		return nil, err
	}
	rr, err := meanfield.ErlangM1(100, figLoad)
	if err != nil {
		return nil, err
	}
	p := responseVsRefresh("fig1-stale-board", "Stale board, one dispatcher (N = 100, λ = 0.9)")
	model, irregular, warn := classicLines(mps)
	for i, pl := range pols {
		p.add(simSeries(pl.name, pl.group, ts, sums[i*len(ts):(i+1)*len(ts)]))
		switch pl.group {
		case "ll":
			p.add(model["ll"])
		case "sq2":
			p.add(model["sqd"])
		case "random":
			p.add(flatLine("random, M/M/1", "random", ts, 1/(1-figLoad)))
		case "rr":
			p.add(flatLine("round robin, E_100/M/1", "rr", ts, rr.Response))
		}
	}
	p.Notes = append(p.Notes, len1.describe()+"; refresh periods T = "+joinFloats(ts),
		fmt.Sprintf("least loaded model: the periodic-update least-loaded map (meanfield.ClassicModel \"ll\") from an empty board, at T = %s; where it has no fixed point or short cycle (%d points, T ≳ 5) the value is its long-run average (note `irregular`, with its batch-means s.e.). Beyond T = %g it is not drawn: from T ≈ 50 the map is not stationary (its average grows with the averaging window)", joinFloats(llT), irregular, llT[len(llT)-1]),
		"best of two model: the periodic-update SQ(2) map (Mitzenmacher 2000; probes with replacement) at T = "+joinFloats(sqT),
		"flat lines: random is M/M/1, 1/(1−λ) = 10; round robin with 100 servers is E_100/M/1 (neither reads the board)")
	p.Notes = append(p.Notes, warn...)
	return []*FigurePlot{p}, nil
}

// classicLines turns figure 1's model points into its two model lines,
// counting the irregular points (long-run averages) and warning of the
// failed ones.
func classicLines(mps []*classicPoint) (model map[string]FigureSeries, irregular int, warn []string) {
	model = map[string]FigureSeries{
		"ll":  lineSeries("least loaded, model", "ll", "model"),
		"sqd": lineSeries("best of two, model", "sq2", "model"),
	}
	for _, m := range mps {
		s := model[m.line]
		if m.err != nil {
			warn = append(warn, fmt.Sprintf("model %s at T = %g: %v (point skipped)", m.line, m.T, m.err))
			s.gap(m.T, m.err.Error())
		} else {
			note := ""
			if m.r.Status == meanfield.Aperiodic {
				note = fmt.Sprintf("irregular: long-run average, s.e. %.2g", m.r.ResponseSE)
				irregular++
			}
			s.modelPoint(m.T, m.r.ResponseMean, m.r.ResponseSE, m.r.Batches, note)
		}
		model[m.line] = s
	}
	return model, irregular, warn
}

// flatLine is a closed form that does not depend on T, drawn across ts.
func flatLine(name, group string, ts []float64, v float64) FigureSeries {
	s := lineSeries(name, group, "closed_form")
	s.point(ts[0], v, 0, "")
	s.point(ts[len(ts)-1], v, 0, "")
	return s
}

// herdPoint is a refresh-map attractor at one k (or start) and T.
type herdPoint struct {
	k, st int
	T     float64
	a     meanfield.HerdAttractor
	err   error
}

func figDispatchers(ctx context.Context, r *figureRun) ([]*FigurePlot, error) {
	ks := []int{1, 2, 3, 5, 10}
	ts := []float64{1, 2, 5, 10, 20, 50, 100, 200, 300, 500, 700, 1000}
	len2 := simLength{runs: 6, minHorizon: 100000, perT: 300}
	if r.Quick {
		ts = []float64{1, 5, 20, 50, 100, 200, 500, 1000}
		len2 = simLength{runs: 3, minHorizon: 3000, perT: 20}
	}
	var cfgs []sim.Config
	for _, k := range ks {
		for _, T := range ts {
			cfgs = append(cfgs, sim.Config{Servers: 100, Dispatchers: k, Load: figLoad, Refresh: T,
				Policy: fleet.Policy{Kind: fleet.LeastLoaded}, Tally: sim.TallyOwn, Horizon: len2.horizon(T)})
		}
	}
	for _, T := range ts {
		cfgs = append(cfgs, sim.Config{Servers: 100, Load: figLoad, Refresh: T,
			Policy: fleet.Policy{Kind: fleet.BestOfD, D: 2}, Horizon: len2.horizon(T)})
	}
	sums, err := r.simulate(ctx, cfgs, len2.runs)
	if err != nil {
		return nil, err
	}
	var mps []*herdPoint
	for _, k := range ks {
		for _, T := range ts {
			mps = append(mps, &herdPoint{k: k, T: T})
		}
	}
	if err := r.models(ctx, len(mps), func(i int) {
		m := mps[i]
		m.a, m.err = meanfield.FindHerdAttractor(meanfield.Refresh{Dispatchers: m.k, Load: figLoad, Period: m.T},
			meanfield.BoardEmpty(), meanfield.HerdSettings{})
	}); err != nil {
		return nil, err
	}
	p := responseVsRefresh("fig2-dispatchers", "k dispatchers, least loaded + own tally (N = 100, λ = 0.9; lines: refresh map)")
	var warn []string
	for j, k := range ks {
		g := "k" + strconv.Itoa(k)
		p.add(simSeries(fmt.Sprintf("k = %d (sim)", k), g, ts, sums[j*len(ts):(j+1)*len(ts)]))
		line := lineSeries("", g, "model")
		var prev *herdPoint
		for _, m := range mps {
			if m.k != k {
				continue
			}
			if m.err != nil {
				warn = append(warn, fmt.Sprintf("model k = %d, T = %g: %v (point skipped)", k, m.T, m.err))
				line.gap(m.T, fmt.Sprintf("k = %d: %v", k, m.err))
				continue
			}
			if prev != nil && prev.a.Herd != m.a.Herd {
				line.lineBreak() // the edge lies between: no line across it
			}
			prev = m
			line.modelPoint(m.T, m.a.Response, m.a.ResponseSE, m.a.Batches, fmt.Sprintf("k = %d, %s", k, AttractorName(m.a)))
		}
		p.add(line)
	}
	p.add(simSeries("best of two, no tally (sim)", "sq2", ts, sums[len(ks)*len(ts):]))
	p.Notes = append(p.Notes, len2.describe()+"; refresh periods T = "+joinFloats(ts),
		"lines (unnamed in the legend, `series` empty in the CSV; `note` names k and the attractor): the refresh map's attractor from an empty board (meanfield.FindHerdAttractor, default settings), its mean time by Little's law; aperiodic herds are window averages, with a 95% bar over their batch means")
	p.Notes = append(p.Notes, warn...)
	return []*FigurePlot{p}, nil
}
