package plotting

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"strings"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgeps"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"

	"herd/compare/atomicfile"
)

// Series is one named curve or set of points.
type Series struct {
	Name string
	X, Y []float64

	// YErr, if not nil, holds symmetric error bars, one per point (the same
	// length as Y), drawn for point series and line series alike (a line's
	// point with a standard error: a model's long-run average); NaN, ±Inf
	// and non-positive entries mean "no bar".
	YErr []float64

	// Line draws the series as a line without markers (a model curve);
	// false draws markers (simulator points). Either has error bars where
	// YErr gives one.
	// A line is broken where a point is skipped, never joined across it;
	// a point left alone between two breaks is drawn as a dot.
	Line bool

	// Group, if not empty, gives every series with the same Group the same
	// colour (the colour of the group's first series), so a model curve and
	// the simulator points it predicts can be matched by eye. Series with an
	// empty Group each get their own colour.
	Group string
}

// Band is a shaded vertical band across the whole Y range, e.g. the range
// of load over which a model is bistable.
type Band struct {
	XMin, XMax float64
	Label      string // legend entry; empty means none
}

// Figure is one plot.
type Figure struct {
	Title, XLabel, YLabel string
	LogX, LogY            bool
	Series                []Series
	Bands                 []Band
	Width, Height         float64 // inches; zero means 6 wide, 4 high
}

// Default figure size in inches, the one size of every herd figure, and
// the resolution of PNG files.
const (
	DefaultWidth  = 6
	DefaultHeight = 4
	PNGDPI        = 300
)

// ErrEmpty is returned (wrapped) by Save for a figure with no point that
// can be drawn.
var ErrEmpty = errors.New("plotting: nothing to plot")

// Save draws fig and writes it to path, in the format given by the path's
// extension: .png (at PNGDPI), .svg, .pdf (one page, its dates fixed so
// that the same figure gives the same bytes) or .eps (any case). The file is written to a temporary
// file in the same directory and renamed into place, so path is either
// left as it was or holds the whole new plot.
//
// NaN and ±Inf points are skipped; on a log axis, points whose coordinate
// is not positive are skipped too. A figure with no point left returns an
// error wrapping ErrEmpty. Series with len(X) != len(Y), or a YErr whose
// length differs from len(Y), are an error.
func Save(fig Figure, path string) error {
	format, err := formatOf(path)
	if err != nil {
		return err
	}
	b, err := render(fig, format)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(path, b); err != nil {
		return fmt.Errorf("plotting: %w", err)
	}
	return nil
}

// formatOf returns the gonum/plot format name for path's extension.
func formatOf(path string) (string, error) {
	switch ext := strings.ToLower(filepath.Ext(path)); ext {
	case ".png", ".svg", ".pdf", ".eps":
		return ext[1:], nil
	}
	return "", fmt.Errorf("plot file %q: want .png, .svg, .pdf or .eps", path)
}

// SpansDecades reports whether the positive finite values in v span at
// least 1.5 decades (max/min >= 10^1.5 ≈ 31.6): the rule by which callers
// choose a logarithmic axis. Non-positive, NaN and ±Inf values are ignored.
func SpansDecades(v []float64) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range v {
		if x > 0 && !math.IsInf(x, 1) {
			lo, hi = min(lo, x), max(hi, x)
		}
	}
	if !(lo <= hi) {
		return false
	}
	// Compare logarithms: hi/lo may overflow.
	return math.Log10(hi)-math.Log10(lo) >= 1.5
}

// render draws fig in the given format ("png", "svg", "pdf" or "eps") and
// returns the encoded bytes. PNG is drawn at PNGDPI dots per inch.
func render(fig Figure, format string) ([]byte, error) {
	w, h := fig.Width, fig.Height
	if w == 0 {
		w = DefaultWidth
	}
	if h == 0 {
		h = DefaultHeight
	}
	if !(w > 0 && h > 0) || math.IsInf(w, 0) || math.IsInf(h, 0) {
		return nil, fmt.Errorf("plotting: figure size %gx%g inches: want positive", fig.Width, fig.Height)
	}
	if format == "pdf" || format == "eps" {
		fig = fig.ascii()
	}
	b, err := build(fig)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, s := range fig.Series {
		if s.Name != "" && len(fig.pieces(s)) > 0 {
			names = append(names, s.Name)
		}
	}
	for _, bd := range fig.Bands {
		if bd.Label != "" {
			names = append(names, bd.Label)
		}
	}
	W, H := vg.Length(w)*vg.Inch, vg.Length(h)*vg.Inch
	var c interface {
		vg.CanvasSizer
		io.WriterTo
	}
	switch format {
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(W, H), vgimg.UseDPI(PNGDPI))}
	case "svg":
		c = vgsvg.New(W, H)
	case "pdf":
		c = vgpdf.New(W, H)
	case "eps":
		c = vgeps.New(W, H)
	default:
		return nil, fmt.Errorf("plotting: format %q: want png, svg, pdf or eps", format)
	}
	drawPlot(b, draw.New(c), names)
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("plotting: %w", err)
	}
	switch format {
	case "eps":
		return fixEPS(buf.Bytes()), nil
	case "pdf":
		return fixPDF(buf.Bytes()), nil
	}
	return buf.Bytes(), nil
}

