package plotting

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// legendSize is the width and height of p's legend, as plot.Legend draws
// it (its Rectangle method computes the same size but misplaces the box).
func legendSize(l *plot.Legend, names []string) (w, h vg.Length) {
	sty := l.TextStyle
	var enth vg.Length
	for _, n := range names {
		enth = max(enth, sty.Rectangle(n).Size().Y)
	}
	for i, n := range names {
		w = max(w, l.ThumbnailWidth+sty.Rectangle(" "+n).Max.X)
		h += enth
		if i > 0 {
			h += l.Padding
		}
	}
	return w, h
}

// corner is one place for the legend inside the data area.
type corner struct{ top, left bool }

// corners in order of preference: the top right first, as readers look
// for it there.
var corners = []corner{{true, false}, {true, true}, {false, false}, {false, true}}

// placeLegend chooses where b's legend goes when drawn on c: the first
// corner of the data area whose box (legend plus a margin) no marker,
// error bar or line enters; if every corner is covered, outside, to the
// right of the plot (outside is then true and width the strip it needs).
func placeLegend(b *built, c draw.Canvas, names []string) (outside bool, width vg.Length) {
	p := b.p
	lw, lh := legendSize(&p.Legend, names)
	dac := p.DataCanvas(c)
	margin := legendInset
	trX, trY := p.Transforms(&dac)
	tr := func(xy plotter.XY) vg.Point { return vg.Point{X: trX(xy.X), Y: trY(xy.Y)} }
	var ink []vg.Point
	for _, xy := range b.points {
		ink = append(ink, tr(xy))
	}
	for _, line := range b.lines {
		for i := 1; i < len(line); i++ {
			a, z := tr(line[i-1]), tr(line[i])
			// Sample the drawn segment every 2 points.
			n := int(math.Ceil(math.Hypot(float64(z.X-a.X), float64(z.Y-a.Y)) / 2))
			for j := 0; j <= n; j++ {
				f := vg.Length(j) / vg.Length(max(n, 1))
				ink = append(ink, vg.Point{X: a.X + f*(z.X-a.X), Y: a.Y + f*(z.Y-a.Y)})
			}
		}
	}
	for _, k := range corners {
		var r vg.Rectangle
		if k.left {
			r.Min.X = dac.Min.X
		} else {
			r.Min.X = dac.Max.X - lw - 2*margin
		}
		if k.top {
			r.Min.Y = dac.Max.Y - lh - 2*margin
		} else {
			r.Min.Y = dac.Min.Y
		}
		r.Max = vg.Point{X: r.Min.X + lw + 2*margin, Y: r.Min.Y + lh + 2*margin}
		clear := true
		for _, pt := range ink {
			if pt.X >= r.Min.X-glyphRadius && pt.X <= r.Max.X+glyphRadius && pt.Y >= r.Min.Y-glyphRadius && pt.Y <= r.Max.Y+glyphRadius {
				clear = false
				break
			}
		}
		if clear {
			p.Legend.Top, p.Legend.Left = k.top, k.left
			p.Legend.XOffs, p.Legend.YOffs = margin, -margin
			if !k.left {
				p.Legend.XOffs = -margin
			}
			if !k.top {
				p.Legend.YOffs = margin
			}
			return false, 0
		}
	}
	return true, lw + 3*margin
}

// drawPlot draws b on c with its legend placed by placeLegend: inside the
// data area, or in a strip to the right of it. Axis labels are drawn here
// rather than by gonum/plot (see axisLabels).
func drawPlot(b *built, c draw.Canvas, names []string) {
	p := b.p
	saved, restore := axisLabels(p)
	defer restore()
	if !b.legend {
		p.Draw(c)
		drawAxisLabels(p, c, saved)
		return
	}
	outside, width := placeLegend(b, c, names)
	if !outside {
		p.Draw(c)
		drawAxisLabels(p, c, saved)
		return
	}
	leg := p.Legend
	p.Legend = plot.NewLegend()
	left := draw.Crop(c, 0, -width, 0, 0)
	p.Draw(left)
	drawAxisLabels(p, left, saved)
	dac := p.DataCanvas(left)
	strip := draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{
		Min: vg.Point{X: c.Max.X - width + legendInset, Y: dac.Min.Y},
		Max: vg.Point{X: c.Max.X, Y: dac.Max.Y},
	}}
	leg.Top, leg.Left = true, true
	leg.XOffs, leg.YOffs = 0, 0
	leg.Draw(strip)
	p.Legend = leg
}

// axisLabel is an axis label taken out of gonum/plot's hands.
type axisLabel struct {
	text string
	sty  text.Style
}

// transparent hides the placeholder labels.
var transparent = color.NRGBA{}

// axisLabels replaces p's axis labels by invisible placeholders of the same
// height and returns a function that puts them back. gonum/plot v0.17
// places a centred axis label's glyph box at Norm((min+max)/2), which on a
// log axis is near the far end, so a long label shrinks the data area (the
// empty band above figures with a log Y axis); a placeholder one space wide
// reserves the label's room without that. drawAxisLabels draws the real
// labels where gonum/plot would have.
func axisLabels(p *plot.Plot) (saved [2]axisLabel, restore func()) {
	saved = [2]axisLabel{{p.X.Label.Text, p.X.Label.TextStyle}, {p.Y.Label.Text, p.Y.Label.TextStyle}}
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		if a.Label.Text == "" {
			continue
		}
		ph := " "
		for _, sg := range segments(a.Label.Text) {
			if sg.level < 0 {
				ph += "_{ }"
			} else if sg.level > 0 {
				ph += "^{ }"
			}
		}
		a.Label.Text = ph
		a.Label.TextStyle.Color = transparent
	}
	return saved, func() {
		p.X.Label.Text, p.X.Label.TextStyle = saved[0].text, saved[0].sty
		p.Y.Label.Text, p.Y.Label.TextStyle = saved[1].text, saved[1].sty
	}
}

// drawAxisLabels draws p's real axis labels on c (the canvas p was drawn
// on) where gonum/plot draws them: the X label centred under the data
// area on the bottom edge, the Y label rotated, centred beside it on the
// left edge.
func drawAxisLabels(p *plot.Plot, c draw.Canvas, saved [2]axisLabel) {
	dac := p.DataCanvas(c)
	if x := saved[0]; x.text != "" {
		descent := x.sty.FontExtents().Descent
		c.FillText(x.sty, vg.Point{X: dac.Center().X, Y: c.Min.Y + descent}, x.text)
	}
	if y := saved[1]; y.text != "" {
		sty := y.sty
		sty.Rotation += math.Pi / 2
		descent := y.sty.FontExtents().Descent
		c.FillText(sty, vg.Point{X: c.Min.X + p.Y.Label.TextStyle.Height(p.Y.Label.Text) - descent, Y: dac.Center().Y}, y.text)
	}
}
