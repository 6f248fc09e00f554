package plotting

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// bandPlotter shades [xmin, xmax] across the whole height of the data
// area. It widens the X range to show the whole band and leaves the Y
// range to the data.
type bandPlotter struct {
	xmin, xmax float64
	color      color.Color
}

var (
	_ plot.Plotter     = (*bandPlotter)(nil)
	_ plot.DataRanger  = (*bandPlotter)(nil)
	_ plot.Thumbnailer = (*bandPlotter)(nil)
)

// Plot implements plot.Plotter.
func (b *bandPlotter) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	x0 := max(trX(b.xmin), c.Min.X)
	x1 := min(trX(b.xmax), c.Max.X)
	if x1 <= x0 {
		return
	}
	c.SetColor(b.color)
	c.Fill(rect(x0, c.Min.Y, x1, c.Max.Y))
}

// DataRange implements plot.DataRanger. The empty Y range (+Inf, -Inf)
// leaves the plot's Y range to the data.
func (b *bandPlotter) DataRange() (xmin, xmax, ymin, ymax float64) {
	return b.xmin, b.xmax, math.Inf(1), math.Inf(-1)
}

// Thumbnail implements plot.Thumbnailer: a filled swatch.
func (b *bandPlotter) Thumbnail(c *draw.Canvas) {
	c.SetColor(b.color)
	c.Fill(rect(c.Min.X, c.Min.Y, c.Max.X, c.Max.Y))
}

func rect(x0, y0, x1, y1 vg.Length) vg.Path {
	var p vg.Path
	p.Move(vg.Point{X: x0, Y: y0})
	p.Line(vg.Point{X: x1, Y: y0})
	p.Line(vg.Point{X: x1, Y: y1})
	p.Line(vg.Point{X: x0, Y: y1})
	p.Close()
	return p
}
