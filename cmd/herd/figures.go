package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"herd/cmd/internal/plotting"
	"herd/cmd/internal/table"
	"herd/compare"
	"herd/meanfield"
	"herd/sim"
)

// herd figures: every published chart as SVG, PNG and the CSV of the
// plotted numbers, with an index (issue 9).

// figOpts is what every figure builder needs.
type figOpts struct {
	e       *env
	quick   bool
	seed    uint64
	workers int
	name    string // the figure being built, for progress lines
}

// figSeries is one plotted series with what the CSV says about it.
type figSeries struct {
	plotting.Series
	kind  string   // sim, model, closed_form, law, bracket
	notes []string // per point (nil: none)
	// se and runs are, per point of a sim series, the standard error and
	// the number of runs behind its bar (nil for other series).
	se   []float64
	runs []int
}

// figPlot is one output figure: the plot, its CSV columns and its index text.
type figPlot struct {
	stem               string // file name without extension
	fig                plotting.Figure
	series             []figSeries
	xCol, yCol, errCol string // CSV column names of x, y and the error bar
	errMeaning         string // what the error column holds
	notes              []string
}

// figDef is one numbered figure of the issue; it may make several plots.
type figDef struct {
	id, heading, about string
	make               func(ctx context.Context, o *figOpts) ([]*figPlot, error)
}

func figureDefs() []figDef {
	return []figDef{
		{"1", "Stale board, one dispatcher",
			"Mean time in system against the refresh period T for least loaded, best of two, least loaded + own tally, random and round robin (100 servers, λ = 0.9); periodic-update model lines for least loaded and best of two, and the closed forms of random (M/M/1) and round robin (E_100/M/1).",
			figStaleBoard},
		{"2", "Several dispatchers",
			"Least loaded + own tally for k = 1, 2, 3, 5, 10 dispatchers against T, with best of two (no tally, one dispatcher) for reference (100 servers, λ = 0.9). Lines: the refresh map (N → ∞) from an empty board, in the colour of the simulator points they predict.",
			figDispatchers},
		{"3", "Round robin against random, 50–95% load",
			"Live boards, 100 servers: random, round robin and best of two against λ, with the closed forms M/M/1, D/M/1 (round robin, N → ∞) and the supermarket model SQ(2) (N → ∞). The shaded line marks the load where live best of two and round robin cross (closed forms: λ ≈ 0.52); above it best of two is better.",
			figRoundRobin},
		{"4", "Heavy tails",
			"(a) Live boards, hyperexponential (h2) sizes with squared coefficient of variation C (C = 1: exponential): random, round robin, best of two, least loaded and the least-work oracle, with the Pollaczek–Khinchine mean for random. (b) Best of two and least loaded against T at C = 30.",
			figHeavyTails},
		{"5", "The edge",
			"T_edge(1−λ)² against the number of dispatchers k: the refresh map's edge (lines, one per load), the law 0.9(k−2), and the simulator's brackets at N = 100, λ = 0.9 (points at the bracket's midpoint, bars spanning the bracket).",
			figEdge},
		{"6", "Finite size",
			"The simulator's bracket of the edge T_edge(1−λ)² against the number of servers N (5 dispatchers, λ = 0.9; points at the midpoint, bars spanning the bracket), with the refresh map's edge (N → ∞).",
			figFiniteSize},
		{"7", "The trap door",
			"Both branches against T for 5 dispatchers with own tallies (λ = 0.9): the refresh map's attractor from an empty board (balanced) and from half the servers holding 0.1·T jobs (herd), and the simulator (100 servers) from the same starts; the model's bistable range is shaded.",
			figTrapDoor},
	}
}

