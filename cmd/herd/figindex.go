package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"herd/compare"
	"herd/compare/atomicfile"
	"herd/compare/sweep"
)

// writeFigureIndex writes DIR/index.md: how the figures were made, what
// each CSV holds, and per figure its heading, what it shows, the command
// that makes it alone, its files and notes.
func writeFigureIndex(a *figuresArgs, plots [][]*compare.FigurePlot) error {
	var b strings.Builder
	mode := "full run lengths (validation.md)"
	flags := ""
	if a.quick {
		mode = "quick, CI-sized run lengths"
		flags = " --quick"
	}
	if a.seed != 1 {
		flags += " --seed " + strconv.FormatUint(a.seed, 10)
	}
	if len(a.formats) != len(figureFormats) {
		flags += " --format " + strings.Join(a.formats, ",")
	}
	qdir := sweep.ShellQuote(a.dir)
	fmt.Fprintf(&b, "# herd figures\n\nMade by herd %s with %s, master seed %d: `herd figures %s%s`.\n", version, mode, a.seed, qdir, flags)
	b.WriteString("Unless a figure says otherwise: 100 servers, load λ = 0.9, exponential sizes, times in mean service times; simulator points are means over independent runs with 95% bars, t(0.975, runs − 1) standard errors (Student-t); lines are models (closed forms or mean-field, N → ∞).\n\n")
	b.WriteString("Each CSV holds exactly the plotted numbers, one row per point: `series` (the legend entry; empty for an unnamed model line, which takes the colour of the points it predicts), `kind` (`sim`, `model`, `closed_form`, `law`, `bracket`, or `band` for the two ends of a shaded range), x, y and the error bar (figure-specific names below; empty where a point has none), `se` and `runs` (a sim point's standard error and run count; a model point's that is the long-run average of an irregular orbit, its batch-means standard error and number of batches, with a bar like a sim point's), and `note`. Every computed point is a row, including any that is not drawn (its note says so).\n")
	for i, d := range a.chosen {
		fmt.Fprintf(&b, "\n## Figure %s: %s\n\n%s\n\n", d.ID, d.Heading, d.About)
		fmt.Fprintf(&b, "Reproduce alone: `herd figures %s --only %s%s`\n\n", qdir, d.ID, flags)
		for _, p := range plots[i] {
			if img := indexImage(a.formats); img != "" {
				fmt.Fprintf(&b, "![%s](%s.%s)\n\n", p.Title, p.Stem, img)
			}
			var files []string
			for _, ext := range a.figureExts() {
				files = append(files, fmt.Sprintf("[%[1]s%[2]s](%[1]s%[2]s)", p.Stem, ext))
			}
			fmt.Fprintf(&b, "- files: %s\n", strings.Join(files, ", "))
			fmt.Fprintf(&b, "- CSV columns: `series,kind,%s,%s,%s,se,runs,note`; `%s` is %s\n", p.XCol, p.YCol, p.ErrCol, p.ErrCol, p.ErrMeaning)
			for _, n := range p.Notes {
				fmt.Fprintf(&b, "- %s\n", n)
			}
			b.WriteString("\n")
		}
	}
	if err := atomicfile.WriteFile(filepath.Join(a.dir, "index.md"), []byte(b.String())); err != nil {
		return fmt.Errorf("figures: %w", err)
	}
	return nil
}

// indexImage is the format index.md shows each plot in: PNG, else SVG
// (a Markdown viewer shows no PDF); "" for none.
func indexImage(formats []string) string {
	for _, f := range []string{"png", "svg"} {
		if slices.Contains(formats, f) {
			return f
		}
	}
	return ""
}
