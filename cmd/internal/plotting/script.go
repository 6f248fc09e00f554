package plotting

import (
	"math"
	"strings"
	"unicode"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// scriptText is the text handler of every figure: gonum/plot's plain text
// with real subscripts and superscripts. gonum/plot v0.17's LaTeX handler
// (text.Latex, on go-latex v0.2) cannot draw them ("unknown ast node
// *ast.Sub") and panics on characters such as −, ± and ≈, so herd draws
// scripts itself:
//
//   - X_{abc} and X^{abc}: abc as a subscript or superscript;
//   - X_abc, where X is a single letter starting a word and abc a run of
//     letters and digits: the same as X_{abc} (T_edge, E_100/M/1), while
//     snake_case words such as edge_scaled are left alone;
//   - X^123 and X^−1: a superscript of digits with an optional sign.
//
// Scripts are drawn at scriptScale of the font size, raised or lowered
// from the baseline.
type scriptText struct {
	plain text.Plain
}

var _ text.Handler = scriptText{}

const (
	scriptScale = 0.7
	supShift    = 0.4  // of the font size, up
	subShift    = 0.22 // of the font size, down
)

// newScriptText returns the handler on gonum/plot's default font cache.
func newScriptText() scriptText { return scriptText{plain: text.Plain{Fonts: font.DefaultCache}} }

// segment is a run of text on the baseline (level 0), raised (+1) or
// lowered (−1).
type segment struct {
	s     string
	level int
}

// segments splits one line into runs by level.
func segments(line string) []segment {
	var out []segment
	var cur strings.Builder
	r := []rune(line)
	for i := 0; i < len(r); i++ {
		if level, from, to, next, ok := scriptAt(r, i); ok {
			if cur.Len() > 0 {
				out = append(out, segment{cur.String(), 0})
				cur.Reset()
			}
			out = append(out, segment{string(r[from:to]), level})
			i = next - 1
			continue
		}
		cur.WriteRune(r[i])
	}
	if cur.Len() > 0 {
		out = append(out, segment{cur.String(), 0})
	}
	return out
}

// scriptAt reads a subscript or superscript whose mark (_ or ^) is r[i]:
// its level (−1 or 1), its text r[from:to], and the index after it; ok is
// false when r[i] starts none.
func scriptAt(r []rune, i int) (level, from, to, next int, ok bool) {
	c := r[i]
	if (c != '_' && c != '^') || i == 0 || i+1 >= len(r) {
		return 0, 0, 0, 0, false
	}
	level = -1
	if c == '^' {
		level = 1
	}
	// Explicit braces.
	if r[i+1] == '{' {
		if j := indexRune(r[i+2:], '}'); j >= 0 {
			return level, i + 2, i + 2 + j, i + 3 + j, true
		}
	}
	// Implicit: X_abc after a one-letter word; X^digits.
	j := i + 1
	if c == '_' && unicode.IsLetter(r[i-1]) && (i < 2 || !isWordRune(r[i-2])) {
		for j < len(r) && isWordRune(r[j]) {
			j++
		}
	}
	if c == '^' {
		j = superscriptEnd(r, i+1)
	}
	if j > i+1 {
		return level, i + 1, j, j, true
	}
	return 0, 0, 0, 0, false
}

// superscriptEnd is the end of an implicit superscript starting at j: an
// optional minus sign and at least one digit, else j itself (none).
func superscriptEnd(r []rune, j int) int {
	start := j
	if j < len(r) && (r[j] == '-' || r[j] == '−') {
		j++
	}
	k := j
	for k < len(r) && unicode.IsDigit(r[k]) {
		k++
	}
	if k == j {
		return start
	}
	return k
}

func isWordRune(c rune) bool { return unicode.IsLetter(c) || unicode.IsDigit(c) }

func indexRune(r []rune, c rune) int {
	for i, x := range r {
		if x == c {
			return i
		}
	}
	return -1
}

// Cache implements text.Handler.
func (h scriptText) Cache() *font.Cache { return h.plain.Fonts }

// Extents implements text.Handler.
func (h scriptText) Extents(fnt font.Font) font.Extents { return h.plain.Extents(fnt) }

// Lines implements text.Handler.
func (h scriptText) Lines(txt string) []string { return h.plain.Lines(txt) }

// scriptFont is fnt at script size.
func scriptFont(fnt font.Font) font.Font {
	fnt.Size *= scriptScale
	return fnt
}

// shift is how far a segment of the given level sits above the baseline.
func shift(level int, size vg.Length) vg.Length {
	switch level {
	case 1:
		return supShift * size
	case -1:
		return -subShift * size
	}
	return 0
}

// Box implements text.Handler: the width of all segments, the height and
// depth of the tallest and deepest.
func (h scriptText) Box(txt string, fnt font.Font) (width, height, depth vg.Length) {
	face := h.plain.Fonts.Lookup(fnt, fnt.Size)
	ext := face.Extents()
	height, depth = ext.Ascent, ext.Descent
	sf := scriptFont(fnt)
	sface := h.plain.Fonts.Lookup(sf, sf.Size)
	sext := sface.Extents()
	for _, sg := range segments(txt) {
		if sg.level == 0 {
			width += face.Width(sg.s)
			continue
		}
		width += sface.Width(sg.s)
		d := shift(sg.level, fnt.Size)
		height = max(height, d+sext.Ascent)
		depth = max(depth, sext.Descent-d)
	}
	return width, height, depth
}

// Draw implements text.Handler, placing text as text.Plain does and each
// segment at its level.
func (h scriptText) Draw(c vg.Canvas, txt string, sty text.Style, pt vg.Point) {
	txt = strings.TrimRight(txt, "\n")
	if len(txt) == 0 {
		return
	}
	face := h.plain.Fonts.Lookup(sty.Font, sty.Font.Size)
	sf := scriptFont(sty.Font)
	sface := h.plain.Fonts.Lookup(sf, sf.Size)
	c.SetColor(sty.Color)
	if sty.Rotation != 0 {
		c.Push()
		c.Rotate(sty.Rotation)
	}
	sin64, cos64 := math.Sincos(sty.Rotation)
	cos, sin := vg.Length(cos64), vg.Length(sin64)
	pt.X, pt.Y = pt.Y*sin+pt.X*cos, pt.Y*cos-pt.X*sin

	lines := h.Lines(txt)
	ht := sty.Height(txt)
	pt.Y += ht*vg.Length(sty.YAlign) - face.Extents().Ascent
	for i, line := range lines {
		w, _, _ := h.Box(line, sty.Font)
		x := pt.X + vg.Length(sty.XAlign)*w
		y := pt.Y + vg.Length(len(lines)-i)*sty.Font.Size
		for _, sg := range segments(line) {
			f := face
			if sg.level != 0 {
				f = sface
			}
			c.FillString(f, vg.Point{X: x, Y: y + shift(sg.level, sty.Font.Size)}, sg.s)
			x += f.Width(sg.s)
		}
	}
	if sty.Rotation != 0 {
		c.Pop()
	}
}