func runFigures(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "figures", "figures DIR [--quick] [--only LIST] [flags]")
	quick := fs.Bool("quick", false, "CI-sized run lengths (well under 2 minutes on 2 cores); default: the run lengths of validation.md")
	only := fs.String("only", "", "make only these figures, e.g. 1,5,7 (list of 1–7); index.md is written only when every figure is made")
	seed := fs.Uint64("seed", 1, "master seed; each run's seed is derived from it and the run's parameters")
	workers := fs.Int("workers", defaultWorkers(), "runs and model points computed in parallel (the files do not depend on it)")
	var dir string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		dir, args = args[0], args[1:]
	}
	if err := parse(fs, args); err != nil {
		return err
	}
	if dir == "" {
		return usagef("want a directory: herd figures DIR [--quick]")
	}
	if *workers < 1 {
		return usagef("--workers %d: want an integer ≥ 1", *workers)
	}
	defs := figureDefs()
	chosen := make([]bool, len(defs))
	if *only == "" {
		for i := range chosen {
			chosen[i] = true
		}
	} else {
		ids, err := splitList("only", *only)
		if err != nil {
			return err
		}
		for _, id := range ids {
			i, err := strconv.Atoi(id)
			if err != nil || i < 1 || i > len(defs) {
				return usagef("--only %s: want figure numbers from 1 to %d", id, len(defs))
			}
			chosen[i-1] = true
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return usagef("DIR %q: %v", dir, err) // before any work
	}
	o := &figOpts{e: e, quick: *quick, seed: *seed, workers: *workers}
	type made struct {
		def   figDef
		plots []*figPlot
		wall  time.Duration
	}
	var all []made
	for i, d := range defs {
		if !chosen[i] {
			continue
		}
		start := time.Now()
		o.name = "figure " + d.id
		fmt.Fprintf(e.stderr, "figures: figure %s (%s)…\n", d.id, strings.ToLower(d.heading))
		plots, err := d.make(ctx, o)
		if err != nil {
			if ctx.Err() != nil {
				return figuresInterrupted(d.id, dir, len(all))
			}
			return fmt.Errorf("figure %s: %w", d.id, err)
		}
		for _, p := range plots {
			if err := p.write(dir); err != nil {
				return fmt.Errorf("figure %s: %w", d.id, err)
			}
		}
		wall := time.Since(start)
		fmt.Fprintf(e.stderr, "figures: figure %s done in %.1f s\n", d.id, wall.Seconds())
		all = append(all, made{d, plots, wall})
	}
	if *only != "" {
		return nil
	}
	var b strings.Builder
	mode := "full run lengths (validation.md)"
	flags := ""
	if *quick {
		mode = "quick, CI-sized run lengths"
		flags = " --quick"
	}
	if *seed != 1 {
		flags += " --seed " + strconv.FormatUint(*seed, 10)
	}
	qdir := shellQuote(dir)
	fmt.Fprintf(&b, "# herd figures\n\nMade by herd %s with %s, master seed %d: `herd figures %s%s`.\n", version, mode, *seed, qdir, flags)
	b.WriteString("Unless a figure says otherwise: 100 servers, load λ = 0.9, exponential sizes, times in mean service times; simulator points are means over independent runs with 95% bars, t(0.975, runs − 1) standard errors (Student-t); lines are models (closed forms or mean-field, N → ∞).\n\n")
	b.WriteString("Each CSV holds exactly the plotted numbers, one row per point: `series` (the legend entry; empty for an unnamed model line, which takes the colour of the points it predicts), `kind` (`sim`, `model`, `closed_form`, `law`, `bracket`, or `band` for the two ends of a shaded range), x, y and the error bar (figure-specific names below; empty where a point has none), `se` and `runs` (a sim point's standard error and run count), and `note`. Every computed point is a row, including any that is not drawn (its note says so).\n")
	for _, m := range all {
		d := m.def
		fmt.Fprintf(&b, "\n## Figure %s: %s\n\n%s\n\n", d.id, d.heading, d.about)
		fmt.Fprintf(&b, "Reproduce alone: `herd figures %s --only %s%s`\n\n", qdir, d.id, flags)
		for _, p := range m.plots {
			fmt.Fprintf(&b, "![%s](%s.png)\n\n", p.fig.Title, p.stem)
			fmt.Fprintf(&b, "- files: [%[1]s.svg](%[1]s.svg), [%[1]s.png](%[1]s.png), [%[1]s.csv](%[1]s.csv)\n", p.stem)
			fmt.Fprintf(&b, "- CSV columns: `series,kind,%s,%s,%s,se,runs,note`; `%s` is %s\n", p.xCol, p.yCol, p.errCol, p.errCol, p.errMeaning)
			for _, n := range p.notes {
				fmt.Fprintf(&b, "- %s\n", n)
			}
			b.WriteString("\n")
		}
	}
	if err := writeAtomic(filepath.Join(dir, "index.md"), []byte(b.String())); err != nil {
		return fmt.Errorf("figures: %w", err)
	}
	return nil
}

func defaultWorkers() int { return runtime.NumCPU() }

// write saves the plot as SVG and PNG and its numbers as CSV, each atomically.
func (p *figPlot) write(dir string) error {
	p.fig.Series = p.fig.Series[:0]
	for _, s := range p.series {
		p.fig.Series = append(p.fig.Series, s.Series)
	}
	for _, ext := range []string{".svg", ".png"} {
		if err := plotting.Save(p.fig, filepath.Join(dir, p.stem+ext)); err != nil {
			return err
		}
	}
	t := &table.Table{Columns: []table.Column{{Name: "series"}, {Name: "kind"},
		{Name: p.xCol}, {Name: p.yCol}, {Name: p.errCol}, {Name: "se"}, {Name: "runs"}, {Name: "note"}}}
	drawn := func(x, y float64) bool {
		return !math.IsNaN(x) && !math.IsInf(x, 0) && !math.IsNaN(y) && !math.IsInf(y, 0) &&
			(!p.fig.LogX || x > 0) && (!p.fig.LogY || y > 0)
	}
	// Every computed point is a row, drawn or not (a non-finite value is
	// an empty cell), so that the CSV shows the data before it is drawn.
	for _, s := range p.series {
		for i := range s.X {
			var errCell, seCell, runsCell any
			if s.YErr != nil && !s.Line {
				if v := s.YErr[i]; v > 0 && !math.IsInf(v, 0) {
					errCell = v
				}
			}
			if s.se != nil {
				seCell, runsCell = s.se[i], s.runs[i]
			}
			note := ""
			if s.notes != nil {
				note = s.notes[i]
			}
			if note == breakNote {
				continue // a break in the drawn line, not a computed point
			}
			if !drawn(s.X[i], s.Y[i]) && !strings.HasPrefix(note, gapNote) {
				note = strings.TrimPrefix(note+"; not drawn (not finite, or not positive on a log axis)", "; ")
			}
			t.AddRow(s.Name, s.kind, s.X[i], s.Y[i], errCell, seCell, runsCell, note)
		}
	}
	for _, bd := range p.fig.Bands {
		t.AddRow(bd.Label, "band", bd.XMin, nil, nil, nil, nil, "start of the shaded range")
		t.AddRow(bd.Label, "band", bd.XMax, nil, nil, nil, nil, "end of the shaded range")
	}
	var buf bytes.Buffer
	if err := t.WriteCSV(&buf); err != nil {
		return err
	}
	return writeAtomic(filepath.Join(dir, p.stem+".csv"), buf.Bytes())
}

// add appends a series to the plot.
func (p *figPlot) add(s figSeries) { p.series = append(p.series, s) }

