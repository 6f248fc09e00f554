package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"herd/cmd/internal/plotting"
	"herd/compare"
)

// figureFiles are the files herd figures writes, with the PNG size in
// pixels (6 × 4 inches, plotting's one size, at plotting.PNGDPI) and the
// CSV's x column.
var figureFiles = []struct {
	stem          string
	width, height int
	xCol          string
}{
	{"fig1-stale-board", 6 * plotting.PNGDPI, 4 * plotting.PNGDPI, "refresh"},
	{"fig2-dispatchers", 6 * plotting.PNGDPI, 4 * plotting.PNGDPI, "refresh"},
	{"fig3-round-robin", 6 * plotting.PNGDPI, 4 * plotting.PNGDPI, "load"},
	{"fig4a-heavy-tails", 6 * plotting.PNGDPI, 4 * plotting.PNGDPI, "scv"},
	{"fig4b-heavy-tails-refresh", 6 * plotting.PNGDPI, 4 * plotting.PNGDPI, "refresh"},
	{"fig5-edge", 6 * plotting.PNGDPI, 4 * plotting.PNGDPI, "dispatchers"},
	{"fig6-finite-size", 6 * plotting.PNGDPI, 4 * plotting.PNGDPI, "servers"},
	{"fig7-trap-door", 6 * plotting.PNGDPI, 4 * plotting.PNGDPI, "refresh"},
}

