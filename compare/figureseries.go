package compare

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"

	"herd/meanfield"
	"herd/sim"
)

// add appends a series to the plot.
func (p *FigurePlot) add(s FigureSeries) { p.Series = append(p.Series, s) }

// lineBreak ends the drawn line here, so that no segment joins the points
// on either side (a balanced value and a herd, with the edge between).
func (s *FigureSeries) lineBreak() { s.point(math.NaN(), math.NaN(), 0, BreakNote) }

// gap appends a point with no value at x (a gap in a line, an empty cell
// in the CSV), saying why.
func (s *FigureSeries) gap(x float64, why string) { s.point(x, math.NaN(), 0, GapNote+why) }

// point appends one point to a series.
func (s *FigureSeries) point(x, y, yerr float64, note string) {
	s.X = append(s.X, x)
	s.Y = append(s.Y, y)
	if s.YErr != nil || yerr != 0 {
		for len(s.YErr) < len(s.Y)-1 {
			s.YErr = append(s.YErr, math.NaN())
		}
		s.YErr = append(s.YErr, yerr)
	}
	if s.Notes != nil || note != "" {
		for len(s.Notes) < len(s.X)-1 {
			s.Notes = append(s.Notes, "")
		}
		s.Notes = append(s.Notes, note)
	}
}

// setSE gives the last point its standard error and run (or batch)
// count; points before it without one get NaN and 0. SE and Runs may end
// before X: the points after them have none.
func (s *FigureSeries) setSE(se float64, runs int) {
	for len(s.SE) < len(s.X)-1 {
		s.SE = append(s.SE, math.NaN())
	}
	for len(s.Runs) < len(s.X)-1 {
		s.Runs = append(s.Runs, 0)
	}
	s.SE = append(s.SE, se)
	s.Runs = append(s.Runs, runs)
}

// modelPoint appends a model point: a value, and where it is the long-run
// average of an irregular orbit (se > 0), the batch-means standard error
// se over batches batches, drawn as a 95% bar of t(0.975, batches − 1)
// standard errors, as a sim point's bar is over its runs (Flyvbjerg &
// Petersen 1989: batch means of a correlated series are about
// independent). The CSV gives se and batches in the `se` and `runs`
// columns.
func (s *FigureSeries) modelPoint(x, y, se float64, batches int, note string) {
	if !(se > 0) || math.IsInf(se, 0) || batches < 2 {
		s.point(x, y, 0, note)
		return
	}
	s.point(x, y, T975(batches)*se, note)
	s.setSE(se, batches)
}

// T975 returns t(0.975, runs − 1), the Student-t factor of a 95% interval
// for a mean over runs independent runs (4.30 for 3 runs, 2.57 for 6);
// NaN for fewer than 2 runs.
func T975(runs int) float64 {
	if runs < 2 {
		return math.NaN()
	}
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(runs - 1)}.Quantile(0.975)
}

// simSeries turns summaries into a point series with 95% bars,
// t(0.975, runs − 1) standard errors.
func simSeries(name, group string, xs []float64, sums []sim.Summary) FigureSeries {
	s := FigureSeries{Name: name, Group: group, Kind: "sim"}
	for i, sm := range sums {
		s.point(xs[i], sm.Response.Mean, T975(sm.Response.N)*sm.Response.SE, "")
		s.setSE(sm.Response.SE, sm.Response.N)
	}
	return s
}

func lineSeries(name, group, kind string) FigureSeries {
	return FigureSeries{Name: name, Group: group, Kind: kind, Line: true}
}

// simLength is a run length: the horizon in service times at refresh
// period T (0: live) and the runs per point.
type simLength struct {
	runs             int
	minHorizon, perT float64 // horizon = max(minHorizon, perT·T)
}

func (l simLength) horizon(T float64) float64 { return math.Max(l.minHorizon, l.perT*T) }

func (l simLength) describe() string {
	if l.perT > 0 {
		return fmt.Sprintf("simulator: %d runs per point, each max(%g, %g·T) service times, the first quarter discarded", l.runs, l.minHorizon, l.perT)
	}
	return fmt.Sprintf("simulator: %d runs per point, each %g service times, the first quarter discarded", l.runs, l.minHorizon)
}

const figLoad = 0.9

// ciMeaning is what the error column of a plot of simulator means holds.
const ciMeaning = "the 95% interval's half-width, t(0.975, runs − 1) standard errors across runs (sim points; `se` and `runs` give the standard error and the run count; a model point that is the long-run average of an irregular orbit has the same bar over its batch means, `se` its batch-means standard error and `runs` the number of batches)"

// responseVsRefresh is the plot most figures share: mean time in system
// against the refresh period T, both on log axes, simulator points with
// 95% bars.
func responseVsRefresh(stem, title string) *FigurePlot {
	return &FigurePlot{
		Stem:   stem,
		Title:  title,
		XLabel: "board refresh period T (service times)",
		YLabel: "mean time in system (service times)",
		LogX:   true, LogY: true,
		XCol: "refresh", YCol: "response_mean", ErrCol: "ci95",
		ErrMeaning: ciMeaning,
	}
}

func joinFloats(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fstr(x)
	}
	return strings.Join(parts, ", ")
}

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, ", ")
}

// AttractorName names a refresh-map attractor as the figures' notes and
// herd hysteresis give it: fixed, period-P, aperiodic or unconverged.
func AttractorName(a meanfield.HerdAttractor) string {
	switch a.Status {
	case meanfield.FixedPoint:
		return "fixed"
	case meanfield.Periodic:
		return "period-" + strconv.Itoa(a.Period)
	case meanfield.Aperiodic:
		return "aperiodic"
	}
	return "unconverged"
}

// BistableNote describes the refresh map's bistable range in words, as
// the figures' index and herd hysteresis give it.
func BistableNote(b meanfield.BistableResult) string {
	if b.Edge.Status != meanfield.Found {
		return "model: no edge (the balanced state exists at every T scanned)"
	}
	high := strconv.FormatFloat(b.HerdHigh, 'f', 0, 64)
	if b.HighOpen {
		high = "≥ " + high
	}
	if b.Status != meanfield.Found || math.IsNaN(b.Low) {
		return fmt.Sprintf("model: edge at T = %.5g (T(1−λ)² = %.4g); no herd coexists above it", b.EdgeRefresh, b.EdgeScaled)
	}
	return fmt.Sprintf("model: bistable for T in [%.5g, %s] (balanced above the edge T = %.5g, T(1−λ)² = %.4g; herd from T = %.4g)",
		b.Low, high, b.EdgeRefresh, b.EdgeScaled, b.HerdLow)
}