// gapNote starts the note of a point with no value; why follows it.
const gapNote = "no value: "

// breakNote marks a break in a drawn line (lineBreak): not a computed
// point, so not a row of the CSV.
const breakNote = "\x00line break"

// lineBreak ends the drawn line here, so that no segment joins the points
// on either side (a balanced value and a herd, with the edge between).
func (s *figSeries) lineBreak() { s.point(math.NaN(), math.NaN(), 0, breakNote) }

// gap appends a point with no value at x (a gap in a line, an empty cell
// in the CSV), saying why.
func (s *figSeries) gap(x float64, why string) { s.point(x, math.NaN(), 0, gapNote+why) }

// point appends one point to a series.
func (s *figSeries) point(x, y, yerr float64, note string) {
	s.X = append(s.X, x)
	s.Y = append(s.Y, y)
	if s.YErr != nil || yerr != 0 {
		for len(s.YErr) < len(s.Y)-1 {
			s.YErr = append(s.YErr, math.NaN())
		}
		s.YErr = append(s.YErr, yerr)
	}
	if s.notes != nil || note != "" {
		for len(s.notes) < len(s.X)-1 {
			s.notes = append(s.notes, "")
		}
		s.notes = append(s.notes, note)
	}
}

// simulate runs every configuration runs times (seeds from the master seed,
// the configuration and the replication) and returns one summary each.
func (o *figOpts) simulate(ctx context.Context, cfgs []sim.Config, runs int) ([]sim.Summary, error) {
	var tasks []sim.Task
	for _, c := range cfgs {
		if err := c.Validate(); err != nil {
			return nil, err
		}
		key := c.Key()
		for rep := 0; rep < runs; rep++ {
			tasks = append(tasks, sim.Task{Config: c, Seed: sim.Seed(o.seed, key, rep)})
		}
	}
	prog := newProgress(o.e.stderr, o.name, "runs")
	res, _, err := sim.RunAll(ctx, tasks, o.workers, prog.update)
	prog.finish()
	if err != nil {
		return nil, err
	}
	out := make([]sim.Summary, len(cfgs))
	for i, c := range cfgs {
		out[i] = sim.Summarize(c, res[i*runs:(i+1)*runs])
	}
	return out, nil
}

// models computes n model points in parallel.
func (o *figOpts) models(ctx context.Context, n int, work func(i int)) error {
	prog := newProgress(o.e.stderr, o.name, "model points")
	done := parallel(ctx, n, o.workers, work, prog.update)
	prog.finish()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	for _, d := range done {
		if !d {
			return errors.New("a model point did not finish")
		}
	}
	return nil
}

// simSeries turns summaries into a point series with 95% bars,
// t(0.975, runs − 1) standard errors.
func simSeries(name, group string, xs []float64, sums []sim.Summary) figSeries {
	s := figSeries{Series: plotting.Series{Name: name, Group: group}, kind: "sim"}
	for i, sm := range sums {
		s.point(xs[i], sm.Response.Mean, ci95(sm.Response.SE, sm.Response.N), "")
		s.se = append(s.se, sm.Response.SE)
		s.runs = append(s.runs, sm.Response.N)
	}
	return s
}

func lineSeries(name, group, kind string) figSeries {
	return figSeries{Series: plotting.Series{Name: name, Group: group, Line: true}, kind: kind}
}

// simLength is a run length: the horizon in service times at refresh
// period T (0: live) and the runs per point.
type simLength struct {
	runs                int
	minHorizon, perT    float64 // horizon = max(minHorizon, perT·T)
	quickNote, fullNote string
}

func (l simLength) horizon(T float64) float64 { return math.Max(l.minHorizon, l.perT*T) }

func (l simLength) describe() string {
	if l.perT > 0 {
		return fmt.Sprintf("simulator: %d runs per point, each max(%g, %g·T) service times, the first quarter discarded", l.runs, l.minHorizon, l.perT)
	}
	return fmt.Sprintf("simulator: %d runs per point, each %g service times, the first quarter discarded", l.runs, l.minHorizon)
}

const figLoad = 0.9

