package compare

import (
	"math"

	"herd/fleet"
	"herd/sim"
)

// Tipping. A finite run tips when it leaves the balanced
// state for the herd. What separates the two is the backlog: a herd stores
// a backlog that grows with the refresh period (mean board value 0.3–0.8·T
// in every herd herd has measured), while any working state keeps a queue
// of order 1/(1−λ) whatever T is (random dispatching, the worst working
// rule, holds λ/(1−λ) jobs per server).
//
// The detector therefore reads only the board's mean at each refresh, m_j,
// and calls a run tipped at the first refresh j at which m has stayed above
// the threshold
//
//	θ = max(3/(1−λ), 0.1·T)
//
// for Window consecutive refreshes (default 5). 3/(1−λ) is three times
// random dispatching's queue, so no working state reaches it; 0.1·T is a
// third of the smallest herd backlog. Near the edge (T(1−λ)² ≈ 3) the two
// scales are 30 and 0.3·T/(1−λ)²·(1−λ)² ≈ 30 at λ = 0.9, while balanced
// states hold 5–8 and herds 90–120: the threshold sits well inside a
// 10–30-fold gap. Requiring Window refreshes in a row makes the test
// robust to the noise of small N and to a start state that begins above θ
// and recovers (a half-loaded start drains within a period or two).
//
// It does not look at whether every server receives jobs: at 80% load
// with 3 dispatchers and T = 20–45 the dispatchers stop reaching every
// server within a period, yet the mean time stays 3.5–5.6 with no herd,
// and a test built on reach misfires there (validation.md).

// DefaultTipWindow is the number of consecutive refreshes above the
// threshold that make a run tipped.
const DefaultTipWindow = 5

// TipThreshold returns θ = max(3/(1−λ), 0.1·T), the board mean above
// which a refresh counts towards tipping.
func TipThreshold(load, refresh float64) float64 {
	return math.Max(3/(1-load), 0.1*refresh)
}

// DetectorBlind reports whether the detector cannot tell a herd from a
// working state at load λ, refresh period T and job sizes z, and random
// dispatching's queue L there. The threshold's margin rests on random
// dispatching, the worst working rule, holding at most a third of θ; with
// sizes of second moment E[S²] it holds L = λ(1 + λE[S²]/(2(1−λ))) jobs per
// server (Pollaczek–Khinchine), which is λ/(1−λ) < θ/3 with exponential
// sizes and less with Erlang ones, but not with long tails at short
// periods: h2:10 at λ = 0.9 gives L = 45.5 against θ = 30 for T ≤ 300,
// where herds hold 0.6–0.75·T (herd sim, N = 100, k = 5: 74.8 at T = 100,
// 200 at T = 300), so no threshold on the board mean separates the two by
// the margin. Where it is blind, a run it calls tipped may be a working
// state. (herd plan judges the same question by DetectorSees, a bound of
// its own: 1.2·max(1, C)/(1−λ) against θ.)
func DetectorBlind(load, refresh float64, z fleet.Sizes) (L float64, blind bool) {
	L = load * (1 + load*z.SecondMoment()/(2*(1-load)))
	return L, !(3*L < TipThreshold(load, refresh))
}

// Detector watches a run's board records and decides whether it tipped.
// Use Observe as sim.Config.Observe; it stops the run once tipped when
// Stop is set.
type Detector struct {
	Threshold float64
	Window    int  // 0 means DefaultTipWindow
	Stop      bool // end the run at the tipping refresh

	run      int // consecutive refreshes above the threshold
	records  int
	tipped   bool
	tippedAt int // refresh index (0 = the start) at which it tipped
}

// NewDetector returns a detector for load λ and refresh period T.
func NewDetector(load, refresh float64, stop bool) *Detector {
	return &Detector{Threshold: TipThreshold(load, refresh), Stop: stop}
}

// Observe takes one board record; it returns false to stop the run.
func (d *Detector) Observe(b sim.BoardStat) bool {
	w := d.Window
	if w == 0 {
		w = DefaultTipWindow
	}
	idx := d.records
	d.records++
	if d.tipped {
		return !d.Stop
	}
	if b.Mean > d.Threshold {
		d.run++
	} else {
		d.run = 0
	}
	if d.run >= w {
		d.tipped, d.tippedAt = true, idx
		return !d.Stop
	}
	return true
}

// Tipped reports whether the run tipped and at which refresh (the index of
// the record that completed the window; 0 is the start state).
func (d *Detector) Tipped() (bool, int) { return d.tipped, d.tippedAt }

// Records is the number of board records seen.
func (d *Detector) Records() int { return d.records }
