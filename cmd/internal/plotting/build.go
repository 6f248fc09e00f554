package plotting

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg/draw"
)

// finite reports whether v is neither NaN nor ±Inf.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// drawable reports whether (x, y) can be drawn on fig's axes.
func (fig *Figure) drawable(x, y float64) bool {
	return finite(x) && finite(y) && (!fig.LogX || x > 0) && (!fig.LogY || y > 0)
}

// check validates the lengths of every series.
func (fig *Figure) check() error {
	for _, s := range fig.Series {
		if len(s.X) != len(s.Y) {
			return fmt.Errorf("plotting: series %q has %d x values and %d y values", s.Name, len(s.X), len(s.Y))
		}
		if s.YErr != nil && len(s.YErr) != len(s.Y) {
			return fmt.Errorf("plotting: series %q has %d error bars for %d points", s.Name, len(s.YErr), len(s.Y))
		}
	}
	return nil
}

// pieces splits a series into runs of consecutive drawable points: a line
// is broken, not joined, where a point is skipped.
func (fig *Figure) pieces(s Series) []plotter.XYs {
	var out []plotter.XYs
	var cur plotter.XYs
	for i := range s.X {
		if !fig.drawable(s.X[i], s.Y[i]) {
			if len(cur) > 0 {
				out = append(out, cur)
				cur = nil
			}
			continue
		}
		cur = append(cur, plotter.XY{X: s.X[i], Y: s.Y[i]})
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// errPoint is one point with its error bar (Low, High relative to Y).
type errPoint struct {
	plotter.XY
	Low, High float64
}

// errPoints is a plotter.XYer and plotter.YErrorer.
type errPoints []errPoint

func (e errPoints) Len() int                        { return len(e) }
func (e errPoints) XY(i int) (float64, float64)     { return e[i].X, e[i].Y }
func (e errPoints) YError(i int) (float64, float64) { return e[i].Low, e[i].High }

// errorBars returns the drawable error bars of a point series. On a log Y
// axis a bar whose lower end would be at or below zero is cut at floor.
func (fig *Figure) errorBars(s Series, floor float64) errPoints {
	var out errPoints
	for i, e := range s.YErr {
		x, y := s.X[i], s.Y[i]
		if !fig.drawable(x, y) || !finite(e) || e <= 0 || !finite(y+e) {
			continue
		}
		low := e
		if fig.LogY && y-e <= 0 {
			low = max(y-floor, 0)
		}
		out = append(out, errPoint{XY: plotter.XY{X: x, Y: y}, Low: low, High: e})
	}
	return out
}

// logFloor returns where a log Y axis cuts error bars that reach zero:
// half the smallest positive value drawn (points and the lower ends of the
// bars that stay positive).
func (fig *Figure) logFloor() float64 {
	lo := math.Inf(1)
	for _, s := range fig.Series {
		for i := range s.X {
			if !fig.drawable(s.X[i], s.Y[i]) {
				continue
			}
			lo = min(lo, s.Y[i])
			if !s.Line && s.YErr != nil && finite(s.YErr[i]) && s.Y[i]-s.YErr[i] > 0 {
				lo = min(lo, s.Y[i]-s.YErr[i])
			}
		}
	}
	return lo / 2
}

// build turns fig into a gonum plot. Plotters are added bands first (so
// they lie underneath), then the series in order; legend entries follow
// the order of the series, then the labelled bands.
func build(fig Figure) (*plot.Plot, error) {
	if err := fig.check(); err != nil {
		return nil, err
	}
	p := plot.New()
	p.Title.Text = fig.Title
	p.X.Label.Text = fig.XLabel
	p.Y.Label.Text = fig.YLabel
	p.Legend.Top = true
	if fig.LogX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = logTicks{}
	}
	if fig.LogY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = logTicks{}
	}

	colors := colorIndexes(fig.Series)
	floor := fig.logFloor()
	type entry struct {
		name  string
		thumb plot.Thumbnailer
	}
	var legend []entry
	var plotters []plot.Plotter
	npoints, glyph := 0, 0
	for k, s := range fig.Series {
		col := palette[colors[k]%len(palette)]
		runs := fig.pieces(s)
		if len(runs) == 0 {
			continue
		}
		if s.Line {
			var first *plotter.Line
			for _, r := range runs {
				npoints += len(r)
				l, err := plotter.NewLine(r)
				if err != nil {
					return nil, fmt.Errorf("plotting: series %q: %w", s.Name, err)
				}
				l.Color = col
				l.Width = lineWidth
				plotters = append(plotters, l)
				if first == nil {
					first = l
				}
			}
			legend = append(legend, entry{s.Name, first})
			continue
		}
		var pts plotter.XYs
		for _, r := range runs {
			pts = append(pts, r...)
		}
		npoints += len(pts)
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, fmt.Errorf("plotting: series %q: %w", s.Name, err)
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: col, Radius: glyphRadius, Shape: glyphs[glyph%len(glyphs)]}
		glyph++
		if bars := fig.errorBars(s, floor); len(bars) > 0 {
			eb, err := plotter.NewYErrorBars(bars)
			if err != nil {
				return nil, fmt.Errorf("plotting: series %q: %w", s.Name, err)
			}
			eb.Color = col
			eb.Width = errBarWidth
			plotters = append(plotters, eb)
		}
		plotters = append(plotters, sc)
		legend = append(legend, entry{s.Name, sc})
	}
	if npoints == 0 {
		if fig.LogX || fig.LogY {
			return nil, fmt.Errorf("%w: no finite point (values that are not positive are dropped on a log axis)", ErrEmpty)
		}
		return nil, fmt.Errorf("%w: no finite point", ErrEmpty)
	}

	// Bands go underneath the series: add them first.
	for _, b := range fig.Bands {
		lo, hi := min(b.XMin, b.XMax), max(b.XMin, b.XMax)
		if !finite(lo) || !finite(hi) || (fig.LogX && hi <= 0) {
			continue
		}
		if fig.LogX && lo <= 0 {
			// The band runs off the left of a log axis: start it at the
			// smallest X drawn (or at hi, if that is smaller).
			lo = min(hi, minX(fig))
		}
		bp := &bandPlotter{xmin: lo, xmax: hi, color: bandColor}
		p.Add(bp)
		if b.Label != "" {
			legend = append(legend, entry{b.Label, bp})
		}
	}
	p.Add(plotters...)
	for _, e := range legend {
		if e.name != "" {
			p.Legend.Add(e.name, e.thumb)
		}
	}
	widenLog(&p.X, fig.LogX)
	widenLog(&p.Y, fig.LogY)
	p.Legend.Left = fig.legendLeft(p)
	p.Legend.XOffs = legendInset // clear of the Y axis on the left
	if !p.Legend.Left {
		p.Legend.XOffs = -legendInset // and of the frame edge on the right
	}
	return p, nil
}

