package compare

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"herd/fleet"
	"herd/sim"
)

// The plots of the commands' --plot (herd sim, balls, bracket, scaling,
// hysteresis), as FigurePlots: which points make which series. The command
// line draws them; bars are 95% intervals, t(0.975, runs − 1) standard
// errors.

// keyedSeries collects points into series named by a key, in the order the
// keys first appear.
type keyedSeries struct {
	order []string
	by    map[string]*FigureSeries
}

// get returns the series of key, made by mk the first time.
func (k *keyedSeries) get(key string, mk func() FigureSeries) *FigureSeries {
	if k.by == nil {
		k.by = map[string]*FigureSeries{}
	}
	s, ok := k.by[key]
	if !ok {
		v := mk()
		s = &v
		k.by[key] = s
		k.order = append(k.order, key)
	}
	return s
}

// bar appends a point with its 95% bar (which may be NaN: no bar).
func (s *FigureSeries) bar(x, y, se float64, runs int) {
	s.X = append(s.X, x)
	s.Y = append(s.Y, y)
	s.YErr = append(s.YErr, T975(runs)*se)
}

// ErrNoPlotAxis: SimPlot found no list-valued numeric setting to put on
// its x axis.
var ErrNoPlotAxis = errors.New("compare: no list-valued numeric setting (refresh, load, servers or dispatchers) for the x axis")

// SimPlot is herd sim's plot: the mean time in system with its 95%
// interval against the first list-valued numeric setting (refresh, load,
// servers, dispatchers: the lists the rows were made from), one series per
// policy and per combination of the other varying settings, in row order.
// Its axes are linear: the caller chooses logarithmic ones.
func SimPlot(sums []sim.Summary, ns, ks []int, loads, ts []float64) (*FigurePlot, error) {
	type axis struct {
		name, label string
		n           int
		x           func(c sim.Config) float64
	}
	axes := []axis{
		{"refresh", "board refresh period T (service times)", len(ts), func(c sim.Config) float64 { return c.Refresh }},
		{"load", "load λ", len(loads), func(c sim.Config) float64 { return c.Load }},
		{"servers", "servers N", len(ns), func(c sim.Config) float64 { return float64(c.Servers) }},
		{"dispatchers", "dispatchers k", len(ks), func(c sim.Config) float64 { return float64(c.Dispatchers) }},
	}
	var ax *axis
	for i := range axes {
		if axes[i].n > 1 {
			ax = &axes[i]
			break
		}
	}
	if ax == nil || len(sums) == 0 {
		return nil, ErrNoPlotAxis
	}
	var series keyedSeries
	for _, s := range sums {
		c := s.Config
		key := simSeriesName(c, ax.name, ns, ks, loads, ts)
		series.get(key, func() FigureSeries { return FigureSeries{Name: key} }).bar(ax.x(c), s.Response.Mean, s.Response.SE, s.Response.N)
	}
	p := &FigurePlot{
		Title:  simPlotTitle(ax.name, sums[0].Config, ns, ks, loads, ts),
		XLabel: ax.label,
		YLabel: "mean time in system (service times), 95% interval (t, runs − 1)",
	}
	for _, k := range series.order {
		p.Series = append(p.Series, *series.by[k])
	}
	return p, nil
}

// simPlotTitle says what the plot shows: the mean time in system against
// the x setting, with the values the other numeric settings hold fixed.
func simPlotTitle(xname string, c sim.Config, ns, ks []int, loads, ts []float64) string {
	what := map[string]string{"refresh": "the refresh period", "load": "the load", "servers": "the number of servers", "dispatchers": "the number of dispatchers"}[xname]
	var fixed []string
	if xname != "servers" && len(ns) == 1 {
		fixed = append(fixed, "N = "+strconv.Itoa(c.Servers))
	}
	if xname != "dispatchers" && len(ks) == 1 {
		fixed = append(fixed, "k = "+strconv.Itoa(c.Dispatchers))
	}
	if xname != "load" && len(loads) == 1 {
		fixed = append(fixed, "λ = "+fstr(c.Load))
	}
	if xname != "refresh" && len(ts) == 1 {
		if c.Refresh == 0 {
			fixed = append(fixed, "live board")
		} else {
			fixed = append(fixed, "T = "+fstr(c.Refresh))
		}
	}
	t := "Simulated mean time in system against " + what
	if len(fixed) > 0 {
		t += " (" + strings.Join(fixed, ", ") + ")"
	}
	return t
}