func fstr(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// --- Figure 1 -------------------------------------------------------------

func figStaleBoard(ctx context.Context, o *figOpts) ([]*figPlot, error) {
	ts := []float64{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000}
	len1 := simLength{runs: 6, minHorizon: 100000, perT: 300}
	llT := []float64{1, 1.5, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30}
	sqT := []float64{1, 1.5, 2, 3, 5, 7, 10, 15, 20, 30, 50, 70, 100, 150, 200, 300, 500, 700, 1000}
	if o.quick {
		len1 = simLength{runs: 3, minHorizon: 3000, perT: 20}
		llT = []float64{1, 2, 3, 5, 7, 10, 15, 20, 30}
		sqT = []float64{1, 2, 5, 10, 20, 50, 100, 200, 500}
	}
	type pol struct {
		name, group string
		p           sim.Policy
		tally       sim.Tally
	}
	pols := []pol{
		{"least loaded", "ll", sim.Policy{Kind: sim.LeastLoaded}, sim.TallyNone},
		{"best of two", "sq2", sim.Policy{Kind: sim.BestOfD, D: 2}, sim.TallyNone},
		{"least loaded + own tally", "llown", sim.Policy{Kind: sim.LeastLoaded}, sim.TallyOwn},
		{"random", "random", sim.Policy{Kind: sim.Random}, sim.TallyNone},
		{"round robin", "rr", sim.Policy{Kind: sim.RoundRobin}, sim.TallyNone},
	}
	var cfgs []sim.Config
	for _, p := range pols {
		for _, T := range ts {
			cfgs = append(cfgs, sim.Config{Servers: 100, Load: figLoad, Refresh: T, Policy: p.p, Tally: p.tally, Horizon: len1.horizon(T)})
		}
	}
	sums, err := o.simulate(ctx, cfgs, len1.runs)
	if err != nil {
		return nil, err
	}
	// The periodic-update models, least loaded and best of two.
	type mpt struct {
		policy string
		T      float64
		r      meanfield.ClassicResult
		err    error
	}
	var mps []*mpt
	for _, T := range llT {
		mps = append(mps, &mpt{policy: "ll", T: T})
	}
	for _, T := range sqT {
		mps = append(mps, &mpt{policy: "sqd", T: T})
	}
	if err := o.models(ctx, len(mps), func(i int) {
		m := mps[i]
		m.r, m.err = meanfield.ClassicModel(meanfield.ClassicSettings{Policy: m.policy, Choices: 2, Load: figLoad, Refresh: m.T})
	}); err != nil {
		return nil, err
	}
	rr, err := meanfield.ErlangM1(100, figLoad)
	if err != nil {
		return nil, err
	}
	p := responseVsRefresh("fig1-stale-board", "Stale board, one dispatcher (N = 100, λ = 0.9)", true)
	var warn []string
	model := map[string]figSeries{
		"ll":  lineSeries("least loaded, model", "ll", "model"),
		"sqd": lineSeries("best of two, model", "sq2", "model"),
	}
	irregular := 0
	for _, m := range mps {
		s := model[m.policy]
		if m.err != nil {
			warn = append(warn, fmt.Sprintf("model %s at T = %g: %v (point skipped)", m.policy, m.T, m.err))
			s.gap(m.T, m.err.Error())
		} else {
			note := ""
			if m.r.Status == meanfield.Aperiodic {
				note = fmt.Sprintf("irregular: long-run average, s.e. %.2g", m.r.ResponseSE)
				irregular++
			}
			s.point(m.T, m.r.ResponseMean, 0, note)
		}
		model[m.policy] = s
	}
	for i, pl := range pols {
		p.add(simSeries(pl.name, pl.group, ts, sums[i*len(ts):(i+1)*len(ts)]))
		switch pl.group {
		case "ll":
			p.add(model["ll"])
		case "sq2":
			p.add(model["sqd"])
		case "random":
			s := lineSeries("random, M/M/1", "random", "closed_form")
			s.point(ts[0], 1/(1-figLoad), 0, "")
			s.point(ts[len(ts)-1], 1/(1-figLoad), 0, "")
			p.add(s)
		case "rr":
			s := lineSeries("round robin, E_100/M/1", "rr", "closed_form")
			s.point(ts[0], rr.Response, 0, "")
			s.point(ts[len(ts)-1], rr.Response, 0, "")
			p.add(s)
		}
	}
	p.notes = append(p.notes, len1.describe()+"; refresh periods T = "+joinFloats(ts),
		fmt.Sprintf("least loaded model: the periodic-update least-loaded map (meanfield.ClassicModel \"ll\") from an empty board, at T = %s; where it has no fixed point or short cycle (%d points, T ≳ 5) the value is its long-run average (note `irregular`, with its batch-means s.e.). Beyond T = %g it is not drawn: from T ≈ 50 the map is not stationary (its average grows with the averaging window)", joinFloats(llT), irregular, llT[len(llT)-1]),
		"best of two model: the periodic-update SQ(2) map (Mitzenmacher 2000; probes with replacement) at T = "+joinFloats(sqT),
		"flat lines: random is M/M/1, 1/(1−λ) = 10; round robin with 100 servers is E_100/M/1 (neither reads the board)")
	p.notes = append(p.notes, warn...)
	return []*figPlot{p}, nil
}

func joinFloats(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fstr(x)
	}
	return strings.Join(parts, ", ")
}

// --- Figure 2 -------------------------------------------------------------

func figDispatchers(ctx context.Context, o *figOpts) ([]*figPlot, error) {
	ks := []int{1, 2, 3, 5, 10}
	ts := []float64{1, 2, 5, 10, 20, 50, 100, 200, 300, 500, 700, 1000}
	len2 := simLength{runs: 6, minHorizon: 100000, perT: 300}
	if o.quick {
		ts = []float64{1, 5, 20, 50, 100, 200, 500, 1000}
		len2 = simLength{runs: 3, minHorizon: 3000, perT: 20}
	}
	var cfgs []sim.Config
	for _, k := range ks {
		for _, T := range ts {
			cfgs = append(cfgs, sim.Config{Servers: 100, Dispatchers: k, Load: figLoad, Refresh: T,
				Policy: sim.Policy{Kind: sim.LeastLoaded}, Tally: sim.TallyOwn, Horizon: len2.horizon(T)})
		}
	}
	for _, T := range ts {
		cfgs = append(cfgs, sim.Config{Servers: 100, Load: figLoad, Refresh: T,
			Policy: sim.Policy{Kind: sim.BestOfD, D: 2}, Horizon: len2.horizon(T)})
	}
	sums, err := o.simulate(ctx, cfgs, len2.runs)
	if err != nil {
		return nil, err
	}
	type mpt struct {
		k   int
		T   float64
		a   meanfield.HerdAttractor
		err error
	}
	var mps []*mpt
	for _, k := range ks {
		for _, T := range ts {
			mps = append(mps, &mpt{k: k, T: T})
		}
	}
	if err := o.models(ctx, len(mps), func(i int) {
		m := mps[i]
		m.a, m.err = meanfield.FindHerdAttractor(meanfield.Refresh{Dispatchers: m.k, Load: figLoad, Period: m.T},
			meanfield.BoardEmpty(), meanfield.HerdSettings{})
	}); err != nil {
		return nil, err
	}
	p := responseVsRefresh("fig2-dispatchers", "k dispatchers, least loaded + own tally (N = 100, λ = 0.9; lines: refresh map)", true)
	var warn []string
	for j, k := range ks {
		g := "k" + strconv.Itoa(k)
		p.add(simSeries(fmt.Sprintf("k = %d (sim)", k), g, ts, sums[j*len(ts):(j+1)*len(ts)]))
		line := lineSeries("", g, "model")
		var prev *mpt
		for _, m := range mps {
			if m.k != k {
				continue
			}
			if m.err != nil {
				warn = append(warn, fmt.Sprintf("model k = %d, T = %g: %v (point skipped)", k, m.T, m.err))
				line.gap(m.T, fmt.Sprintf("k = %d: %v", k, m.err))
				continue
			}
			if prev != nil && prev.a.Herd != m.a.Herd {
				line.lineBreak() // the edge lies between: no line across it
			}
			prev = m
			line.point(m.T, m.a.Response, 0, fmt.Sprintf("k = %d, %s", k, herdKind(m.a)))
		}
		p.add(line)
	}
	p.add(simSeries("best of two, no tally (sim)", "sq2", ts, sums[len(ks)*len(ts):]))
	p.notes = append(p.notes, len2.describe()+"; refresh periods T = "+joinFloats(ts),
		"lines (unnamed in the legend, `series` empty in the CSV; `note` names k and the attractor): the refresh map's attractor from an empty board (meanfield.FindHerdAttractor, default settings), its mean time by Little's law; aperiodic herds are window averages")
	p.notes = append(p.notes, warn...)
	return []*figPlot{p}, nil
}

