package plotting

import (
	"bytes"
	"errors"
	"flag"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// linearFigure exercises lines (one broken by a NaN), points with error
// bars, a shared colour group and a labelled band.
func linearFigure() Figure {
	return Figure{
		Title:  "mean response time",
		XLabel: "load ρ",
		YLabel: "mean time in system",
		Series: []Series{
			{Name: "model SQ(2)", Group: "sq2", Line: true,
				X: []float64{0.5, 0.6, 0.7, 0.8, 0.9, 0.95},
				Y: []float64{1.27, 1.42, 1.66, 2.06, 2.93, math.NaN()}},
			{Name: "sim SQ(2)", Group: "sq2",
				X:    []float64{0.5, 0.7, 0.9},
				Y:    []float64{1.3, 1.7, 2.8},
				YErr: []float64{0.05, 0.08, math.NaN()}},
			{Name: "model random", Line: true,
				X: []float64{0.5, 0.6, 0.7, math.Inf(1), 0.8, 0.9},
				Y: []float64{2, 2.5, 3.33, 1, 5, 10}},
			{Name: "sim random",
				X:    []float64{0.5, 0.9},
				Y:    []float64{2.1, 9.5},
				YErr: []float64{0.1, 1.2}},
		},
		Bands: []Band{{XMin: 0.85, XMax: 0.75, Label: "bistable"}},
	}
}

// logFigure exercises log axes: non-positive values dropped, an error bar
// reaching below zero, a band starting at zero.
func logFigure() Figure {
	return Figure{
		Title:  "queue tail",
		XLabel: "queue length k",
		YLabel: "P(Q ≥ k)",
		LogX:   true,
		LogY:   true,
		Width:  5,
		Height: 3.5,
		Series: []Series{
			{Name: "model", Line: true,
				X: []float64{0, 1, 2, 5, 10, 20, 50, 100},
				Y: []float64{1, 0.9, 0.81, 0.59, 0.35, 0.12, 5e-3, 2.7e-5}},
			{Name: "sim",
				X:    []float64{1, 2, 5, 10, 20, 50, -1},
				Y:    []float64{0.91, 0.8, 0.6, 0.33, 0.13, 4e-3, 1},
				YErr: []float64{0.01, 0.02, 0.03, 0.03, 0.02, 5e-3, 0}},
		},
		Bands: []Band{{XMin: 0, XMax: 3, Label: "warm-up"}},
	}
}

// lineBarsFigure exercises error bars on a line (a model whose irregular
// points carry a standard error): bars where YErr is positive and finite,
// none at NaN or 0, one cut at the floor of a log axis, and a point
// series' bars beside them.
func lineBarsFigure() Figure {
	return Figure{
		Title:  "long-run averages",
		XLabel: "refresh period T",
		YLabel: "mean time in system",
		LogX:   true,
		LogY:   true,
		Series: []Series{
			{Name: "model", Line: true,
				X:    []float64{1, 2, 5, 10, 20, 50},
				Y:    []float64{1.5, 2, 3.5, 6, 11, 30},
				YErr: []float64{math.NaN(), 0, 0.4, 1, 12, 3}},
			{Name: "sim",
				X:    []float64{1, 5, 20},
				Y:    []float64{1.6, 3.4, 12},
				YErr: []float64{0.1, 0.3, 2}},
		},
	}
}

// TestGoldenSVG compares rendered SVG with testdata/NAME.svg.
// Regenerate with: go test ./cmd/internal/plotting -update
//
// gonum/plot v0.17's SVG is byte-stable on one machine: fonts are referred
// to by name, not embedded (vgsvg.EmbedFonts is off by default), text is
// measured with the Liberation fonts compiled into the binary, and there is
// no timestamp. Coordinates are printed with 5 significant digits, though,
// and the compiler may fuse multiply-adds on some architectures (arm64,
// ppc64, s390x), which can flip a last digit. So the comparison requires
// every non-numeric byte to match exactly and every number to agree to a
// relative 2e-4 (a little over one unit in the fifth digit).
func TestGoldenSVG(t *testing.T) {
	tests := []struct {
		name string
		fig  Figure
	}{
		{"linear", linearFigure()},
		{"loglog", logFigure()},
		{"linebars", lineBarsFigure()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := render(tt.fig, "svg")
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", tt.name+".svg")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if err := sameSVG(string(got), string(want), 2e-4); err != nil {
				t.Errorf("%s differs from %s: %v", tt.name, path, err)
			}
		})
	}
}