// TestFiguresQuick runs herd figures --quick once (the CI-sized run) and
// checks every file: each PNG decodes at its size, each CSV has its header
// and rows, the index lists every figure with the command that makes it
// alone, every figure's CSV matches testdata/figures/STEM.csv and figure
// 3's SVG testdata/fig3-round-robin.svg (regenerate them with: go test
// ./cmd/herd -run TestFiguresQuick -update), and the figures committed
// under cmd/herd/figures are not stale.
func TestFiguresQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("herd figures --quick takes about half a minute")
	}
	t.Parallel()
	dir := t.TempDir()
	_, errs, code := herd(t, "figures", dir, "--quick")
	if code != 0 {
		t.Fatalf("herd figures %s --quick: exit %d: %s", dir, code, errs)
	}
	index, err := os.ReadFile(filepath.Join(dir, "index.md"))
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 7; i++ {
		cmd := "`herd figures " + dir + " --only " + strconv.Itoa(i) + " --quick`"
		if !strings.Contains(string(index), cmd) {
			t.Errorf("index.md lacks the command %s", cmd)
		}
	}
	for _, f := range figureFiles {
		t.Run(f.stem, func(t *testing.T) {
			for _, ext := range []string{".png", ".svg", ".pdf", ".csv"} {
				if !strings.Contains(string(index), "]("+f.stem+ext+")") {
					t.Errorf("index.md does not link %s%s", f.stem, ext)
				}
			}
			pdf, err := os.ReadFile(filepath.Join(dir, f.stem+".pdf"))
			if err != nil {
				t.Fatal(err)
			}
			if err := checkPDF(pdf); err != nil {
				t.Errorf("%s.pdf: %v", f.stem, err)
			}
			r, err := os.Open(filepath.Join(dir, f.stem+".png"))
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			img, err := png.Decode(r)
			if err != nil {
				t.Fatalf("%s.png: %v", f.stem, err)
			}
			if b := img.Bounds(); b.Dx() != f.width || b.Dy() != f.height {
				t.Errorf("%s.png is %d×%d pixels, want %d×%d", f.stem, b.Dx(), b.Dy(), f.width, f.height)
			}
			svg, err := os.ReadFile(filepath.Join(dir, f.stem+".svg"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(svg), "<?xml") || !strings.Contains(string(svg), "</svg>") {
				t.Errorf("%s.svg is not a whole SVG document", f.stem)
			}
			c, err := os.Open(filepath.Join(dir, f.stem+".csv"))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			recs, err := csv.NewReader(c).ReadAll()
			if err != nil {
				t.Fatalf("%s.csv: %v", f.stem, err)
			}
			if len(recs) < 2 {
				t.Fatalf("%s.csv has %d rows, want a header and data", f.stem, len(recs))
			}
			if got := strings.Join(recs[0][:3], ","); got != "series,kind,"+f.xCol {
				t.Errorf("%s.csv header starts %q, want %q", f.stem, got, "series,kind,"+f.xCol)
			}
			if got := strings.Join(recs[0][5:], ","); got != "se,runs,note" {
				t.Errorf("%s.csv header ends %q, want %q", f.stem, got, "se,runs,note")
			}
			// The CSV holds every computed point, drawn or not (figureTable),
			// so this checks the data before it is drawn; the only empty
			// values allowed are model points that say why they have none.
			for _, rec := range recs[1:] {
				if rec[1] == "band" {
					continue
				}
				if rec[3] == "" && strings.HasPrefix(rec[len(rec)-1], compare.GapNote) {
					continue // a model point with no value, saying why
				}
				for _, cell := range rec[2:4] {
					if v, err := strconv.ParseFloat(cell, 64); err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
						t.Errorf("%s.csv row %q: %q is not a finite number", f.stem, rec, cell)
					}
				}
				if recs[0][4] != "ci95" || (rec[1] != "sim" && rec[5] == "") {
					continue
				}
				// ci95 is t(0.975, runs − 1) standard errors: a sim
				// point's over its runs, a model point's (an irregular
				// orbit's long-run average) over its batch means.
				ci, err1 := strconv.ParseFloat(rec[4], 64)
				se, err2 := strconv.ParseFloat(rec[5], 64)
				runs, err3 := strconv.Atoi(rec[6])
				if err1 != nil || err2 != nil || err3 != nil || !(se > 0) {
					t.Errorf("%s.csv row %q: ci95, se or runs missing", f.stem, rec)
					continue
				}
				if want := compare.T975(runs); math.Abs(ci/se-want) > 1e-9*want {
					t.Errorf("%s.csv row %q: ci95/se = %.12g, want t(0.975, %d) = %.12g", f.stem, rec, ci/se, runs-1, want)
				}
			}
		})
	}
	// Every figure's CSV against its golden file; figure 3's SVG too.
	golden := []string{filepath.Join("testdata", "fig3-round-robin.svg")}
	for _, f := range figureFiles {
		golden = append(golden, filepath.Join("testdata", "figures", f.stem+".csv"))
	}
	for _, path := range golden {
		got, err := os.ReadFile(filepath.Join(dir, filepath.Base(path)))
		if err != nil {
			t.Fatal(err)
		}
		if *update {
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test ./cmd/herd -run TestFiguresQuick -update to create it)", err)
		}
		if err := sameSVG(string(got), string(want), figTol(path)); err != nil {
			t.Errorf("%s differs from %s: %v", filepath.Base(path), path, err)
		}
	}
	// The figures committed under cmd/herd/figures (shown in the README)
	// must be what the README's command makes now: their CSV and SVG are
	// committed beside the PNG and compared here (PNG rasterisation may
	// vary between machines; the SVG holds the same drawing).
	for _, stem := range committedFigures {
		for _, ext := range []string{".csv", ".svg"} {
			got, err := os.ReadFile(filepath.Join(dir, stem+ext))
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join("figures", stem+ext))
			if err == nil {
				err = sameSVG(string(got), string(want), figTol(ext))
			}
			if err != nil {
				t.Errorf("cmd/herd/figures/%s%s is stale (%v): regenerate with %s", stem, ext, err, regenerateFigures)
			}
		}
	}
}

// checkPDF reports what is wrong with a figure's PDF, if anything: it
// must start with the header %PDF-, end with %%EOF, and hold exactly one
// page (one page object, and a page tree whose /Count is 1).
func checkPDF(b []byte) error {
	if !bytes.HasPrefix(b, []byte("%PDF-")) {
		return errors.New("starts " + strconv.Quote(string(b[:min(len(b), 8)])) + ", want %PDF-")
	}
	if !bytes.HasSuffix(bytes.TrimRight(b, "\r\n"), []byte("%%EOF")) {
		return errors.New("does not end with %%EOF")
	}
	if n := len(pdfPage.FindAll(b, -1)); n != 1 {
		return errors.New(strconv.Itoa(n) + " page objects, want 1")
	}
	if c := pdfCount.FindSubmatch(b); c == nil || string(c[1]) != "1" {
		return errors.New("page tree /Count is not 1")
	}
	return nil
}

var (
	pdfPage  = regexp.MustCompile(`/Type\s*/Page[^s]`)
	pdfCount = regexp.MustCompile(`/Count\s+([0-9]+)`)
)