// --- Figure 3 -------------------------------------------------------------

func figRoundRobin(ctx context.Context, o *figOpts) ([]*figPlot, error) {
	var loads []float64
	for i := 0; i <= 9; i++ {
		loads = append(loads, float64(50+5*i)/100)
	}
	len3 := simLength{runs: 6, minHorizon: 100000}
	if o.quick {
		len3 = simLength{runs: 3, minHorizon: 3000}
	}
	pols := []struct {
		name, group string
		p           sim.Policy
	}{
		{"random", "random", sim.Policy{Kind: sim.Random}},
		{"round robin", "rr", sim.Policy{Kind: sim.RoundRobin}},
		{"best of two, live", "sq2", sim.Policy{Kind: sim.BestOfD, D: 2}},
	}
	var cfgs []sim.Config
	for _, pl := range pols {
		for _, l := range loads {
			cfgs = append(cfgs, sim.Config{Servers: 100, Load: l, Policy: pl.p, Horizon: len3.horizon(0)})
		}
	}
	sums, err := o.simulate(ctx, cfgs, len3.runs)
	if err != nil {
		return nil, err
	}
	cross, err := meanfield.SupermarketRoundRobinCrossing(2)
	if err != nil {
		return nil, err
	}
	p := &figPlot{
		stem: "fig3-round-robin",
		fig: plotting.Figure{
			Title:  "Round robin against random and best of two, live boards (N = 100)",
			XLabel: "load λ (arrivals per server per service time)",
			YLabel: "mean time in system (service times)",
			LogY:   true,
		},
		xCol: "load", yCol: "response_mean", errCol: "ci95",
		errMeaning: "the 95% interval's half-width, t(0.975, runs − 1) standard errors across runs (sim points; `se` and `runs` give the standard error and the run count)",
	}
	lines := []figSeries{
		lineSeries("M/M/1", "random", "closed_form"),
		lineSeries("D/M/1 (N → ∞)", "rr", "closed_form"),
		lineSeries("SQ(2) (N → ∞)", "sq2", "closed_form"),
	}
	for i := 0; i <= 90; i++ {
		l := 0.5 + float64(i)*0.005
		if i == 90 {
			l = 0.95
		}
		mm1, err1 := meanfield.MM1Response(l)
		dm1, err2 := meanfield.DM1(l)
		sq, err3 := meanfield.SupermarketResponse(2, l)
		if err := errors.Join(err1, err2, err3); err != nil {
			return nil, err
		}
		lines[0].point(l, mm1, 0, "")
		lines[1].point(l, dm1.Response, 0, "")
		lines[2].point(l, sq, 0, "")
	}
	for j, pl := range pols {
		p.add(simSeries(pl.name, pl.group, loads, sums[j*len(loads):(j+1)*len(loads)]))
		p.add(lines[j])
	}
	p.fig.Bands = []plotting.Band{{XMin: cross.Load - 0.002, XMax: cross.Load + 0.002,
		Label: fmt.Sprintf("SQ(2) = D/M/1 at λ = %.3f", cross.Load)}}
	p.notes = append(p.notes, len3.describe()+"; loads "+joinFloats(loads),
		fmt.Sprintf("closed forms on a grid of step 0.005; the crossing of live best of two (supermarket SQ(2)) and round robin (D/M/1), both N → ∞, is at λ = %.4f (mean time %.4f), drawn as a band of width 0.004 (the CSV's band rows give its ends)", cross.Load, cross.Response))
	return []*figPlot{p}, nil
}

// --- Figure 4 -------------------------------------------------------------

func h2Sizes(c float64) sim.Sizes {
	if c == 1 {
		return sim.Sizes{Kind: sim.Exp}
	}
	return sim.Sizes{Kind: sim.H2, Param: c}
}

