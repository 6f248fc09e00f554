package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"herd/compare"
)

// herd figures: every published chart as SVG, PNG and PDF (--format) and
// the CSV of the plotted numbers, with an index (issue 9). compare computes each
// figure's series (compare.Figures) and the index (compare.FigureIndex);
// this file runs them, figwrite.go draws and writes them.

// figuresArgs are herd figures' parsed arguments.
type figuresArgs struct {
	dir     string
	quick   bool
	only    string
	seed    uint64
	workers int
	prog    string
	formats []string // image formats, in figureFormats' order
	chosen  []compare.Figure
}

// figureFormats are the image formats herd figures writes, in the order
// it writes them and lists them; all by default. The CSV is always
// written.
var figureFormats = []string{"svg", "png", "pdf"}

// figureFormatsDefault is --format's default: every format.
const figureFormatsDefault = "png,svg,pdf"

// parseFigureFormats reads --format: a list of figureFormats, any order,
// repeats allowed; the result is in figureFormats' order.
func parseFigureFormats(s string) ([]string, error) {
	items, err := splitList("format", s)
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, it := range items {
		f := strings.ToLower(it)
		if !slices.Contains(figureFormats, f) {
			return nil, usagef("--format %s: want a list of png, svg, pdf (the CSV is always written)", it)
		}
		want[f] = true
	}
	var out []string
	for _, f := range figureFormats {
		if want[f] {
			out = append(out, f)
		}
	}
	return out, nil
}

// figureExts are the extensions of the files of one figure plot, as the
// messages list them: the chosen images, then the CSV.
func (a *figuresArgs) figureExts() []string {
	var exts []string
	for _, f := range a.formats {
		exts = append(exts, "."+f)
	}
	return append(exts, ".csv")
}

// figuresJournal is the file in DIR that keeps an interrupted herd
// figures' finished runs (compare.FigureJournal) until a rerun of the
// same command finishes every chosen figure and deletes it.
const figuresJournal = ".figures-journal"

func parseFiguresArgs(e *env, args []string) (*figuresArgs, error) {
	fs := newFlags(e, "figures", "figures DIR [--quick] [--only LIST] [flags]   (or: figures --out DIR …)")
	a := &figuresArgs{}
	out := fs.String("out", "", "the directory to write to, in place of the DIR argument (created if need be)")
	fs.BoolVar(&a.quick, "quick", false, "CI-sized run lengths; default: the run lengths of compare/validation.md")
	fs.StringVar(&a.only, "only", "", "make only these figures, e.g. 1,5,7 (list of 1–7); index.md is written only when every figure is made")
	format := fs.String("format", figureFormatsDefault, "image files of each figure: a list of png (300 dpi), svg, pdf; the CSV of its numbers is always written")
	seed := seedFlag(fs)
	workers := workersFlag(fs, defaultWorkers(), "runs and model points computed")
	prog := addProgressFlag(fs)
	positional := false
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		a.dir, args, positional = args[0], args[1:], true
	}
	if err := parse(fs, args); err != nil {
		return nil, err
	}
	a.seed, a.workers, a.prog = *seed, *workers, *prog
	if err := checkProgressMode(a.prog); err != nil {
		return nil, err
	}
	if fs.Changed("out") {
		if positional && filepath.Clean(a.dir) != filepath.Clean(*out) {
			return nil, usagef("two directories: DIR %q and --out %q; give one (herd figures DIR, or herd figures --out DIR)", a.dir, *out)
		}
		a.dir = *out
	}
	if a.dir == "" {
		return nil, usagef("want a directory: herd figures DIR [--quick] (or --out DIR)")
	}
	var err error
	if a.formats, err = parseFigureFormats(*format); err != nil {
		return nil, err
	}
	if a.workers < 1 {
		return nil, usagef("--workers %d: want an integer ≥ 1", a.workers)
	}
	defs := compare.Figures()
	if a.only == "" {
		a.chosen = defs
		return a, nil
	}
	only, err := ints("only", a.only, func(i int) bool { return i >= 1 && i <= len(defs) }, fmt.Sprintf("figure numbers from 1 to %d", len(defs)))
	if err != nil {
		return nil, err
	}
	for i, d := range defs {
		if slices.Contains(only, i+1) {
			a.chosen = append(a.chosen, d)
		}
	}
	return a, nil
}

