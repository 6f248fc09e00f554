package compare

import (
	"context"
	"fmt"
	"math"

	"herd/fleet"
	"herd/meanfield"
	"herd/sim"
)

// Figure 7: the trap door, both branches of the refresh map and the
// simulator from a balanced and a herded start.

// trapStart is one of figure 7's start states: the simulator lays it
// down, the refresh map starts from meanfield.StartBoardAt of it.
type trapStart struct {
	label string
	start fleet.Start
}

func trapStarts() []trapStart {
	return []trapStart{
		{"balanced start", fleet.Start{Kind: fleet.StartBalanced}},
		{"half at 0.1·T", fleet.Start{Kind: fleet.StartHalf, Value: 0.1, PerRefresh: true}},
	}
}

func figTrapDoor(ctx context.Context, r *figureRun) ([]*FigurePlot, error) {
	const k = 5
	ts := []float64{20, 30, 50, 100, 150, 200, 300, 500, 700, 1000, 1500, 2000, 3000}
	runs, refreshes := 4, 200.0
	if r.Quick {
		ts = []float64{30, 100, 300, 1000, 3000}
		runs, refreshes = 3, 20
	}
	starts := trapStarts()
	var cfgs []sim.Config
	for _, st := range starts {
		for _, T := range ts {
			cfgs = append(cfgs, sim.Config{Servers: 100, Dispatchers: k, Load: figLoad, Refresh: T,
				Policy: fleet.Policy{Kind: fleet.LeastLoaded}, Tally: sim.TallyOwn, Start: st.start, Horizon: refreshes * T})
		}
	}
	sums, err := r.simulate(ctx, cfgs, runs)
	if err != nil {
		return nil, err
	}
	var mps []*herdPoint
	for i := range starts {
		for _, T := range ts {
			mps = append(mps, &herdPoint{k: k, st: i, T: T})
		}
	}
	var bis meanfield.BistableResult
	var bisErr error
	if err := r.models(ctx, len(mps)+1, func(i int) {
		if i == len(mps) {
			bis, bisErr = meanfield.Bistable(meanfield.BistableSettings{Dispatchers: k, Load: figLoad})
			return
		}
		m := mps[i]
		m.a, m.err = meanfield.FindHerdAttractor(meanfield.Refresh{Dispatchers: k, Load: figLoad, Period: m.T},
			meanfield.StartBoardAt(starts[m.st].start, m.T), meanfield.HerdSettings{})
	}); err != nil {
		return nil, err
	}
	if bisErr != nil {
		return nil, fmt.Errorf("bistable range: %w", bisErr)
	}
	p := responseVsRefresh("fig7-trap-door", "The trap door: 5 dispatchers, least loaded + own tally (λ = 0.9)")
	var warn []string
	for i, st := range starts {
		line, w := trapLine(st, i, mps)
		warn = append(warn, w...)
		p.add(line)
		p.add(simSeries("simulator N = 100, "+st.label, st.start.String(), ts, sums[i*len(ts):(i+1)*len(ts)]))
	}
	if !math.IsNaN(bis.Low) && !math.IsNaN(bis.High) {
		p.Bands = []FigureBand{{XMin: bis.Low, XMax: bis.High, Label: "bistable (refresh map)"}}
	}
	p.Notes = append(p.Notes,
		fmt.Sprintf("simulator: %d runs per point, each %g refresh periods (horizon %g·T), the first quarter discarded; starts `balanced` (every queue empty, as `herd hysteresis`) and `half:0.1T`; T = %s", runs, refreshes, refreshes, joinFloats(ts)),
		"model: meanfield.FindHerdAttractor from meanfield.BoardEmpty() and BoardHalf(round(0.1·T)); `note` gives the attractor (fixed, period-P, aperiodic: a window average, with a 95% bar over its batch means)",
		"band: "+BistableNote(bis)+" (meanfield.Bistable; the herd's range is searched up to T(1−λ)² = 30, i.e. T = 3,000)")
	p.Notes = append(p.Notes, warn...)
	return []*FigurePlot{p}, nil
}

// trapLine is the refresh map's line from start st (index i), broken
// where the attractor changes between balanced and herd.
func trapLine(st trapStart, i int, mps []*herdPoint) (FigureSeries, []string) {
	line := lineSeries("refresh map, "+st.label, st.start.String(), "model")
	var warn []string
	var prev *herdPoint
	for _, m := range mps {
		if m.st != i {
			continue
		}
		if m.err != nil || m.a.Status == meanfield.Unconverged {
			warn = append(warn, fmt.Sprintf("model T = %g, start %s: did not settle (point skipped)", m.T, st.start))
			line.gap(m.T, "did not settle")
			continue
		}
		if prev != nil && prev.a.Herd != m.a.Herd {
			line.lineBreak() // the edge lies between: no line across it
		}
		prev = m
		line.modelPoint(m.T, m.a.Response, m.a.ResponseSE, m.a.Batches, AttractorName(m.a))
	}
	return line, warn
}