// committedFigures are the figures committed under cmd/herd/figures and
// shown in the README; regenerateFigures is the one command that remakes
// them (PNG, SVG and CSV), from the repository root.
var committedFigures = []string{"fig1-stale-board", "fig5-edge", "fig7-trap-door"}

// figTol is the relative tolerance of numbers in a figure file: SVG
// coordinates have 5 significant digits (a fused multiply-add may flip the
// last); CSV numbers round-trip, so only floating-point contraction on
// another architecture may move them, in the last few bits.
func figTol(path string) float64 {
	if strings.HasSuffix(path, ".svg") {
		return 2e-4
	}
	return 1e-9
}

const regenerateFigures = "go run ./cmd/herd figures cmd/herd/figures --quick --only 1,5,7 --format png,svg"

// The files do not depend on the number of workers: figures 3 and 6
// (simulator runs, closed forms, a model edge and brackets) made with one
// worker match the goldens TestFiguresQuick checks with one per CPU.
func TestFiguresWorkers(t *testing.T) {
	if testing.Short() {
		t.Skip("figures 3 and 6 --quick take several seconds")
	}
	t.Parallel()
	dir := t.TempDir()
	if _, errs, code := herd(t, "figures", dir, "--quick", "--only", "3,6", "--workers", "1"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, stem := range []string{"fig3-round-robin", "fig6-finite-size"} {
		got, err := os.ReadFile(filepath.Join(dir, stem+".csv"))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join("testdata", "figures", stem+".csv"))
		if err != nil {
			t.Fatal(err)
		}
		if err := sameSVG(string(got), string(want), figTol(".csv")); err != nil {
			t.Errorf("%s.csv with --workers 1 differs from testdata/figures/%s.csv: %v", stem, stem, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "index.md")); !os.IsNotExist(err) {
		t.Errorf("index.md written with --only (stat: %v)", err)
	}
}

// Bad input exits 2 with a message naming what is wrong.
func TestFiguresBadInput(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"figures"}, "want a directory"},
		{[]string{"figures", "--quick"}, "want a directory"},
		{[]string{"figures", t.TempDir(), "--only", "8"}, "--only 8: want figure numbers from 1 to 7"},
		{[]string{"figures", t.TempDir(), "--only", "1,,2"}, "empty item"},
		{[]string{"figures", t.TempDir(), "--workers", "0"}, "--workers 0"},
		{[]string{"figures", t.TempDir(), "extra"}, "unexpected argument"},
		{[]string{"figures", t.TempDir(), "--progress", "sometimes"}, `--progress "sometimes": want auto, always or never`},
		{[]string{"figures", t.TempDir(), "--format", "png,gif"}, "--format gif: want a list of png, svg, pdf"},
		{[]string{"figures", t.TempDir(), "--format", "eps"}, "--format eps: want a list of png, svg, pdf"},
		{[]string{"figures", "a", "--out", "b"}, `two directories: DIR "a" and --out "b"`},
		{[]string{"figures", "--out", "b", "--only", "9"}, "--only 9"},
	}
	for _, c := range cases {
		_, errs, code := herd(t, c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("herd %q: exit %d, stderr %q; want exit 2 and %q", c.args, code, errs, c.want)
		}
	}
}

var svgNumber = regexp.MustCompile(`-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?`)

// sameSVG reports how got and want differ, comparing numbers to a relative
// tolerance and everything else exactly (as cmd/internal/plotting's golden
// test does: gonum/plot prints 5 significant digits, and fused
// multiply-adds on some architectures may flip a last digit).
func sameSVG(got, want string, tol float64) error {
	gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
	if len(gl) != len(wl) {
		return errors.New("got " + strconv.Itoa(len(gl)) + " lines, want " + strconv.Itoa(len(wl)))
	}
	for i := range gl {
		if svgNumber.ReplaceAllString(gl[i], "#") != svgNumber.ReplaceAllString(wl[i], "#") {
			return errors.New("line " + strconv.Itoa(i+1) + ":\ngot:  " + gl[i] + "\nwant: " + wl[i])
		}
		gn, wn := svgNumber.FindAllString(gl[i], -1), svgNumber.FindAllString(wl[i], -1)
		for j := range gn {
			g, _ := strconv.ParseFloat(gn[j], 64)
			w, _ := strconv.ParseFloat(wn[j], 64)
			if math.Abs(g-w) > tol*math.Max(math.Abs(w), 1) {
				return errors.New("line " + strconv.Itoa(i+1) + ": " + gn[j] + " against " + wn[j])
			}
		}
	}
	return nil
}