var number = regexp.MustCompile(`-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?`)

// sameSVG reports how got and want differ, comparing numbers to a relative
// tolerance and everything else exactly.
func sameSVG(got, want string, tol float64) error {
	gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
	if len(gl) != len(wl) {
		return errors.New("got " + strconv.Itoa(len(gl)) + " lines, want " + strconv.Itoa(len(wl)))
	}
	for i := range gl {
		gs, ws := number.ReplaceAllString(gl[i], "#"), number.ReplaceAllString(wl[i], "#")
		if gs != ws {
			return errors.New("line " + strconv.Itoa(i+1) + ":\ngot:  " + gl[i] + "\nwant: " + wl[i])
		}
		gn, wn := number.FindAllString(gl[i], -1), number.FindAllString(wl[i], -1)
		for k := range gn {
			g, _ := strconv.ParseFloat(gn[k], 64)
			w, _ := strconv.ParseFloat(wn[k], 64)
			if math.Abs(g-w) > tol*max(math.Abs(g), math.Abs(w)) {
				return errors.New("line " + strconv.Itoa(i+1) + ": number " + gn[k] + ", want " + wn[k] + ":\ngot:  " + gl[i] + "\nwant: " + wl[i])
			}
		}
	}
	return nil
}

func TestSameSVG(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		got, want string
		ok        bool
	}{
		{"equal", `<path d="M1.2345,6"/>`, `<path d="M1.2345,6"/>`, true},
		{"last digit", `<path d="M345.67,6"/>`, `<path d="M345.68,6"/>`, true},
		{"moved", `<path d="M345.67,6"/>`, `<path d="M346.67,6"/>`, false},
		{"text", `<text>a</text>`, `<text>b</text>`, false},
		{"lines", "a\nb", "a", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if err := sameSVG(tt.got, tt.want, 2e-4); (err == nil) != tt.ok {
				t.Errorf("sameSVG(%q, %q) = %v, want ok=%v", tt.got, tt.want, err, tt.ok)
			}
		})
	}
}

// TestSavePNG checks that a PNG is written, decodes, and has the size of
// the figure at gonum/plot's 96 dots per inch.
func TestSavePNG(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "fig.PNG") // extension is case-insensitive
	if err := Save(linearFigure(), path); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	// 6 × 4 inches (the default) at PNGDPI = 300.
	if got, want := img.Bounds().Size(), (struct{ X, Y int }{1800, 1200}); got.X != want.X || got.Y != want.Y {
		t.Errorf("image size %v, want %v", got, want)
	}
	assertOnly(t, dir, "fig.PNG")
}

// TestSavePDFEPS checks that .pdf and .eps are written in their formats.
func TestSavePDFEPS(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tc := range []struct{ file, magic string }{{"fig.pdf", "%PDF-"}, {"fig.EPS", "%!PS-Adobe"}} {
		path := filepath.Join(dir, tc.file)
		if err := Save(linearFigure(), path); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil || !bytes.HasPrefix(b, []byte(tc.magic)) {
			t.Errorf("%s: starts %q (err %v), want %q", tc.file, b[:min(len(b), 12)], err, tc.magic)
		}
	}
}

