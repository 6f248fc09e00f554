package plotting

import (
	"fmt"
	"image/color"
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
			if s.YErr != nil && finite(s.YErr[i]) && s.Y[i]-s.YErr[i] > 0 {
				lo = min(lo, s.Y[i]-s.YErr[i])
			}
		}
	}
	return lo / 2
}

// built is a plot ready to draw and what its legend must not cover.
type built struct {
	p      *plot.Plot
	points []plotter.XY   // markers and error-bar ends, in data coordinates
	lines  [][]plotter.XY // drawn polylines, in data coordinates
	legend bool           // the plot has legend entries
}

// padFraction is the margin added on each side of the data range, as a
// fraction of the range (of its logarithm on a log axis), so that markers,
// error bars and lines never touch the frame.
const padFraction = 0.05

// build turns fig into a gonum plot. Plotters are added bands first (so
// they lie underneath), then the series in order; legend entries follow
// the order of the series, then the labelled bands. Every text uses the
// script handler (subscripts and superscripts, see scriptText); ticks use
// one number format (tickLabel). The legend is placed when the plot is
// drawn (see placeLegend).
func build(fig Figure) (*built, error) {
	if err := fig.check(); err != nil {
		return nil, err
	}
	p := newPlot(fig)
	sb := &seriesBuilder{fig: fig, b: &built{p: p}, floor: fig.logFloor()}
	colors := colorIndexes(fig.Series)
	for k, s := range fig.Series {
		col := palette[colors[k]%len(palette)]
		runs := fig.pieces(s)
		if len(runs) == 0 {
			continue
		}
		var err error
		if s.Line {
			err = sb.addLine(s, runs, col)
		} else {
			err = sb.addPoints(s, runs, col)
		}
		if err != nil {
			return nil, err
		}
	}
	if sb.npoints == 0 {
		if fig.LogX || fig.LogY {
			return nil, fmt.Errorf("%w: no finite point (values that are not positive are dropped on a log axis)", ErrEmpty)
		}
		return nil, fmt.Errorf("%w: no finite point", ErrEmpty)
	}
	sb.addBands() // underneath the series: added first
	p.Add(sb.plotters...)
	for _, e := range sb.legend {
		if e.name != "" {
			p.Legend.Add(e.name, e.thumb)
			sb.b.legend = true
		}
	}
	widenLog(&p.X, fig.LogX)
	widenLog(&p.Y, fig.LogY)
	pad(&p.X, fig.LogX)
	pad(&p.Y, fig.LogY)
	return sb.b, nil
}

// newPlot is an empty plot with fig's title, labels, scales and the
// house style's text (the script handler) and ticks.
func newPlot(fig Figure) *plot.Plot {
	p := plot.New()
	h := newScriptText()
	p.TextHandler = h
	p.Title.TextStyle.Handler = h
	p.Legend.TextStyle.Handler = h
	p.Title.TextStyle.Font.Size = titleSize
	p.Legend.TextStyle.Font.Size = legendFont
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Handler = h
		a.Label.TextStyle.Font.Size = labelSize
		a.Tick.Label.Handler = h
		a.Tick.Label.Font.Size = tickSize
		a.Tick.Marker = linearTicks{}
		a.Padding = 0 // the data range is padded instead (pad), so the axes meet
	}
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
	return p
}

// legendEntry is one legend line: a name and its thumbnail.
type legendEntry struct {
	name  string
	thumb plot.Thumbnailer
}

// seriesBuilder gathers the plotters and legend entries of a figure's
// series and bands, in order.
type seriesBuilder struct {
	fig      Figure
	b        *built
	floor    float64 // where a log Y axis cuts error bars (logFloor)
	legend   []legendEntry
	plotters []plot.Plotter
	npoints  int
	glyph    int // the next point series' glyph
}

