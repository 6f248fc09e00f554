package plotting

import (
	"image/color"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// palette is the fixed series palette: Okabe and Ito's colour-blind-safe
// colours, most distinct first, yellow (hard to see on white) last. Series
// (or groups) beyond its length wrap around.
var palette = []color.Color{
	color.RGBA{R: 0x00, G: 0x72, B: 0xB2, A: 0xFF}, // blue
	color.RGBA{R: 0xD5, G: 0x5E, B: 0x00, A: 0xFF}, // vermillion
	color.RGBA{R: 0x00, G: 0x9E, B: 0x73, A: 0xFF}, // bluish green
	color.RGBA{R: 0xCC, G: 0x79, B: 0xA7, A: 0xFF}, // reddish purple
	color.RGBA{R: 0xE6, G: 0x9F, B: 0x00, A: 0xFF}, // orange
	color.RGBA{R: 0x56, G: 0xB4, B: 0xE9, A: 0xFF}, // sky blue
	color.RGBA{R: 0x00, G: 0x00, B: 0x00, A: 0xFF}, // black
	color.RGBA{R: 0xF0, G: 0xE4, B: 0x42, A: 0xFF}, // yellow
}

// glyphs are the marker shapes of point series, in order.
var glyphs = []draw.GlyphDrawer{
	draw.CircleGlyph{},
	draw.SquareGlyph{},
	draw.TriangleGlyph{},
	draw.CrossGlyph{},
	draw.RingGlyph{},
	draw.BoxGlyph{},
	draw.PyramidGlyph{},
	draw.PlusGlyph{},
}

// bandColor fills bands: a light translucent grey, so that overlapping
// bands read darker and the data drawn on top stays visible.
var bandColor = color.NRGBA{R: 0x80, G: 0x80, B: 0x80, A: 0x40}

// Font sizes in points, for a figure of DefaultWidth × DefaultHeight
// inches printed at its size.
const (
	titleSize  = 11
	labelSize  = 10
	tickSize   = 9
	legendFont = 9
)

const (
	lineWidth   = vg.Length(1.5) // points
	glyphRadius = vg.Length(2.5) // points
	errBarWidth = vg.Length(0.8) // points
	legendInset = vg.Length(6)   // points between the legend and the side
)

// colorIndexes assigns each series a palette index: series with the same
// non-empty Group share the index of the group's first series; every other
// series takes the next index.
func colorIndexes(series []Series) []int {
	idx := make([]int, len(series))
	groups := make(map[string]int) // looked up only, never iterated
	next := 0
	for i, s := range series {
		if s.Group != "" {
			if k, ok := groups[s.Group]; ok {
				idx[i] = k
				continue
			}
			groups[s.Group] = next
		}
		idx[i] = next
		next++
	}
	return idx
}
