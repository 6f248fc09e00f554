package main

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"herd/cmd/internal/plotting"
	"herd/cmd/internal/table"
	"herd/compare"
	"herd/compare/atomicfile"
	"herd/compare/sweep"
)

// plotFigure turns a figure's plot into the drawing: its series and bands
// as plotting draws them.
func plotFigure(p *compare.FigurePlot) plotting.Figure {
	fig := plotting.Figure{Title: p.Title, XLabel: p.XLabel, YLabel: p.YLabel, LogX: p.LogX, LogY: p.LogY}
	for _, s := range p.Series {
		fig.Series = append(fig.Series, plotting.Series{Name: s.Name, X: s.X, Y: s.Y, YErr: s.YErr, Line: s.Line, Group: s.Group})
	}
	for _, b := range p.Bands {
		fig.Bands = append(fig.Bands, plotting.Band{XMin: b.XMin, XMax: b.XMax, Label: b.Label})
	}
	return fig
}

// savePlot draws a command's plot into the --plot file.
func savePlot(path string, p *compare.FigurePlot) error {
	if err := plotting.Save(plotFigure(p), path); err != nil {
		return fmt.Errorf("--plot: %w", err)
	}
	return nil
}

// logAxes makes p's x axis (if x) and y axis (if y) logarithmic when the
// values of its series span decades (plotting.SpansDecades).
func logAxes(p *compare.FigurePlot, x, y bool) {
	var xs, ys []float64
	for _, s := range p.Series {
		xs, ys = append(xs, s.X...), append(ys, s.Y...)
	}
	p.LogX = p.LogX || (x && plotting.SpansDecades(xs))
	p.LogY = p.LogY || (y && plotting.SpansDecades(ys))
}

// writeFigurePlot saves the plot in each of formats (svg, png, pdf) and
// its numbers as CSV, each atomically.
func writeFigurePlot(p *compare.FigurePlot, dir string, formats []string) error {
	fig := plotFigure(p)
	for _, f := range formats {
		if err := plotting.Save(fig, filepath.Join(dir, p.Stem+"."+f)); err != nil {
			return err
		}
	}
	return writeCSVFile(filepath.Join(dir, p.Stem+".csv"), figureTable(p))
}

// writeCSVFile writes t as CSV into the file at path, atomically.
func writeCSVFile(path string, t *table.Table) error {
	var buf bytes.Buffer
	if err := t.WriteCSV(&buf); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, buf.Bytes())
}

// figureTable is the plot's CSV: every computed point is a row, drawn or
// not (a non-finite value is an empty cell), so that the CSV shows the
// data before it is drawn; then the two ends of each band.
func figureTable(p *compare.FigurePlot) *table.Table {
	t := &table.Table{Columns: []table.Column{{Name: "series"}, {Name: "kind"},
		{Name: p.XCol}, {Name: p.YCol}, {Name: p.ErrCol}, {Name: "se"}, {Name: "runs"}, {Name: "note"}}}
	for _, s := range p.Series {
		for i := range s.X {
			note := ""
			if s.Notes != nil {
				note = s.Notes[i]
			}
			if note == compare.BreakNote {
				continue // a break in the drawn line, not a computed point
			}
			if !drawn(p, s.X[i], s.Y[i]) && !strings.HasPrefix(note, compare.GapNote) {
				note = strings.TrimPrefix(note+"; not drawn (not finite, or not positive on a log axis)", "; ")
			}
			errCell, seCell, runsCell := figureErrCells(s, i)
			t.AddRow(s.Name, s.Kind, s.X[i], s.Y[i], errCell, seCell, runsCell, note)
		}
	}
	for _, bd := range p.Bands {
		t.AddRow(bd.Label, "band", bd.XMin, nil, nil, nil, nil, "start of the shaded range")
		t.AddRow(bd.Label, "band", bd.XMax, nil, nil, nil, nil, "end of the shaded range")
	}
	return t
}

// drawn reports whether a point can be drawn on the plot's axes.
func drawn(p *compare.FigurePlot, x, y float64) bool {
	return !math.IsNaN(x) && !math.IsInf(x, 0) && !math.IsNaN(y) && !math.IsInf(y, 0) &&
		(!p.LogX || x > 0) && (!p.LogY || y > 0)
}

// figureErrCells are point i's error bar, standard error and run count
// cells (nil: empty): a sim point's, or a model point's that is the
// long-run average of an irregular orbit (its batch means).
func figureErrCells(s compare.FigureSeries, i int) (errCell, seCell, runsCell any) {
	if s.YErr != nil {
		if v := s.YErr[i]; v > 0 && !math.IsInf(v, 0) {
			errCell = v
		}
	}
	if i < len(s.SE) && i < len(s.Runs) && s.Runs[i] > 0 {
		seCell, runsCell = s.SE[i], s.Runs[i]
	}
	return errCell, seCell, runsCell
}

// writeFigureIndex writes DIR/index.md (compare.FigureIndex) with the
// command that makes the figures, and alone each one.
func writeFigureIndex(a *figuresArgs, plots [][]*compare.FigurePlot) error {
	flags := ""
	if a.quick {
		flags = " --quick"
	}
	if a.seed != 1 {
		flags += " --seed " + strconv.FormatUint(a.seed, 10)
	}
	if len(a.formats) != len(figureFormats) {
		flags += " --format " + strings.Join(a.formats, ",")
	}
	x := compare.FigureIndex{Version: version, Quick: a.quick, Seed: a.seed, Command: "herd figures " + sweep.ShellQuote(a.dir), Flags: flags,
		Formats: a.formats, Figures: a.chosen, Plots: plots}
	if err := atomicfile.WriteFile(filepath.Join(a.dir, "index.md"), []byte(x.Markdown())); err != nil {
		return fmt.Errorf("figures: %w", err)
	}
	return nil
}