// --format takes a list of png, svg and pdf in any order (repeats
// allowed) and gives them in the order the files are written; --out DIR
// stands for the DIR argument, and both may be given when they name one
// directory.
func TestFiguresFormatOut(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		format string
		want   []string
	}{
		{"png,svg,pdf", []string{"svg", "png", "pdf"}},
		{"pdf", []string{"pdf"}},
		{"PDF,png,pdf", []string{"png", "pdf"}},
	} {
		got, err := parseFigureFormats(c.format)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("--format %s: %q (%v), want %q", c.format, got, err, c.want)
		}
	}
	e := &env{stdout: io.Discard, stderr: io.Discard}
	for _, args := range [][]string{{"D"}, {"--out", "D"}, {"D", "--out", "D/"}, {"--quick", "--out=D"}} {
		a, err := parseFiguresArgs(e, args)
		if err != nil || a.dir == "" || filepath.Clean(a.dir) != "D" {
			t.Errorf("herd figures %q: dir %v (%v), want D", args, a, err)
		}
	}
}

// herd figures DIR --format pdf writes each figure as PDF and CSV only,
// and index.md, which links them and shows no image, says how.
func TestFiguresPDFOnly(t *testing.T) {
	if testing.Short() {
		t.Skip("figures 3 and 6 --quick take several seconds")
	}
	t.Parallel()
	dir := t.TempDir()
	if _, errs, code := herd(t, "figures", "--out", dir, "--quick", "--only", "6", "--format", "pdf"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if want := []string{"fig6-finite-size.csv", "fig6-finite-size.pdf"}; !slices.Equal(names, want) {
		t.Errorf("files %q, want %q", names, want)
	}
	b, err := os.ReadFile(filepath.Join(dir, "fig6-finite-size.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	if err := checkPDF(b); err != nil {
		t.Errorf("fig6-finite-size.pdf: %v", err)
	}
	a := &figuresArgs{dir: dir, quick: true, seed: 1, formats: []string{"pdf"}, chosen: compare.Figures()[5:6]}
	if err := writeFigureIndex(a, [][]*compare.FigurePlot{{{Stem: "fig6-finite-size"}}}); err != nil {
		t.Fatal(err)
	}
	index, err := os.ReadFile(filepath.Join(dir, "index.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"--only 6 --quick --format pdf`", "- files: [fig6-finite-size.pdf](fig6-finite-size.pdf), [fig6-finite-size.csv](fig6-finite-size.csv)\n"} {
		if !strings.Contains(string(index), want) {
			t.Errorf("index.md lacks %q:\n%s", want, index)
		}
	}
	if strings.Contains(string(index), "![") {
		t.Errorf("index.md shows an image it did not write:\n%s", index)
	}
}

// After Ctrl-C herd figures says exactly what it wrote: here nothing.
func TestFiguresInterrupted(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	var out, errb bytes.Buffer
	code := run(ctx, []string{"figures", dir, "--quick"}, &out, &errb)
	want := "interrupted: nothing was written; figures 1, 2, 3, 4, 5, 6, 7 not made (no file of them written); index.md not written"
	if code != 1 || !strings.Contains(errb.String(), want) {
		t.Errorf("exit %d, stderr %q; want 1 and %q", code, errb.String(), want)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("%d files in %s, want none", len(ents), dir)
	}
	a := &figuresArgs{dir: "D", only: "1,5", formats: figureFormats, chosen: []compare.Figure{compare.Figures()[0], compare.Figures()[4]}}
	got := figuresWritten(a, [][]*compare.FigurePlot{{{Stem: "fig1-stale-board"}}, nil})
	if want := "figure 1 written to D (fig1-stale-board, each as .svg, .png, .pdf and .csv); figure 5 not made (no file of it written)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	a.formats = []string{"pdf"}
	if got, want := figuresWritten(a, [][]*compare.FigurePlot{{{Stem: "fig1-stale-board"}}, nil}), "(fig1-stale-board, each as .pdf and .csv)"; !strings.Contains(got, want) {
		t.Errorf("--format pdf: got %q, want it to contain %q", got, want)
	}
}

// Ctrl-C keeps the finished runs in DIR/.figures-journal and says so; a
// rerun of the same command reuses them, writes the bytes of an
// uninterrupted run and deletes the journal; a rerun with another seed
// or run length is refused (exit 2) and leaves the journal alone.
func TestFiguresResume(t *testing.T) {
	if testing.Short() {
		t.Skip("figure 3 --quick three times takes a few seconds")
	}
	t.Parallel()
	args := []string{"--quick", "--only", "3", "--workers", "1"}
	whole := t.TempDir()
	if _, errs, code := herd(t, append([]string{"figures", whole}, args...)...); code != 0 {
		t.Fatalf("uninterrupted: exit %d: %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(whole, figuresJournal)); !os.IsNotExist(err) {
		t.Errorf("journal left after every figure was written (stat: %v)", err)
	}

	dir := t.TempDir()
	journal := filepath.Join(dir, figuresJournal)
	code, errb := interruptFigures(dir, args)
	kept := regexp.MustCompile(`interrupted: nothing was written; figure 3 not made \(no file of it written\); (\d+) finished runs kept in .*\.figures-journal: run the same command again to resume`).FindStringSubmatch(errb.String())
	if code != 1 || kept == nil {
		t.Fatalf("interrupted: exit %d, stderr %q; want 1 and the runs kept", code, errb.String())
	}
	saved, _ := os.ReadFile(journal)
	for _, other := range [][]string{{"--seed", "2"}, {"--only", "3"}} {
		_, errs, code := herd(t, append([]string{"figures", dir}, other...)...)
		if code != 2 || !strings.Contains(errs, "quick=true seed=1") {
			t.Errorf("herd figures %v on a --quick --seed 1 journal: exit %d, stderr %q; want 2 naming the journal's settings", other, code, errs)
		}
	}
	if now, _ := os.ReadFile(journal); !bytes.Equal(now, saved) {
		t.Errorf("a refused run changed the journal")
	}

	_, errs, code := herd(t, append([]string{"figures", dir}, args...)...)
	if code != 0 || !strings.Contains(errs, "resuming: "+kept[1]+" finished runs from ") {
		t.Fatalf("resumed: exit %d, stderr %q; want 0 and resuming from %s runs", code, errs, kept[1])
	}
	for _, ext := range []string{".csv", ".svg", ".png"} {
		got, err1 := os.ReadFile(filepath.Join(dir, "fig3-round-robin"+ext))
		want, err2 := os.ReadFile(filepath.Join(whole, "fig3-round-robin"+ext))
		if err := errors.Join(err1, err2); err != nil || !bytes.Equal(got, want) {
			t.Errorf("fig3-round-robin%s resumed differs from an uninterrupted run's (%v)", ext, err)
		}
	}
	if _, err := os.Stat(journal); !os.IsNotExist(err) {
		t.Errorf("journal left after the resumed run wrote every figure (stat: %v)", err)
	}
}

// interruptFigures runs herd figures DIR args and cancels it (Ctrl-C)
// once the journal holds 10 finished runs.
func interruptFigures(dir string, args []string) (int, *bytes.Buffer) {
	journal := filepath.Join(dir, figuresJournal)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for ctx.Err() == nil {
			if b, _ := os.ReadFile(journal); bytes.Count(b, []byte("\nrun\t")) >= 10 {
				cancel()
			}
			time.Sleep(time.Millisecond)
		}
	}()
	var out, errb bytes.Buffer
	code := run(ctx, append([]string{"figures", dir}, args...), &out, &errb)
	return code, &errb
}

// A run of --only 3 on the journal of an interrupted run of every figure
// keeps the journal (it holds runs of figures 3 did not need) and says so.
func TestFiguresOnlyKeepsJournal(t *testing.T) {
	if testing.Short() {
		t.Skip("figure 3 --quick takes a second")
	}
	t.Parallel()
	dir := t.TempDir()
	if code, errb := interruptFigures(dir, []string{"--quick", "--workers", "1"}); code != 1 || !strings.Contains(errb.String(), "finished runs kept in") {
		t.Fatalf("interrupted: exit %d, stderr %q", code, errb.String())
	}
	_, errs, code := herd(t, "figures", dir, "--quick", "--only", "3", "--workers", "1")
	if code != 0 || !strings.Contains(errs, figuresJournal+" kept: it holds finished runs of figures this run did not make") {
		t.Errorf("--only 3 after an interrupted run of all: exit %d, stderr %q; want 0 and the journal kept", code, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, figuresJournal)); err != nil {
		t.Errorf("journal gone: %v", err)
	}
}