// simSeriesName names a series by its policy and the other list-valued
// settings.
func simSeriesName(c sim.Config, xname string, ns, ks []int, loads, ts []float64) string {
	parts := []string{PolicyName(c.Policy)}
	if c.Tally != sim.TallyNone {
		parts = append(parts, "tally "+c.Tally.String())
	}
	if xname != "servers" && len(ns) > 1 {
		parts = append(parts, "N="+strconv.Itoa(c.Servers))
	}
	if xname != "dispatchers" && len(ks) > 1 {
		parts = append(parts, "k="+strconv.Itoa(c.Dispatchers))
	}
	if xname != "load" && len(loads) > 1 {
		parts = append(parts, "λ="+fstr(c.Load))
	}
	if xname != "refresh" && len(ts) > 1 {
		parts = append(parts, "T="+fstr(c.Refresh))
	}
	if c.Sizes.Kind != fleet.Exp {
		parts = append(parts, c.Sizes.String())
	}
	if c.Start.Kind != fleet.StartEmpty {
		parts = append(parts, "start "+c.Start.String())
	}
	return strings.Join(parts, ", ")
}

// BallsPlot is herd balls' plot: the mean maximum load with its 95%
// interval against n on a log axis, one series per policy (and per
// FirstDiff rule, m and B when byRule, byBalls, byBatch say those vary),
// in row order. Its y axis is linear: the caller may choose a
// logarithmic one.
func BallsPlot(sums []sim.BallsSummary, byBalls, byBatch, byRule bool) *FigurePlot {
	var series keyedSeries
	for _, s := range sums {
		c := s.Config
		key := fleet.BallsPolicyName(c.Policy)
		if c.Policy.Kind == fleet.FirstDiff && (byRule || c.FirstDiffRule.PerBall) {
			key += " " + c.FirstDiffRule.String()
		}
		if byBalls {
			key += ", m=" + strconv.Itoa(c.Balls)
		}
		if byBatch {
			key += ", B=" + strconv.Itoa(c.Batch)
		}
		series.get(key, func() FigureSeries { return FigureSeries{Name: key} }).bar(float64(c.Bins), s.MaxLoad.Mean, s.MaxLoad.SE, s.MaxLoad.N)
	}
	p := &FigurePlot{
		Title:  "Maximum load of m balls in n bins (mean, 95% interval)",
		XLabel: "bins n",
		YLabel: "maximum load, mean with 95% interval (t, runs − 1)",
		LogX:   true,
	}
	for _, k := range series.order {
		p.Series = append(p.Series, *series.by[k])
	}
	return p
}

// BracketPlot is herd bracket's and herd scaling's plot: each bracket as a
// point at its midpoint with the bracket as its error bar, against N on a
// log axis, with the model's edge and, if fit is set, the fitted law
// edge(∞) + a·N^−β as lines.
func BracketPlot(results []BracketResult, fit *ScalingFit) *FigurePlot {
	full := FigureSeries{Name: "bracket (full runs)"}
	cut := FigureSeries{Name: "bracket (runs cut)"}
	model := FigureSeries{Name: "refresh map (N → ∞)", Line: true}
	for _, r := range results {
		n := float64(r.Settings.Servers)
		if !math.IsNaN(r.Lower) && !math.IsNaN(r.Upper) {
			full.X = append(full.X, n)
			full.Y = append(full.Y, (r.Lower+r.Upper)/2)
			full.YErr = append(full.YErr, (r.Upper-r.Lower)/2)
		}
		if !math.IsNaN(r.LowerCut) && !math.IsNaN(r.UpperCut) {
			cut.X = append(cut.X, n*1.06)
			cut.Y = append(cut.Y, (r.LowerCut+r.UpperCut)/2)
			cut.YErr = append(cut.YErr, (r.UpperCut-r.LowerCut)/2)
		}
		if !math.IsNaN(r.ModelScaled) {
			model.X = append(model.X, n)
			model.Y = append(model.Y, r.ModelScaled)
		}
	}
	p := &FigurePlot{
		Title:  "edge of the balanced state against N",
		XLabel: "servers N",
		YLabel: "T_edge (1−λ)² (bars: bracket; T_½: 95%)",
		LogX:   true,
		Series: []FigureSeries{full, cut, model},
	}
	if fit != nil && !math.IsNaN(fit.EdgeInf) && len(model.X) > 0 {
		law := FigureSeries{Name: fmt.Sprintf("fit %.3g + %.3g N^−%.2g", fit.EdgeInf, fit.A, fit.Beta), Line: true}
		lo, hi := model.X[0], model.X[len(model.X)-1]
		for i := 0; i <= 40; i++ {
			n := lo * math.Pow(hi/lo*4, float64(i)/40)
			law.X = append(law.X, n)
			law.Y = append(law.Y, fit.At(n))
		}
		p.Series = append(p.Series, law)
	}
	// T_½ fitted to all of each bracket's points, at 1.12·N, its bar the
	// larger half of its 95% interval (where the points bound both ends).
	half := FigureSeries{Name: "T_½, fit to all points (95%)", Kind: "bracket"}
	for _, r := range results {
		h := r.Half
		if !h.Bounded() {
			continue
		}
		half.X = append(half.X, 1.12*float64(r.Settings.Servers))
		half.Y = append(half.Y, h.Scaled)
		half.YErr = append(half.YErr, max(h.Upper-h.Scaled, h.Scaled-h.Lower))
	}
	if len(half.X) > 0 {
		p.Series = append(p.Series, half)
	}
	return p
}

