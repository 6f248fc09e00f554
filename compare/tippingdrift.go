package compare

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"

	"herd/sim"
)

// Drift. A run can leave its state during measurement without tipping in
// the detector's sense: its board creeps up towards a herd, or creeps down
// while it is still draining its start state (the warm-up was too short).
// Either way its mean depends on the run length, and a standard error
// computed from the spread of run means does not say so.
//
// The test is the batch-means trend test. The board records at or after
// the warm-up (the board mean at each refresh, or at each sample of a live
// board: the mean queue then) are grouped into consecutive batches of
// equal size, DriftBatches to 2·DriftBatches − 1 of them, plus the
// incomplete last batch. The batch means are regressed on the batch's mean
// time by least squares weighted by the batch size (a batch mean of n
// records has variance ∝ 1/n once a batch is longer than the board's
// correlation time), and the slope is divided by its standard error. With
// B batches the statistic has B − 2 degrees of freedom; a row of R runs
// flags a run when |t| exceeds the two-sided Student-t quantile at
// DriftAlpha/R (Bonferroni), so that a row of stationary runs warns with
// probability at most DriftAlpha when batch means are independent.
//
// Batch means are independent only when a batch is long against the
// board's correlation time. The slowest working state is random
// dispatching: an M/M/1 queue, whose time-average queue length has the
// variance of independent samples taken 2(1+λ)/(1−λ)² apart (380 service
// times at λ = 0.9; Whitt, "Planning queueing simulations", Management
// Science 35(11), 1989). A run is therefore tested only when its batches
// span at least DriftSpanFactor times that (DriftMinSpan). Measured on
// stationary runs (random dispatching, N = 25, λ = 0.9, 400–1,000 runs
// each, nominal 1% per run): batches spanning 80, 160, 320, 640, 800,
// 1,000 and 1,280 service times flagged 22.5%, 12.5%, 4.8%, 3.4%, 2.4%,
// 0.9% and 0.5% of runs; at the default length (batches of 1,280) random,
// round robin and live least loaded flagged 0.5%, 1.25% and 0.75%
// (compare/validation.md, "Run length").
//
// A run that tips in the last batch or two shows little trend (a step at
// the end of a short series barely tilts a straight line): that case is
// the tipping detector's (Detector, and Detector.Pending for a tip still
// under way at the horizon).

// DriftBatches is the least number of complete batches the trend test
// uses; runs with fewer board records after the warm-up are not tested.
const DriftBatches = 10

// DriftSpanFactor is the least span of a batch in units of the M/M/1
// variance time 2(1+λ)/(1−λ)².
const DriftSpanFactor = 2.5

// DriftMinSpan is the least span of a batch, in service times, for the
// drift test at load λ: DriftSpanFactor·2(1+λ)/(1−λ)² (950 at λ = 0.9).
func DriftMinSpan(load float64) float64 {
	return DriftSpanFactor * 2 * (1 + load) / ((1 - load) * (1 - load))
}

// DriftAlpha is the false-alarm rate of the drift test per row of runs
// (Bonferroni over the row's runs).
const DriftAlpha = 0.01

// DriftWatch groups one run's board records after Warmup into batches as
// they arrive: batches of one record at first; when 2·DriftBatches batches
// are complete, neighbours are merged and the batch size doubles. It keeps
// at most 2·DriftBatches batches whatever the run length.
type DriftWatch struct {
	Warmup float64

	size     int       // records per complete batch
	sum, at  []float64 // per complete batch: sum of board means, of times
	cur      int       // records in the incomplete batch
	cSum, cT float64
}

// Add takes one board record; records before the warm-up are ignored.
func (w *DriftWatch) Add(b sim.BoardStat) {
	if b.Time < w.Warmup {
		return
	}
	if w.size == 0 {
		w.size = 1
	}
	w.cur++
	w.cSum += b.Mean
	w.cT += b.Time
	if w.cur < w.size {
		return
	}
	w.sum = append(w.sum, w.cSum)
	w.at = append(w.at, w.cT)
	w.cur, w.cSum, w.cT = 0, 0, 0
	if len(w.sum) == 2*DriftBatches {
		for i := 0; i < DriftBatches; i++ {
			w.sum[i] = w.sum[2*i] + w.sum[2*i+1]
			w.at[i] = w.at[2*i] + w.at[2*i+1]
		}
		w.sum, w.at = w.sum[:DriftBatches], w.at[:DriftBatches]
		w.size *= 2
	}
}