func runFigures(ctx context.Context, e *env, args []string) error {
	a, err := parseFiguresArgs(e, args)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(a.dir, 0o755); err != nil {
		return usagef("DIR %q: %v", a.dir, err) // before any work
	}
	set := compare.FigureSettings{Quick: a.quick, Seed: a.seed, Workers: a.workers}
	jpath := filepath.Join(a.dir, figuresJournal)
	journal, err := compare.OpenFigureJournal(jpath, set)
	if mis := (*compare.FigureJournalMismatchError)(nil); errors.As(err, &mis) {
		return usagef("%v", err) // before any work
	}
	if err != nil {
		return err
	}
	defer journal.Close()
	if n := journal.Len(); n > 0 {
		fmt.Fprintf(e.stderr, "herd figures: resuming: %s from %s\n", plural(n, "1 finished run", fmt.Sprintf("%d finished runs", n)), jpath)
	}
	set.Journal = journal
	prog := newFigureProgress(e.stderr, a.prog, a.chosen, a.figureExts())
	defer prog.Close()
	set.Progress = prog.update
	plots := make([][]*compare.FigurePlot, len(a.chosen))
	var mu sync.Mutex
	err = compare.MakeFigures(ctx, set, a.chosen, func(i int, ps []*compare.FigurePlot) error {
		for _, p := range ps {
			if err := writeFigurePlot(p, a.dir, a.formats); err != nil {
				return fmt.Errorf("figure %s: %w", a.chosen[i].ID, err)
			}
		}
		mu.Lock()
		plots[i] = ps
		mu.Unlock()
		prog.written(i, ps)
		return nil
	})
	if err != nil {
		prog.Close()
		what := figuresWritten(a, plots)
		if n := journal.Abandon(); n > 0 {
			what += fmt.Sprintf("; %s kept in %s: run the same command again to resume",
				plural(n, "1 finished run", fmt.Sprintf("%d finished runs", n)), jpath)
		}
		if errors.Is(err, context.Canceled) || ctx.Err() != nil {
			return fmt.Errorf("interrupted: %s", what)
		}
		return fmt.Errorf("%w; %s", err, what)
	}
	if a.only == "" {
		if err := writeFigureIndex(a, plots); err != nil {
			return err
		}
	}
	// Every chosen figure is written: the journal has done its work,
	// unless an earlier run on it set out to make other figures.
	ids := make([]string, len(a.chosen))
	for i, f := range a.chosen {
		ids[i] = f.ID
	}
	if deleted, err := journal.Finish(ids); err != nil || deleted {
		return err
	}
	fmt.Fprintf(e.stderr, "herd figures: %s kept: it holds finished runs of figures this run did not make; a run that makes them deletes it\n", jpath)
	return nil
}

func defaultWorkers() int { return runtime.NumCPU() }

// figuresWritten says exactly what an interrupted or failed herd figures
// left in its directory: the figures written (each its images and CSV),
// those not made (nothing of them written), and that index.md was not
// written.
func figuresWritten(a *figuresArgs, plots [][]*compare.FigurePlot) string {
	var done, not, stems []string
	for i, f := range a.chosen {
		if plots[i] == nil {
			not = append(not, f.ID)
			continue
		}
		done = append(done, f.ID)
		for _, p := range plots[i] {
			stems = append(stems, p.Stem)
		}
	}
	var b strings.Builder
	if len(done) == 0 {
		b.WriteString("nothing was written")
	} else {
		exts := a.figureExts()
		fmt.Fprintf(&b, "%s %s written to %s (%s, each as %s and %s)",
			plural(len(done), "figure", "figures"), strings.Join(done, ", "), a.dir, strings.Join(stems, ", "),
			strings.Join(exts[:len(exts)-1], ", "), exts[len(exts)-1])
	}
	if len(not) > 0 {
		fmt.Fprintf(&b, "; %s %s not made (no file of %s written)", plural(len(not), "figure", "figures"),
			strings.Join(not, ", "), plural(len(not), "it", "them"))
	}
	if a.only == "" {
		b.WriteString("; index.md not written")
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, ", ")
}