func figHeavyTails(ctx context.Context, o *figOpts) ([]*figPlot, error) {
	cs := []float64{1, 4, 10, 30}
	ts := []float64{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000}
	len4 := simLength{runs: 6, minHorizon: 400000, perT: 300}
	if o.quick {
		len4 = simLength{runs: 3, minHorizon: 5000, perT: 20}
	}
	pols := []struct {
		name, group string
		p           sim.Policy
	}{
		{"random", "random", sim.Policy{Kind: sim.Random}},
		{"round robin", "rr", sim.Policy{Kind: sim.RoundRobin}},
		{"best of two", "sq2", sim.Policy{Kind: sim.BestOfD, D: 2}},
		{"least loaded", "ll", sim.Policy{Kind: sim.LeastLoaded}},
		{"least-work oracle", "oracle", sim.Policy{Kind: sim.Oracle}},
	}
	var cfgs []sim.Config
	for _, pl := range pols {
		for _, c := range cs {
			cfgs = append(cfgs, sim.Config{Servers: 100, Load: figLoad, Policy: pl.p, Sizes: h2Sizes(c), Horizon: len4.horizon(0)})
		}
	}
	for _, pl := range pols[2:4] {
		for _, T := range ts {
			cfgs = append(cfgs, sim.Config{Servers: 100, Load: figLoad, Refresh: T, Policy: pl.p, Sizes: h2Sizes(30), Horizon: len4.horizon(T)})
		}
	}
	sums, err := o.simulate(ctx, cfgs, len4.runs)
	if err != nil {
		return nil, err
	}
	pk := func(c float64) (float64, error) {
		m2, err := meanfield.SecondMomentH2(c)
		if err != nil {
			return 0, err
		}
		return meanfield.PKResponse(figLoad, m2)
	}
	a := &figPlot{
		stem: "fig4a-heavy-tails",
		fig: plotting.Figure{
			Title:  "Heavy tails, live boards (N = 100, λ = 0.9, h2 sizes)",
			XLabel: "squared coefficient of variation of job sizes C",
			YLabel: "mean time in system (service times)",
			LogX:   true, LogY: true,
		},
		xCol: "scv", yCol: "response_mean", errCol: "ci95",
		errMeaning: "the 95% interval's half-width, t(0.975, runs − 1) standard errors across runs (sim points; `se` and `runs` give the standard error and the run count)",
	}
	pkLine := lineSeries("random, Pollaczek–Khinchine", "random", "closed_form")
	for i := 0; i <= 30; i++ {
		c := math.Pow(30, float64(i)/30)
		if i == 30 {
			c = 30
		}
		v, err := pk(c)
		if err != nil {
			return nil, err
		}
		pkLine.point(c, v, 0, "")
	}
	for j, pl := range pols {
		a.add(simSeries(pl.name, pl.group, cs, sums[j*len(cs):(j+1)*len(cs)]))
		if j == 0 {
			a.add(pkLine)
		}
	}
	a.notes = append(a.notes, len4.describe()+"; C = 1 is exponential sizes, the others balanced-means hyperexponential (h2:C)",
		"the Pollaczek–Khinchine line is the M/G/1 mean time 1 + λ(1+C)/(2(1−λ)) of random dispatching")
	b := responseVsRefresh("fig4b-heavy-tails-refresh", "Heavy tails on a stale board (N = 100, λ = 0.9, h2 sizes, C = 30)", false)
	off := len(pols) * len(cs)
	b.add(simSeries("best of two", "sq2", ts, sums[off:off+len(ts)]))
	b.add(simSeries("least loaded", "ll", ts, sums[off+len(ts):off+2*len(ts)]))
	v30, err := pk(30)
	if err != nil {
		return nil, err
	}
	flat := lineSeries("random, Pollaczek–Khinchine", "random", "closed_form")
	flat.point(ts[0], v30, 0, "")
	flat.point(ts[len(ts)-1], v30, 0, "")
	b.add(flat)
	b.notes = append(b.notes, len4.describe()+"; refresh periods T = "+joinFloats(ts),
		fmt.Sprintf("the flat line is random dispatching's Pollaczek–Khinchine mean at C = 30, %.4g (random does not read the board)", v30))
	return []*figPlot{a, b}, nil
}

// --- Figure 5 -------------------------------------------------------------

// edgeBracketSettings are the bracket run lengths: validation.md's (runs of
// 1,000 refreshes, 6 runs a point, resolution 0.05) or the quick ones.
func (o *figOpts) bracketSettings(n, k int, model float64) compare.BracketSettings {
	s := compare.BracketSettings{Servers: n, Dispatchers: k, Load: figLoad, ModelScaled: model,
		Seed: o.seed, Workers: o.workers}
	if o.quick {
		s.Runs, s.Refreshes, s.Cut, s.Resolution = 3, 100, 100, 0.5
	}
	return s
}

func (o *figOpts) bracketNote() string {
	if o.quick {
		return "brackets (`herd bracket`): 3 runs a point, 100 refreshes a run, resolution 0.5 in T(1−λ)²; least loaded + own tally from a balanced start; a run tips when the board mean stays above max(3/(1−λ), 0.1·T) for 5 refreshes"
	}
	return "brackets (`herd bracket` defaults): 6 runs a point, 1,000 refreshes a run, resolution 0.05 in T(1−λ)²; least loaded + own tally from a balanced start; a run tips when the board mean stays above max(3/(1−λ), 0.1·T) for 5 refreshes"
}