// AddPrediction adds to a BracketPlot the finite-N edge predicted at each
// N (PredictScaling; herd scaling --predict): a line through the predicted
// edges, in increasing N, with each prediction's 95% interval as its bar
// (meanfield.FiniteEdge's intervals are symmetric; the bar is the larger
// half). The points sit at 0.94·N, beside the brackets' bars (the cut
// runs' sit at 1.06·N). A row without a prediction (NaN) breaks the line.
func AddPrediction(p *FigurePlot, rows []FiniteEdgeRow) {
	idx := make([]int, len(rows))
	for i := range idx {
		idx[i] = i
	}
	// Increasing N (insertion sort: a handful of rows, ties keep order).
	for i := 1; i < len(idx); i++ {
		for j := i; j > 0 && rows[idx[j]].Servers < rows[idx[j-1]].Servers; j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
	line := FigureSeries{Name: "prediction at N (particle runs), 95% interval", Line: true, Kind: "model"}
	for _, i := range idx {
		r := rows[i]
		line.X = append(line.X, 0.94*float64(r.Servers))
		line.Y = append(line.Y, r.Predicted)
		line.YErr = append(line.YErr, max(r.PredictedUpper-r.Predicted, r.Predicted-r.PredictedLower))
	}
	p.Series = append(p.Series, line)
}

// HysteresisPlot is herd hysteresis's plot: both branches against T on
// log axes, a model line and simulator points (of N = servers) per start
// state, in one colour per start, and the model's bistable range shaded.
// A model point that is an aperiodic herd's window average has a 95% bar
// over its batch means (FigureSeries.modelPoint).
func HysteresisPlot(h Hysteresis, servers int) *FigurePlot {
	p := &FigurePlot{
		Title:  "the trap door: balanced and herd branches",
		XLabel: "refresh period T (service times)",
		YLabel: "mean time in system (service times)",
		LogX:   true, LogY: true,
	}
	var lines, dots keyedSeries
	for _, r := range h.Rows {
		name := r.Start.String()
		line := lines.get(name, func() FigureSeries { return FigureSeries{Name: "model, start " + name, Line: true, Group: name} })
		dot := dots.get(name, func() FigureSeries {
			return FigureSeries{Name: fmt.Sprintf("simulator N = %d, start %s", servers, name), Group: name}
		})
		if r.HasModel && !math.IsNaN(r.Model.Response) && r.Model.Response > 0 {
			line.modelPoint(r.Refresh, r.Model.Response, r.Model.ResponseSE, r.Model.Batches, "")
		}
		if r.HasSim {
			dot.bar(r.Refresh, r.Sim.Response.Mean, r.Sim.Response.SE, r.Sim.Response.N)
		}
	}
	for _, n := range lines.order {
		for _, s := range []*FigureSeries{lines.by[n], dots.by[n]} {
			if len(s.X) > 0 {
				p.Series = append(p.Series, *s)
			}
		}
	}
	if b := h.Bistable; h.HasBistable && h.BistableErr == nil && !math.IsNaN(b.Low) && !math.IsNaN(b.High) {
		p.Bands = []FigureBand{{XMin: b.Low, XMax: b.High, Label: "bistable (model)"}}
	}
	return p
}