// Drift is the result of the trend test on one run.
type Drift struct {
	// Batches used, the incomplete last one included; 0: not tested.
	Batches int `json:"batches"`
	// Span is the time between consecutive batches (service times).
	Span float64 `json:"span"`
	// T is the slope divided by its standard error (Batches − 2 d.f.); an
	// exact line (no residual) has ±math.MaxFloat64, so that the value
	// stays finite (JSON).
	T float64 `json:"t"`
	// From and To are the observed board means of the first and the last
	// batch: quantities, never negative, where the fitted line's ends can be
	// (a run that tips late fits a line from below 0).
	From float64 `json:"from"`
	To   float64 `json:"to"`
}

// Test fits the trend. A run with fewer than DriftBatches records after
// the warm-up, or whose batches span less than minSpan service times, is
// not tested (Batches 0; Span says how long its batches were).
func (w *DriftWatch) Test(minSpan float64) Drift {
	var ys, xs, ws []float64
	for i := range w.sum {
		n := float64(w.size)
		ys, xs, ws = append(ys, w.sum[i]/n), append(xs, w.at[i]/n), append(ws, n)
	}
	if w.cur > 0 {
		n := float64(w.cur)
		ys, xs, ws = append(ys, w.cSum/n), append(xs, w.cT/n), append(ws, n)
	}
	if len(w.sum) < DriftBatches {
		return Drift{}
	}
	span := (xs[len(w.sum)-1] - xs[0]) / float64(len(w.sum)-1)
	if span < minSpan {
		return Drift{Span: span}
	}
	d := trend(xs, ys, ws)
	d.Span = span
	d.From, d.To = ys[0], ys[len(ys)-1]
	return d
}

// trend is weighted least squares of ys on xs (len(xs) ≥ 3): the slope's
// t statistic.
func trend(xs, ys, ws []float64) Drift {
	var sw, mx, my float64
	for i := range xs {
		sw += ws[i]
		mx += ws[i] * xs[i]
		my += ws[i] * ys[i]
	}
	mx, my = mx/sw, my/sw
	var sxx, sxy float64
	for i := range xs {
		dx := xs[i] - mx
		sxx += ws[i] * dx * dx
		sxy += ws[i] * dx * (ys[i] - my)
	}
	d := Drift{Batches: len(xs)}
	if !(sxx > 0) {
		return d
	}
	beta := sxy / sxx
	var rss float64
	for i := range xs {
		r := ys[i] - my - beta*(xs[i]-mx)
		rss += ws[i] * r * r
	}
	// s² estimates the variance of one record's share (a batch of n
	// records has variance s²/n); the slope's variance is s²/sxx.
	s2 := rss / float64(len(xs)-2)
	switch se := math.Sqrt(s2 / sxx); {
	case se > 0:
		d.T = beta / se
	case beta != 0:
		d.T = math.Copysign(math.MaxFloat64, beta)
	}
	return d
}

// DriftCritical is the |t| above which one of runs runs counts as drifted:
// the two-sided Student-t quantile at DriftAlpha/runs with batches − 2 d.f.
func DriftCritical(batches, runs int) float64 {
	a := DriftAlpha / float64(max(runs, 1))
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(batches - 2)}.Quantile(1 - a/2)
}

// Drifted reports whether the run drifted, as one of runs runs.
func (d Drift) Drifted(runs int) bool {
	return d.Batches >= DriftBatches && math.Abs(d.T) > DriftCritical(d.Batches, runs)
}

// String describes the fitted change.
func (d Drift) String() string {
	return fmt.Sprintf("%.3g → %.3g (t = %.1f, %d d.f.)", d.From, d.To, d.T, d.Batches-2)
}

// DriftWarning names the runs of a row that drifted during measurement
// ([warmup, horizon)), or returns nil. row names the row.
func DriftWarning(row string, ds []Drift, warmup, horizon float64) []string {
	var up, down []string
	for i, d := range ds {
		if !d.Drifted(len(ds)) {
			continue
		}
		s := fmt.Sprintf("run %d %s", i, d)
		if d.T > 0 { // the fitted slope's sign
			up = append(up, s)
		} else {
			down = append(down, s)
		}
	}
	if len(up)+len(down) == 0 {
		return nil
	}
	var why []string
	if len(up) > 0 {
		why = append(why, "a rising board is a run leaving its state (run longer, or see herd bracket)")
	}
	if len(down) > 0 {
		why = append(why, "a falling one is still draining its start (lengthen --warmup)")
	}
	return []string{fmt.Sprintf("%s: %d of %d runs drifted during measurement (from %g to %g; board mean in the first and last batch: %s; batch-means trend test, two-sided, %g per row): response_mean depends on the run length; %s",
		row, len(up)+len(down), len(ds), warmup, horizon, strings.Join(append(up, down...), "; "), DriftAlpha, strings.Join(why, "; "))}
}