// A PDF is one page and the same bytes each time it is drawn: its dates
// are fixed to the epoch (fixPDF), without moving any byte offset.
func TestSavePDF(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var files [2][]byte
	for i := range files {
		path := filepath.Join(dir, "fig"+strconv.Itoa(i)+".pdf")
		if err := Save(lineBarsFigure(), path); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		files[i] = b
		if i == 0 {
			time.Sleep(1100 * time.Millisecond) // the dates have a resolution of 1 s
		}
	}
	b := files[0]
	if !bytes.Equal(b, files[1]) {
		t.Errorf("two PDFs of one figure differ (%d and %d bytes)", len(b), len(files[1]))
	}
	if !bytes.HasPrefix(b, []byte("%PDF-")) {
		t.Errorf("PDF starts %q, want %%PDF-", b[:min(len(b), 8)])
	}
	if n := pdfPages.FindAll(b, -1); len(n) != 1 {
		t.Errorf("PDF has %d page objects, want 1", len(n))
	}
	for _, want := range []string{"/CreationDate (D:19700101000000)", "/ModDate (D:19700101000000)"} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("PDF lacks %q", want)
		}
	}
	in := []byte("1 0 obj\n/CreationDate (D:20251204163012)\n/ModDate (D:20251204163013)\nxref")
	out := fixPDF(in)
	if want := "1 0 obj\n/CreationDate (D:19700101000000)\n/ModDate (D:19700101000000)\nxref"; string(out) != want || len(out) != len(in) {
		t.Errorf("fixPDF(%q) = %q, want %q (the same length)", in, out, want)
	}
}

// pdfPages matches a PDF's page objects (not its /Pages tree).
var pdfPages = regexp.MustCompile(`/Type\s*/Page[^s]`)

// TestSaveSVG checks that Save writes exactly what render produces and
// replaces an existing file.
func TestSaveSVG(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "fig.svg")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Save(logFigure(), path); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := render(logFigure(), "svg")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("saved file (%d bytes) differs from render (%d bytes)", len(got), len(want))
	}
	assertOnly(t, dir, "fig.svg")
}

// TestSaveErrors checks user-facing errors and that a failed Save leaves
// nothing behind: no plot and no temporary file.
func TestSaveErrors(t *testing.T) {
	t.Parallel()
	one := []Series{{Name: "a", X: []float64{1}, Y: []float64{1}}}
	tests := []struct {
		name  string
		fig   Figure
		file  string
		want  string // exact error text, or a prefix ending in "…"
		empty bool   // errors.Is(err, ErrEmpty)
	}{
		{"tiff", Figure{Series: one}, "x.tiff", `plot file "DIR/x.tiff": want .png, .svg, .pdf or .eps`, false},
		{"no extension", Figure{Series: one}, "x", `plot file "DIR/x": want .png, .svg, .pdf or .eps`, false},
		{"no series", Figure{}, "x.svg", "plotting: nothing to plot: no finite point", true},
		{"all NaN", Figure{Series: []Series{{X: []float64{math.NaN()}, Y: []float64{1}}}}, "x.svg",
			"plotting: nothing to plot: no finite point", true},
		{"all non-positive on log", Figure{LogY: true, Series: []Series{{Line: true, X: []float64{1, 2}, Y: []float64{0, -1}}}}, "x.png",
			"plotting: nothing to plot: no finite point (values that are not positive are dropped on a log axis)", true},
		{"length mismatch", Figure{Series: []Series{{Name: "a", X: []float64{1, 2}, Y: []float64{1}}}}, "x.svg",
			`plotting: series "a" has 2 x values and 1 y values`, false},
		{"error bar mismatch", Figure{Series: []Series{{Name: "a", X: []float64{1}, Y: []float64{1}, YErr: []float64{}}}}, "x.svg",
			`plotting: series "a" has 0 error bars for 1 points`, false},
		{"negative size", Figure{Series: one, Width: -1}, "x.svg", "plotting: figure size -1x0 inches: want positive", false},
		{"missing directory", Figure{Series: one}, "no/such/x.svg", "plotting: open DIR/no/such/…", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			err := Save(tt.fig, filepath.Join(dir, tt.file))
			if err == nil {
				t.Fatal("Save succeeded, want an error")
			}
			want := strings.ReplaceAll(tt.want, "DIR", dir)
			if p, ok := strings.CutSuffix(want, "…"); ok {
				if !strings.HasPrefix(err.Error(), p) {
					t.Errorf("error %q, want prefix %q", err, p)
				}
			} else if err.Error() != want {
				t.Errorf("error %q, want %q", err, want)
			}
			if errors.Is(err, ErrEmpty) != tt.empty {
				t.Errorf("errors.Is(err, ErrEmpty) = %v, want %v", !tt.empty, tt.empty)
			}
			assertOnly(t, dir)
		})
	}
}