// pdfDate matches the /CreationDate and /ModDate entries that vgpdf's
// writer (go-pdf/fpdf) sets to the time of writing: "(D:" and 14 digits,
// YYYYMMDDHHmmSS.
var pdfDate = regexp.MustCompile(`/(CreationDate|ModDate) \(D:[0-9]{14}\)`)

// fixPDF sets a PDF's creation and modification dates to the Unix epoch,
// D:19700101000000 (as reproducible builds do without SOURCE_DATE_EPOCH),
// so that the same figure gives the same bytes. The replacement has the
// same length, so the cross-reference table's byte offsets stay right.
func fixPDF(b []byte) []byte {
	return pdfDate.ReplaceAllFunc(b, func(m []byte) []byte {
		name := m[:bytes.IndexByte(m, ' ')]
		return append(append([]byte{}, name...), " (D:19700101000000)"...)
	})
}

// creationDate matches vgeps's %%CreationDate comment line.
var creationDate = regexp.MustCompile(`(?m)^%%CreationDate: .*\n`)

// fixEPS repairs gonum/plot v0.17's EPS header, which starts "%%!PS-Adobe"
// (a literal written where a format string was meant; EPS readers want
// "%!PS-Adobe") and lacks the colon of "%%Creator:", and drops the
// creation date, so that the same figure gives the same bytes.
func fixEPS(b []byte) []byte {
	b = bytes.Replace(b, []byte("%%!PS-Adobe"), []byte("%!PS-Adobe"), 1)
	b = bytes.Replace(b, []byte("%%Creator "), []byte("%%Creator: "), 1)
	return creationDate.ReplaceAll(b, nil)
}

// asciiText spells the non-ASCII characters herd's figure texts use in
// ASCII, for the PDF and EPS writers, whose fonts encode Latin-1 or
// cp1252 only and print a UTF-8 λ as "Î»" (gonum/plot's vgpdf has no
// Unicode text). Any other non-ASCII character becomes "?".
var asciiText = strings.NewReplacer(
	"λ", "lambda", "Λ", "Lambda", "μ", "mu", "σ", "sigma", "β", "beta", "α", "alpha",
	"φ", "phi", "Φ", "Phi", "ρ", "rho", "τ", "tau", "θ", "theta", "Δ", "Delta", "δ", "delta",
	"ε", "eps", "η", "eta", "γ", "gamma", "ν", "nu", "χ", "chi",
	"→", "->", "←", "<-", "∞", "inf", "−", "-", "–", "-", "—", "-", "²", "^2", "³", "^3",
	"·", "*", "×", "x", "≈", "~", "≤", "<=", "≥", ">=", "±", "+/-", "√", "sqrt", "…", "...",
	"′", "'", "’", "'", "‘", "'", "“", "\"", "”", "\"", "₀", "0", "₁", "1", "₂", "2", "∗", "*",
)

// ascii returns fig with every text spelled in ASCII (asciiText).
func (fig Figure) ascii() Figure {
	conv := func(s string) string {
		s = asciiText.Replace(s)
		if !isASCII(s) {
			s = strings.Map(func(r rune) rune {
				if r < 0x80 {
					return r
				}
				return '?'
			}, s)
		}
		return s
	}
	fig.Title, fig.XLabel, fig.YLabel = conv(fig.Title), conv(fig.XLabel), conv(fig.YLabel)
	fig.Series = append([]Series(nil), fig.Series...)
	for i := range fig.Series {
		fig.Series[i].Name = conv(fig.Series[i].Name)
	}
	fig.Bands = append([]Band(nil), fig.Bands...)
	for i := range fig.Bands {
		fig.Bands[i].Label = conv(fig.Bands[i].Label)
	}
	return fig
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