// legendLeft chooses the top corner for the legend: the left one when it
// holds fewer drawn points than the right one (rising curves leave the top
// left empty; falling tails, the top right). Each corner is the outer 40%
// of the data area across and the top 40% down.
func (fig *Figure) legendLeft(p *plot.Plot) bool {
	if !(p.X.Min < p.X.Max && p.Y.Min < p.Y.Max) {
		return false
	}
	left, right := 0, 0
	for _, s := range fig.Series {
		for i := range s.X {
			if !fig.drawable(s.X[i], s.Y[i]) {
				continue
			}
			if p.Y.Norm(s.Y[i]) < 0.6 {
				continue
			}
			switch x := p.X.Norm(s.X[i]); {
			case x <= 0.4:
				left++
			case x >= 0.6:
				right++
			}
		}
	}
	return left < right
}

// minX returns the smallest drawable X of fig.
func minX(fig Figure) float64 {
	lo := math.Inf(1)
	for _, s := range fig.Series {
		for i := range s.X {
			if fig.drawable(s.X[i], s.Y[i]) {
				lo = min(lo, s.X[i])
			}
		}
	}
	return lo
}

// widenLog gives a log axis with a single value a range of one decade
// around it; plot's own fix (min-1, max+1) could reach zero or below.
func widenLog(a *plot.Axis, log bool) {
	if log && a.Min == a.Max {
		a.Min /= math.Sqrt(10)
		a.Max *= math.Sqrt(10)
	}
}