// TestAtomicNoTempOnError makes the final rename fail (the target is a
// directory) and checks that the temporary file is removed.
func TestAtomicNoTempOnError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := filepath.Join(dir, "fig.svg")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(target, "keep"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Save(linearFigure(), target); err == nil {
		t.Fatal("Save onto a non-empty directory succeeded, want an error")
	}
	assertOnly(t, dir, "fig.svg")
}

// assertOnly fails unless dir holds exactly the named entries.
func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if !reflect.DeepEqual(got, names) && (len(got) != 0 || len(names) != 0) {
		t.Errorf("directory holds %q, want %q", got, names)
	}
}

// TestNoPanic renders awkward figures that must draw (or fail) without
// panicking: single points and constant values on log axes, infinities,
// bands off the data, zero-width bands.
func TestNoPanic(t *testing.T) {
	t.Parallel()
	inf := math.Inf(1)
	figs := map[string]Figure{
		"single point log":  {LogX: true, LogY: true, Series: []Series{{X: []float64{3}, Y: []float64{7}, YErr: []float64{10}}}},
		"constant line log": {LogY: true, Series: []Series{{Line: true, X: []float64{1, 2, 3}, Y: []float64{5, 5, 5}}}},
		"single point lin":  {Series: []Series{{Line: true, X: []float64{0}, Y: []float64{0}}}},
		"infinities":        {Series: []Series{{X: []float64{inf, 1, -inf, 2}, Y: []float64{1, inf, 2, 3}, YErr: []float64{inf, 1, 1, inf}}}},
		"huge error":        {LogY: true, Series: []Series{{X: []float64{1, 2}, Y: []float64{1e-3, 1}, YErr: []float64{1e300, math.MaxFloat64}}}},
		"huge error lin":    {Series: []Series{{X: []float64{1, 2}, Y: []float64{-1e308, 1}, YErr: []float64{1e308, math.MaxFloat64}}}},
		"bands off data": {LogX: true, Series: []Series{{X: []float64{1, 100}, Y: []float64{1, 2}}},
			Bands: []Band{{XMin: -5, XMax: -1}, {XMin: 1e4, XMax: 1e5}, {XMin: 2, XMax: 2}, {XMin: math.NaN(), XMax: 3}, {XMin: 0, XMax: 0.5}}},
		"narrow log": {LogX: true, LogY: true, Series: []Series{{Line: true, X: []float64{2, 8}, Y: []float64{0.3, 0.31}}}},
		"many series": func() Figure {
			var f Figure
			for i := range 20 {
				f.Series = append(f.Series, Series{Name: strconv.Itoa(i), Line: i%2 == 0, X: []float64{0, 1}, Y: []float64{float64(i), float64(i + 1)}})
			}
			return f
		}(),
	}
	for name, fig := range figs {
		for _, format := range []string{"svg", "png"} {
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("%s (%s): panic: %v", name, format, r)
					}
				}()
				if _, err := render(fig, format); err != nil {
					t.Errorf("%s (%s): %v", name, format, err)
				}
			}()
		}
	}
}

func TestSpansDecades(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		v    []float64
		want bool
	}{
		{"empty", nil, false},
		{"one value", []float64{5}, false},
		{"one decade", []float64{1, 10}, false},
		{"just under 1.5 decades", []float64{1, 31.6}, false}, // 10^1.5 = 31.62
		{"just over 1.5 decades", []float64{1, 31.63}, true},  // 10^1.5 = 31.62
		{"many decades", []float64{1e-300, 1e300}, true},
		{"non-positive ignored", []float64{-1e6, 0, 1, 2}, false},
		{"NaN and Inf ignored", []float64{math.NaN(), math.Inf(1), 1, 2}, false},
		{"tail probabilities", []float64{1, 0.5, 0.01}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := SpansDecades(tt.v); got != tt.want {
				t.Errorf("SpansDecades(%v) = %v, want %v", tt.v, got, tt.want)
			}
		})
	}
}