// runBrackets computes the brackets one after another (each spreads its
// runs over the workers).
func (o *figOpts) runBrackets(ctx context.Context, set []compare.BracketSettings) ([]compare.BracketResult, error) {
	var out []compare.BracketResult
	for _, s := range set {
		start := time.Now()
		prog := newProgress(o.e.stderr, fmt.Sprintf("%s: bracket N=%d k=%d", o.name, s.Servers, s.Dispatchers), "runs")
		r, err := compare.Bracket(ctx, s, nil, func(done, total int) { prog.updateETA(done, total, start) })
		prog.finish()
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

func bracketPoint(s *figSeries, x float64, r compare.BracketResult) {
	if math.IsNaN(r.Lower) || math.IsNaN(r.Upper) {
		s.gap(x, "the bracket is not complete")
		return
	}
	s.point(x, (r.Lower+r.Upper)/2, (r.Upper-r.Lower)/2,
		fmt.Sprintf("bracket [%s, %s], %d points", fstr(r.Lower), fstr(r.Upper), len(r.Points)))
}

func figEdge(ctx context.Context, o *figOpts) ([]*figPlot, error) {
	loads := []float64{0.8, 0.9, 0.95}
	ks := []int{2, 3, 4, 5, 6, 8, 10}
	bks := []int{3, 4, 5, 6, 8, 10}
	if o.quick {
		loads = []float64{0.9}
		ks = []int{3, 5, 8}
		bks = []int{3, 5, 8}
	}
	type ept struct {
		k    int
		load float64
		r    meanfield.EdgeResult
		err  error
	}
	var eps []*ept
	for _, l := range loads {
		for _, k := range ks {
			eps = append(eps, &ept{k: k, load: l})
		}
	}
	if err := o.models(ctx, len(eps), func(i int) {
		e := eps[i]
		e.r, e.err = meanfield.Edge(meanfield.EdgeSettings{Dispatchers: e.k, Load: e.load})
	}); err != nil {
		return nil, err
	}
	edge09 := map[int]float64{}
	for _, e := range eps {
		if e.err != nil {
			return nil, fmt.Errorf("edge k = %d, λ = %g: %w", e.k, e.load, e.err)
		}
		if e.load == 0.9 && e.r.Status == meanfield.Found {
			edge09[e.k] = e.r.Scaled
		}
	}
	var set []compare.BracketSettings
	for _, k := range bks {
		m, ok := edge09[k]
		if !ok {
			return nil, fmt.Errorf("no model edge at k = %d, λ = 0.9", k)
		}
		set = append(set, o.bracketSettings(100, k, m))
	}
	brs, err := o.runBrackets(ctx, set)
	if err != nil {
		return nil, err
	}
	p := &figPlot{
		stem: "fig5-edge",
		fig: plotting.Figure{
			Title:  "The edge of the balanced state",
			XLabel: "dispatchers k",
			YLabel: "edge T_edge (1−λ)² (service times)",
		},
		xCol: "dispatchers", yCol: "edge_scaled", errCol: "half_width",
		errMeaning: "half the bracket's width (bracket points; the bar spans the bracket)",
	}
	for _, l := range loads {
		g := ""
		if l == 0.9 {
			g = "0.9"
		}
		s := lineSeries(fmt.Sprintf("refresh map, λ = %g", l), g, "model")
		for _, e := range eps {
			if e.load != l {
				continue
			}
			if e.r.Status != meanfield.Found {
				s.gap(float64(e.k), "no edge down to T(1−λ)² = 0.02")
				continue
			}
			s.point(float64(e.k), e.r.Scaled, 0, e.r.Crossing)
		}
		p.add(s)
	}
	// The law is drawn from k = 2 to one past the last k, so that no
	// bracket sits on the frame.
	law := lineSeries("law 0.9(k−2)", "", "law")
	for _, k := range []int{2, ks[len(ks)-1] + 1} {
		law.point(float64(k), lawScaled(k), 0, "")
	}
	p.add(law)
	bs := figSeries{Series: plotting.Series{Name: "simulator N = 100, λ = 0.9 (bracket)", Group: "0.9"}, kind: "bracket"}
	for i, k := range bks {
		bracketPoint(&bs, float64(k), brs[i])
	}
	p.add(bs)
	p.notes = append(p.notes,
		"model: meanfield.Edge (herd edge) at λ = "+joinFloats(loads)+" and k = "+joinInts(ks)+"; k = 2 never tips (no edge, not drawn); the law is drawn from k = 2 to "+strconv.Itoa(ks[len(ks)-1]+1),
		o.bracketNote()+"; brackets at k = "+joinInts(bks))
	return []*figPlot{p}, nil
}

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, ", ")
}

// --- Figure 6 -------------------------------------------------------------

func figFiniteSize(ctx context.Context, o *figOpts) ([]*figPlot, error) {
	ns := []int{25, 50, 100, 200, 400, 800, 1600}
	if o.quick {
		ns = []int{25, 50, 100}
	}
	e, err := meanfield.Edge(meanfield.EdgeSettings{Dispatchers: 5, Load: figLoad})
	if err != nil {
		return nil, err
	}
	if e.Status != meanfield.Found {
		return nil, errors.New("no model edge at k = 5, λ = 0.9")
	}
	var set []compare.BracketSettings
	for _, n := range ns {
		set = append(set, o.bracketSettings(n, 5, e.Scaled))
	}
	brs, err := o.runBrackets(ctx, set)
	if err != nil {
		return nil, err
	}
	p := &figPlot{
		stem: "fig6-finite-size",
		fig: plotting.Figure{
			Title:  "The edge against N (k = 5, λ = 0.9)",
			XLabel: "servers N",
			YLabel: "edge T_edge (1−λ)² (service times)",
			LogX:   true,
		},
		xCol: "servers", yCol: "edge_scaled", errCol: "half_width",
		errMeaning: "half the bracket's width (bracket points; the bar spans the bracket)",
	}
	bs := figSeries{Series: plotting.Series{Name: "simulator (bracket)"}, kind: "bracket"}
	for i, n := range ns {
		bracketPoint(&bs, float64(n), brs[i])
	}
	p.add(bs)
	// The model does not depend on N: draw it a little beyond the points
	// on both sides, so that no bracket sits on the frame.
	m := lineSeries("refresh map (N → ∞)", "", "model")
	m.point(float64(ns[0])/1.25, e.Scaled, 0, "")
	m.point(float64(ns[len(ns)-1])*1.25, e.Scaled, 0, "")
	p.add(m)
	p.notes = append(p.notes, o.bracketNote()+"; N = "+joinInts(ns),
		fmt.Sprintf("model: meanfield.Edge at k = 5, λ = 0.9: T_edge(1−λ)² = %.4f, drawn flat from N/1.25 to 1.25·N", e.Scaled))
	return []*figPlot{p}, nil
}