// addLine adds a line series: one polyline per run of drawable points, a
// dot for a run of one, and the error bars of the points that have one
// (a model's long-run average with its standard error).
func (sb *seriesBuilder) addLine(s Series, runs []plotter.XYs, col color.Color) error {
	if err := sb.addBars(s, col); err != nil {
		return err
	}
	var first *plotter.Line
	for _, r := range runs {
		sb.npoints += len(r)
		l, err := plotter.NewLine(r)
		if err != nil {
			return fmt.Errorf("plotting: series %q: %w", s.Name, err)
		}
		l.Color = col
		l.Width = lineWidth
		sb.plotters = append(sb.plotters, l)
		sb.b.lines = append(sb.b.lines, r)
		if first == nil {
			first = l
		}
		if len(r) == 1 {
			// A value between two gaps draws no line: mark it with a
			// dot as wide as the line, so that it is not lost.
			dot, err := plotter.NewScatter(r)
			if err != nil {
				return fmt.Errorf("plotting: series %q: %w", s.Name, err)
			}
			dot.GlyphStyle = draw.GlyphStyle{Color: col, Radius: lineWidth, Shape: draw.CircleGlyph{}}
			sb.plotters = append(sb.plotters, dot)
			sb.b.points = append(sb.b.points, r...)
		}
	}
	sb.legend = append(sb.legend, legendEntry{s.Name, first})
	return nil
}

// addPoints adds a point series: markers, under them its error bars.
func (sb *seriesBuilder) addPoints(s Series, runs []plotter.XYs, col color.Color) error {
	var pts plotter.XYs
	for _, r := range runs {
		pts = append(pts, r...)
	}
	sb.npoints += len(pts)
	sb.b.points = append(sb.b.points, pts...)
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return fmt.Errorf("plotting: series %q: %w", s.Name, err)
	}
	sc.GlyphStyle = draw.GlyphStyle{Color: col, Radius: glyphRadius, Shape: glyphs[sb.glyph%len(glyphs)]}
	sb.glyph++
	if err := sb.addBars(s, col); err != nil {
		return err
	}
	sb.plotters = append(sb.plotters, sc)
	sb.legend = append(sb.legend, legendEntry{s.Name, sc})
	return nil
}

// addBars adds a series' drawable error bars (errorBars), if it has any,
// in its colour: under the markers or the line added after them.
func (sb *seriesBuilder) addBars(s Series, col color.Color) error {
	bars := sb.fig.errorBars(s, sb.floor)
	if len(bars) == 0 {
		return nil
	}
	eb, err := plotter.NewYErrorBars(bars)
	if err != nil {
		return fmt.Errorf("plotting: series %q: %w", s.Name, err)
	}
	eb.Color = col
	eb.Width = errBarWidth
	sb.plotters = append(sb.plotters, eb)
	for _, e := range bars {
		lo, hi := plotter.XY{X: e.X, Y: e.Y - e.Low}, plotter.XY{X: e.X, Y: e.Y + e.High}
		sb.b.points = append(sb.b.points, lo, hi)
		sb.b.lines = append(sb.b.lines, []plotter.XY{lo, hi})
	}
	return nil
}

// addBands adds the shaded x ranges to the plot itself (so that they lie
// under the series, added after) and their labels to the legend.
func (sb *seriesBuilder) addBands() {
	fig := sb.fig
	for _, bd := range fig.Bands {
		lo, hi := min(bd.XMin, bd.XMax), max(bd.XMin, bd.XMax)
		if !finite(lo) || !finite(hi) || (fig.LogX && hi <= 0) {
			continue
		}
		if fig.LogX && lo <= 0 {
			// The band runs off the left of a log axis: start it at the
			// smallest X drawn (or at hi, if that is smaller).
			lo = min(hi, minX(fig))
		}
		bp := &bandPlotter{xmin: lo, xmax: hi, color: bandColor}
		sb.b.p.Add(bp)
		if bd.Label != "" {
			sb.legend = append(sb.legend, legendEntry{bd.Label, bp})
		}
	}
}

// pad widens an axis by padFraction of its range on each side (of the
// range of log10 on a log axis). Where that would leave the finite (or, on
// a log axis, the positive) numbers, that end is left as it was.
func pad(a *plot.Axis, log bool) {
	if log {
		if !(a.Min > 0 && a.Max > 0) {
			return
		}
		lo, hi := math.Log10(a.Min), math.Log10(a.Max)
		d := (hi - lo) * padFraction
		if v := math.Pow(10, lo-d); v > 0 {
			a.Min = v
		}
		if v := math.Pow(10, hi+d); finite(v) {
			a.Max = v
		}
		return
	}
	d := (a.Max - a.Min) * padFraction
	if d == 0 {
		d = max(math.Abs(a.Max)*padFraction, 0.5)
	}
	if v := a.Min - d; finite(v) {
		a.Min = v
	}
	if v := a.Max + d; finite(v) {
		a.Max = v
	}
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