func TestLogTicks(t *testing.T) {
	t.Parallel()
	labels := func(ts []plot.Tick) []string {
		var out []string
		for _, tk := range ts {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	tests := []struct {
		name   string
		lo, hi float64
		want   []string
	}{
		{"decades", 0.05, 200, []string{"0.1", "1", "10", "100"}},
		{"exact ends", 0.01, 1000, []string{"0.01", "0.1", "1", "10", "100", "1000"}},
		{"one power in range", 2, 70, []string{"2", "5", "10", "20", "50"}},
		{"no power in range", 2.5, 4.5, []string{"3", "4"}},
		{"not positive", 0, 10, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ts := logTicks{}.Ticks(tt.lo, tt.hi)
			if got := labels(ts); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("labels in [%g, %g] = %q, want %q", tt.lo, tt.hi, got, tt.want)
			}
			for _, tk := range ts {
				if tk.Value < tt.lo*(1-1e-9) || tk.Value > tt.hi*(1+1e-9) {
					t.Errorf("tick %g outside [%g, %g]", tk.Value, tt.lo, tt.hi)
				}
			}
		})
	}
}

func TestColorIndexes(t *testing.T) {
	t.Parallel()
	s := []Series{{Group: "a"}, {Group: "a"}, {}, {Group: "b"}, {}, {Group: "b"}, {Group: "a"}}
	want := []int{0, 0, 1, 2, 3, 2, 0}
	if got := colorIndexes(s); !reflect.DeepEqual(got, want) {
		t.Errorf("colorIndexes = %v, want %v", got, want)
	}
}

// TestSegments checks the script markup of figure text.
func TestSegments(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []segment
	}{
		{"T_edge (1−λ)²", []segment{{"T", 0}, {"edge", -1}, {" (1−λ)²", 0}}},
		{"E_100/M/1", []segment{{"E", 0}, {"100", -1}, {"/M/1", 0}}},
		{"edge_scaled", []segment{{"edge_scaled", 0}}},
		{"x_{max load}", []segment{{"x", 0}, {"max load", -1}}},
		{"10^{6}", []segment{{"10", 0}, {"6", 1}}},
		{"2×10^−3", []segment{{"2×10", 0}, {"−3", 1}}},
		{"a^b", []segment{{"a^b", 0}}},
		{"_x", []segment{{"_x", 0}}},
		{"x_", []segment{{"x_", 0}}},
		{"x_{open", []segment{{"x_{open", 0}}}, // unclosed: literal
	}
	for _, tt := range tests {
		if got := segments(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("segments(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// TestIsolatedLinePoint checks that a line value with gaps on both sides
// is drawn as a dot (and kept clear of the legend) rather than lost.
func TestIsolatedLinePoint(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	b, err := build(Figure{Series: []Series{{Name: "m", Line: true,
		X: []float64{1, 2, 3, 4, 5}, Y: []float64{1, nan, 2, nan, 3}}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(b.points); got != 3 {
		t.Errorf("got %d dots, want 3 (each value stands alone)", got)
	}
}

// PDF and EPS fonts have no Unicode text: their figures spell herd's
// symbols in ASCII, and anything else becomes "?"; SVG and PNG keep them.
func TestASCIIForPDF(t *testing.T) {
	t.Parallel()
	fig := Figure{Title: "edge (refresh map, N → ∞)", XLabel: "load λ", YLabel: "T_edge (1−λ)²",
		Series: []Series{{Name: "λ = 0.9 ± s.e.", X: []float64{1}, Y: []float64{1}}}, Bands: []Band{{Label: "bistable ≈ 中"}}}
	a := fig.ascii()
	for got, want := range map[string]string{
		a.Title: "edge (refresh map, N -> inf)", a.XLabel: "load lambda", a.YLabel: "T_edge (1-lambda)^2",
		a.Series[0].Name: "lambda = 0.9 +/- s.e.", a.Bands[0].Label: "bistable ~ ?",
	} {
		if got != want {
			t.Errorf("ascii: %q, want %q", got, want)
		}
	}
	if fig.Series[0].Name != "λ = 0.9 ± s.e." || fig.Bands[0].Label != "bistable ≈ 中" {
		t.Errorf("ascii changed the figure it was given: %q, %q", fig.Series[0].Name, fig.Bands[0].Label)
	}
}
