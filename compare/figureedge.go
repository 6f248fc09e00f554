package compare

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"

	"herd/fleet"
	"herd/internal/pool"
	"herd/meanfield"
)

// Figures 5 and 6: the edge against the number of dispatchers and against
// the number of servers.

// bracketSettings are the figures' bracket run lengths: validation.md's
// (runs of 1,000 refreshes, 6 runs a point, resolution 0.05) or the quick
// ones.
func (r *figureRun) bracketSettings(n, k int, model float64) BracketSettings {
	s := BracketSettings{Servers: n, Dispatchers: k, Load: figLoad, ModelScaled: model,
		Seed: r.Seed, Workers: r.Workers}
	if r.Quick {
		s.Runs, s.Refreshes, s.Cut, s.Resolution = 3, 100, 100, 0.5
	}
	return s
}

func (r *figureRun) bracketNote() string {
	if r.Quick {
		return "brackets (`herd bracket`): 3 runs a point, 100 refreshes a run, resolution 0.5 in T(1−λ)²; least loaded + own tally from a balanced start; a run tips when the board mean stays above max(3/(1−λ), 0.1·T) for 5 refreshes"
	}
	return "brackets (`herd bracket` defaults): 6 runs a point, 1,000 refreshes a run, resolution 0.05 in T(1−λ)²; least loaded + own tally from a balanced start; a run tips when the board mean stays above max(3/(1−λ), 0.1·T) for 5 refreshes"
}

func bracketPoint(s *FigureSeries, x float64, b BracketResult) {
	if math.IsNaN(b.Lower) || math.IsNaN(b.Upper) {
		s.gap(x, "the bracket is not complete")
		return
	}
	s.point(x, (b.Lower+b.Upper)/2, (b.Upper-b.Lower)/2,
		fmt.Sprintf("bracket [%s, %s], %d points", fstr(b.Lower), fstr(b.Upper), len(b.Points)))
}

// edgePoint is the refresh map's edge at k dispatchers and one load.
type edgePoint struct {
	k    int
	load float64
	r    meanfield.EdgeResult
	err  error
}

// edgePlot is the frame of figure 5.
func edgePlot() *FigurePlot {
	return &FigurePlot{
		Stem:   "fig5-edge",
		Title:  "The edge of the balanced state",
		XLabel: "dispatchers k",
		YLabel: "edge T_edge (1−λ)² (service times)",
		XCol:   "dispatchers", YCol: "edge_scaled", ErrCol: "half_width",
		ErrMeaning: "half the bracket's width (bracket points; the bar spans the bracket)",
	}
}

func figEdge(ctx context.Context, r *figureRun) ([]*FigurePlot, error) {
	loads := []float64{0.8, 0.9, 0.95}
	ks := []int{2, 3, 4, 5, 6, 8, 10}
	bks := []int{3, 4, 5, 6, 8, 10}
	if r.Quick {
		loads = []float64{0.9}
		ks = []int{3, 5, 8}
		bks = []int{3, 5, 8}
	}
	var eps []*edgePoint
	for _, l := range loads {
		for _, k := range ks {
			eps = append(eps, &edgePoint{k: k, load: l})
		}
	}
	// Each bracket starts as soon as its model edge at λ = 0.9 is known,
	// while the other edges are computed.
	var brs []BracketResult
	var brErr, err error
	pool.Fork(func() {
		brs, brErr = r.brackets(ctx, len(bks), func(i int) (BracketSettings, error) {
			e, err := r.edge(ctx, bks[i], figLoad)
			if err != nil {
				return BracketSettings{}, fmt.Errorf("edge k = %d, λ = %g: %w", bks[i], figLoad, err)
			}
			if e.Status != meanfield.Found {
				return BracketSettings{}, fmt.Errorf("no model edge at k = %d, λ = 0.9", bks[i])
			}
			return r.bracketSettings(100, bks[i], e.Scaled), nil
		})
	}, func() {
		err = r.parallel(ctx, len(eps), "model points", func(int) float64 { return ModelPointCost }, func(i int) error {
			e := eps[i]
			e.r, e.err = r.edge(ctx, e.k, e.load)
			return ctx.Err()
		})
	})
	if err != nil {
		return nil, err
	}
	for _, e := range eps {
		if e.err != nil {
			return nil, fmt.Errorf("edge k = %d, λ = %g: %w", e.k, e.load, e.err)
		}
	}
	if brErr != nil {
		return nil, brErr
	}
	p := edgePlot()
	for _, l := range loads {
		p.add(edgeLine(l, eps))
	}
	// The law is drawn from k = 2 to one past the last k, so that no
	// bracket sits on the frame.
	law := lineSeries("law 0.9(k−2)", "", "law")
	for _, k := range []int{2, ks[len(ks)-1] + 1} {
		law.point(float64(k), fleet.LawScaled(k), 0, "")
	}
	p.add(law)
	bs := FigureSeries{Name: "simulator N = 100, λ = 0.9 (bracket)", Group: "0.9", Kind: "bracket"}
	for i, k := range bks {
		bracketPoint(&bs, float64(k), brs[i])
	}
	p.add(bs)
	p.Notes = append(p.Notes,
		"model: meanfield.Edge (herd edge) at λ = "+joinFloats(loads)+" and k = "+joinInts(ks)+"; k = 2 never tips (no edge, not drawn); the law is drawn from k = 2 to "+strconv.Itoa(ks[len(ks)-1]+1),
		r.bracketNote()+"; brackets at k = "+joinInts(bks))
	return []*FigurePlot{p}, nil
}

