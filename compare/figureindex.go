package compare

import (
	"fmt"
	"slices"
	"strings"
)

// FigureIndex describes a directory of figures for its index.md: how
// they were made, and the files of each figure's plots.
type FigureIndex struct {
	Version string // herd's
	Quick   bool
	Seed    uint64
	// Command is the command that makes them all ("herd figures DIR"),
	// Flags its flags past DIR as given (" --quick --seed 7"); a figure
	// alone is made by Command --only ID Flags.
	Command, Flags string
	// Formats are the image formats written ("svg", "png", "pdf"); each
	// plot has a CSV as well.
	Formats []string
	Figures []Figure
	Plots   [][]*FigurePlot // by figure
}

// Markdown is index.md: how the figures were made, what each CSV holds,
// and per figure its heading, what it shows, the command that makes it
// alone, its image (PNG, else SVG; a Markdown viewer shows no PDF), its
// files and notes.
func (x FigureIndex) Markdown() string {
	var b strings.Builder
	mode := "full run lengths (validation.md)"
	if x.Quick {
		mode = "quick, CI-sized run lengths"
	}
	fmt.Fprintf(&b, "# herd figures\n\nMade by herd %s with %s, master seed %d: `%s%s`.\n", x.Version, mode, x.Seed, x.Command, x.Flags)
	b.WriteString("Unless a figure says otherwise: 100 servers, load λ = 0.9, exponential sizes, times in mean service times; simulator points are means over independent runs with 95% bars, t(0.975, runs − 1) standard errors (Student-t); lines are models (closed forms or mean-field, N → ∞).\n\n")
	b.WriteString("Each CSV holds exactly the plotted numbers, one row per point: `series` (the legend entry; empty for an unnamed model line, which takes the colour of the points it predicts), `kind` (`sim`, `model`, `closed_form`, `law`, `bracket`, or `band` for the two ends of a shaded range), x, y and the error bar (figure-specific names below; empty where a point has none), `se` and `runs` (a sim point's standard error and run count; a model point's that is the long-run average of an irregular orbit, its batch-means standard error and number of batches, with a bar like a sim point's), and `note`. Every computed point is a row, including any that is not drawn (its note says so).\n")
	img := ""
	for _, f := range []string{"png", "svg"} {
		if img == "" && slices.Contains(x.Formats, f) {
			img = f
		}
	}
	for i, d := range x.Figures {
		fmt.Fprintf(&b, "\n## Figure %s: %s\n\n%s\n\n", d.ID, d.Heading, d.About)
		fmt.Fprintf(&b, "Reproduce alone: `%s --only %s%s`\n\n", x.Command, d.ID, x.Flags)
		for _, p := range x.Plots[i] {
			if img != "" {
				fmt.Fprintf(&b, "![%s](%s.%s)\n\n", p.Title, p.Stem, img)
			}
			var files []string
			for _, ext := range append(slices.Clone(x.Formats), "csv") {
				files = append(files, fmt.Sprintf("[%[1]s.%[2]s](%[1]s.%[2]s)", p.Stem, ext))
			}
			fmt.Fprintf(&b, "- files: %s\n", strings.Join(files, ", "))
			fmt.Fprintf(&b, "- CSV columns: `series,kind,%s,%s,%s,se,runs,note`; `%s` is %s\n", p.XCol, p.YCol, p.ErrCol, p.ErrCol, p.ErrMeaning)
			for _, n := range p.Notes {
				fmt.Fprintf(&b, "- %s\n", n)
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}