// --- Figure 7 -------------------------------------------------------------

func figTrapDoor(ctx context.Context, o *figOpts) ([]*figPlot, error) {
	const k = 5
	ts := []float64{20, 30, 50, 100, 150, 200, 300, 500, 700, 1000, 1500, 2000, 3000}
	runs, refreshes := 4, 200.0
	if o.quick {
		ts = []float64{30, 100, 300, 1000, 3000}
		runs, refreshes = 3, 20
	}
	starts := []struct {
		name, label string
	}{{"balanced", "balanced start"}, {"half:0.1T", "half at 0.1·T"}}
	var cfgs []sim.Config
	var sts []sim.Start
	for _, st := range starts {
		s, err := sim.ParseStart(st.name)
		if err != nil {
			return nil, err
		}
		sts = append(sts, s)
		for _, T := range ts {
			cfgs = append(cfgs, sim.Config{Servers: 100, Dispatchers: k, Load: figLoad, Refresh: T,
				Policy: sim.Policy{Kind: sim.LeastLoaded}, Tally: sim.TallyOwn, Start: s, Horizon: refreshes * T})
		}
	}
	sums, err := o.simulate(ctx, cfgs, runs)
	if err != nil {
		return nil, err
	}
	type mpt struct {
		st  int
		T   float64
		a   meanfield.HerdAttractor
		err error
	}
	var mps []*mpt
	for i := range starts {
		for _, T := range ts {
			mps = append(mps, &mpt{st: i, T: T})
		}
	}
	var bis meanfield.BistableResult
	var bisErr error
	if err := o.models(ctx, len(mps)+1, func(i int) {
		if i == len(mps) {
			bis, bisErr = meanfield.Bistable(meanfield.BistableSettings{Dispatchers: k, Load: figLoad})
			return
		}
		m := mps[i]
		m.a, m.err = meanfield.FindHerdAttractor(meanfield.Refresh{Dispatchers: k, Load: figLoad, Period: m.T},
			modelBoard(sts[m.st], m.T), meanfield.HerdSettings{})
	}); err != nil {
		return nil, err
	}
	if bisErr != nil {
		return nil, fmt.Errorf("bistable range: %w", bisErr)
	}
	p := responseVsRefresh("fig7-trap-door", "The trap door: 5 dispatchers, least loaded + own tally (λ = 0.9)", false)
	var warn []string
	for i, st := range starts {
		g := st.name
		line := lineSeries("refresh map, "+st.label, g, "model")
		var prev *mpt
		for _, m := range mps {
			if m.st != i {
				continue
			}
			if m.err != nil || m.a.Status == meanfield.Unconverged {
				warn = append(warn, fmt.Sprintf("model T = %g, start %s: did not settle (point skipped)", m.T, st.name))
				line.gap(m.T, "did not settle")
				continue
			}
			if prev != nil && prev.a.Herd != m.a.Herd {
				line.lineBreak() // the edge lies between: no line across it
			}
			prev = m
			line.point(m.T, m.a.Response, 0, herdKind(m.a))
		}
		p.add(line)
		p.add(simSeries("simulator N = 100, "+st.label, g, ts, sums[i*len(ts):(i+1)*len(ts)]))
	}
	if !math.IsNaN(bis.Low) && !math.IsNaN(bis.High) {
		p.fig.Bands = []plotting.Band{{XMin: bis.Low, XMax: bis.High, Label: "bistable (refresh map)"}}
	}
	p.notes = append(p.notes,
		fmt.Sprintf("simulator: %d runs per point, each %g refresh periods (horizon %g·T), the first quarter discarded; starts `balanced` (every queue empty, as `herd hysteresis`) and `half:0.1T`; T = %s", runs, refreshes, refreshes, joinFloats(ts)),
		"model: meanfield.FindHerdAttractor from meanfield.BoardEmpty() and BoardHalf(round(0.1·T)); `note` gives the attractor (fixed, period-P, aperiodic: a window average)",
		"band: "+bistableNote(bis)+" (meanfield.Bistable; the herd's range is searched up to T(1−λ)² = 30, i.e. T = 3,000)")
	p.notes = append(p.notes, warn...)
	return []*figPlot{p}, nil
}

// responseVsRefresh is the plot most figures share: mean time in system
// against the refresh period T, both on log axes, simulator points with
// 95% bars; big makes room for a long legend.
func responseVsRefresh(stem, title string, big bool) *figPlot {
	p := &figPlot{
		stem: stem,
		fig: plotting.Figure{
			Title:  title,
			XLabel: "board refresh period T (service times)",
			YLabel: "mean time in system (service times)",
			LogX:   true, LogY: true,
		},
		xCol: "refresh", yCol: "response_mean", errCol: "ci95",
		errMeaning: "the 95% interval's half-width, t(0.975, runs − 1) standard errors across runs (sim points; `se` and `runs` give the standard error and the run count)",
	}
	return p // one size for every figure: plotting's default
}
