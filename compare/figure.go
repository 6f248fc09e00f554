package compare

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// Figure is one numbered figure of validation.md: its heading, what it
// shows, and the experiment (which simulator runs and model points make
// each series) that computes its plots. cmd/herd draws the plots and
// writes the files; compare only computes the numbers.
type Figure struct {
	ID, Heading, About string
	make               func(ctx context.Context, r *figureRun) ([]*FigurePlot, error)
}

// FigurePlot is one output plot: its series and shaded bands, the axes,
// the CSV column names of x, y and the error bar, and the notes the index
// gives beside it.
type FigurePlot struct {
	Stem                  string // file name without extension
	Title, XLabel, YLabel string
	LogX, LogY            bool
	Series                []FigureSeries
	Bands                 []FigureBand
	XCol, YCol, ErrCol    string
	ErrMeaning            string // what the error column holds
	Notes                 []string
}

// FigureSeries is one plotted series with what the CSV says about it.
type FigureSeries struct {
	Name  string
	Group string // series with one Group share a colour
	Kind  string // sim, model, closed_form, law, bracket
	Line  bool   // a line (model) rather than points with bars
	X, Y  []float64
	YErr  []float64 // nil: no bars; a line's points may have bars too (SE)
	Notes []string  // per point (nil: none); GapNote and BreakNote mark gaps and breaks
	// SE and Runs are, per point of a sim series, the standard error and
	// the number of runs behind its bar; per point of a model line that is
	// the long-run average of an irregular orbit, its batch-means standard
	// error and number of batches (NaN and 0 where a point has none; nil,
	// or shorter than X, where the points after have none).
	SE   []float64
	Runs []int
}

// FigureBand is a shaded range of x.
type FigureBand struct {
	XMin, XMax float64
	Label      string
}

// GapNote starts the note of a point with no value; why follows it.
const GapNote = "no value: "

// BreakNote marks a break in a drawn line: not a computed point, so not
// a row of a figure's CSV.
const BreakNote = "\x00line break"

// FigureSettings says how to make the figures. The numbers do not depend
// on Workers: every simulator run's seed is derived from Seed and the
// run's parameters before any work starts, and results are stored by index.
type FigureSettings struct {
	Quick   bool   // CI-sized run lengths; false: validation.md's
	Seed    uint64 // master seed
	Workers int    // simulator runs and model points in parallel; default 1

	// Progress, if set, is called (serially) as work is done; see
	// FigureProgress.
	Progress func(FigureProgress)

	// Journal, if set, keeps every finished simulator run and bracket
	// run, and gives back those it holds instead of running them again
	// (a resumed run); it must have been opened for these Quick and Seed.
	// The numbers are the same with or without it.
	Journal *FigureJournal
}

// FigureProgress reports work on one figure. Work is counted in cost
// units, so that an estimate of the time left can weigh runs that differ
// a thousandfold in length: a simulator run costs its expected number of
// jobs (servers × load × horizon), a model point one unit of
// ModelPointCost. Total is the cost known so far; a bracket's grows as
// its search goes (TotalKnown is then false).
type FigureProgress struct {
	Figure      int    // index into the list given to MakeFigures
	Stage       string // "runs", "model points", "bracket N=100 k=5"
	Done, Total float64
	TotalKnown  bool
	Finished    bool // the figure is computed (its plots follow)
}

// ModelPointCost is the cost of one model point in FigureProgress units
// (about the time of a simulator run of this many jobs).
const ModelPointCost = 2e6

// Figures returns the published figures in order (figure 1 first).
func Figures() []Figure {
	return []Figure{
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

// MakeFigures computes figs concurrently, sharing one pool of
// s.Workers for their simulator runs and model points (a run two figures
// share is made once), and calls made (serially, in the order the figures
// finish) with each figure's index in figs and its plots. It returns the
// first error, or ctx's when cancelled; figures already passed to made
// are complete, the others were not passed at all. Made's error stops the
// rest and is returned.
func MakeFigures(ctx context.Context, s FigureSettings, figs []Figure, made func(i int, plots []*FigurePlot) error) error {
	if s.Workers < 1 {
		s.Workers = 1
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pool := newFigurePool(s.Workers)
	ids := make([]string, len(figs))
	for i, f := range figs {
		ids[i] = f.ID
	}
	if err := s.Journal.addFigures(ids); err != nil {
		return err
	}
	var mu sync.Mutex // serialises made and Progress
	var first error
	fail := func(err error) {
		if first == nil {
			first = err
			cancel()
		}
	}
	// Every figure at once (a worker each): their runs and points share
	// the figures' slots (figurePool), which bound the work.
	NewPool(ctx, len(figs), nil)(len(figs), func(i int) {
		f := figs[i]
		r := &figureRun{FigureSettings: s, index: i, pool: pool, mu: &mu}
		plots, err := f.make(ctx, r)
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
				err = ctx.Err()
			} else {
				err = fmt.Errorf("figure %s: %w", f.ID, err)
			}
			fail(err)
			return
		}
		if first != nil {
			return
		}
		if s.Progress != nil {
			s.Progress(FigureProgress{Figure: i, Finished: true, TotalKnown: true})
		}
		if err := made(i, plots); err != nil {
			fail(err)
		}
	})
	if first == nil && ctx.Err() != nil {
		first = ctx.Err()
	}
	return first
}