// edgeLine is the refresh map's edge against k at one load.
func edgeLine(l float64, eps []*edgePoint) FigureSeries {
	g := ""
	if l == 0.9 {
		g = "0.9"
	}
	s := lineSeries(fmt.Sprintf("refresh map, λ = %g", l), g, "model")
	for _, e := range eps {
		if e.load != l {
			continue
		}
		if e.r.Status != meanfield.Found {
			s.gap(float64(e.k), "no edge down to T(1−λ)² = 0.02")
			continue
		}
		s.point(float64(e.k), e.r.Scaled, 0, e.r.Crossing)
	}
	return s
}

func figFiniteSize(ctx context.Context, r *figureRun) ([]*FigurePlot, error) {
	ns := []int{25, 50, 100, 200, 400, 800, 1600}
	if r.Quick {
		ns = []int{25, 50, 100}
	}
	r.progress("model edge", 0, 1, true)
	e, err := r.edge(ctx, 5, figLoad)
	if err != nil {
		return nil, err
	}
	if e.Status != meanfield.Found {
		return nil, errors.New("no model edge at k = 5, λ = 0.9")
	}
	brs, err := r.brackets(ctx, len(ns), func(i int) (BracketSettings, error) {
		return r.bracketSettings(ns[i], 5, e.Scaled), nil
	})
	if err != nil {
		return nil, err
	}
	p := &FigurePlot{
		Stem:   "fig6-finite-size",
		Title:  "The edge against N (k = 5, λ = 0.9)",
		XLabel: "servers N",
		YLabel: "edge T_edge (1−λ)² (service times)",
		LogX:   true,
		XCol:   "servers", YCol: "edge_scaled", ErrCol: "half_width",
		ErrMeaning: "half the bracket's width (bracket points; the bar spans the bracket)",
	}
	bs := FigureSeries{Name: "simulator (bracket)", Kind: "bracket"}
	for i, n := range ns {
		bracketPoint(&bs, float64(n), brs[i])
	}
	p.add(bs)
	// The model does not depend on N: draw it a little beyond the points
	// on both sides, so that no bracket sits on the frame.
	m := lineSeries("refresh map (N → ∞)", "", "model")
	m.point(float64(ns[0])/1.25, e.Scaled, 0, "")
	m.point(float64(ns[len(ns)-1])*1.25, e.Scaled, 0, "")
	p.add(m)
	p.Notes = append(p.Notes, r.bracketNote()+"; N = "+joinInts(ns),
		fmt.Sprintf("model: meanfield.Edge at k = 5, λ = 0.9: T_edge(1−λ)² = %.4f, drawn flat from N/1.25 to 1.25·N", e.Scaled))
	return []*FigurePlot{p}, nil
}
